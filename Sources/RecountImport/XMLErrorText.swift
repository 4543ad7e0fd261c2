import Foundation

/// Readable text for the errors `XMLParser` reports.
///
/// On Linux the `NSError` carries only libxml2's `xmlParserErrors` number (its localized
/// description says "The operation could not be completed", and `XMLParser.ErrorCode` does not
/// line up with those numbers), so the common well-formedness errors are named here.
enum XMLErrorText {
    /// libxml2 error numbers (`xmlerror.h`) of the errors a damaged export can produce.
    private static let names: [Int: String] = [
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

    /// A message for a parser error: `opening and ending tag mismatch (libxml2 error 76)`.
    ///
    /// - Parameter error: the error `XMLParser` reported.
    /// - Returns: the message.
    static func message(for error: any Error) -> String {
        let nsError = error as NSError
        let name = names[nsError.code] ?? "XML error"
        return "\(name) (libxml2 error \(nsError.code))"
    }
}
