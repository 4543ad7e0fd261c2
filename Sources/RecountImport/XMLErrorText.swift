/// Readable text for the errors libxml2 reports.
///
/// `XMLStreamParser` hands over libxml2's `xmlParserErrors` number; libxml2's own messages name
/// internals (`xmlParseStartTag: …`), so the common well-formedness errors are named here.
enum XMLErrorText {
    /// libxml2 error numbers (`xmlerror.h`) of the errors a damaged export can produce.
    private static let names: [Int: String] = [
        1: "internal error",
        4: "document is empty",
        5: "premature end of document",
        9: "invalid character",
        23: "entity reference without ';'",
        26: "undeclared entity",
        31: "unknown encoding",
        32: "unsupported encoding",
        38: "'<' in attribute value",
        39: "attribute value not started",
        40: "attribute value not finished",
        41: "attribute without value",
        42: "attribute redefined",
        44: "literal not finished",
        45: "comment not finished",
        61: "DOCTYPE not finished",
        63: "CDATA not finished",
        64: "reserved XML name",
        65: "space required",
        68: "name required",
        73: "'>' required",
        76: "opening and ending tag mismatch",
        77: "tag not finished",
        81: "invalid encoding",
        85: "not well balanced",
        86: "extra content at the end of the document",
    ]

    /// `XML_ERR_DOCUMENT_EMPTY`: no root element before the end.
    static let documentEmpty = 4

    /// A message for a parser error: `opening and ending tag mismatch (libxml2 error 76)`.
    ///
    /// - Parameter code: libxml2's error number.
    /// - Returns: the message.
    static func message(code: Int) -> String {
        "\(names[code] ?? "XML error") (libxml2 error \(code))"
    }
}
