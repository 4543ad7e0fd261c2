/// The little JSON writing the importer needs: quoted strings and number validation.
///
/// Output is built by hand so the field order is fixed and the bytes are identical on every run.
enum JSONText {
    /// Appends `text` as a JSON string literal (quotes included).
    ///
    /// Escapes `"` and `\`, and control characters below U+0020 (`\n`, `\r`, `\t`, else
    /// `\u00XX`). Everything else, including non-ASCII, is written as UTF-8.
    /// - Parameters:
    ///   - text: the string to write.
    ///   - output: the JSON text being built.
    static func appendQuoted(_ text: String, to output: inout String) {
        output.append("\"")
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5c }) {
            output.append(text)
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": output.append("\\\"")
                case "\\": output.append("\\\\")
                case "\n": output.append("\\n")
                case "\r": output.append("\\r")
                case "\t": output.append("\\t")
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: output.unicodeScalars.append(scalar)
                }
            }
        }
        output.append("\"")
    }

    /// Appends text known to need no escaping (ids, RFC 3339 times, catalogue names) in quotes.
    ///
    /// - Parameters:
    ///   - text: printable ASCII without `"` or `\\`.
    ///   - output: the JSON text being built.
    static func appendQuotedVerbatim(_ text: String, to output: inout String) {
        output.append("\"")
        output.append(text)
        output.append("\"")
    }

    /// The JSON number text for a numeric attribute value.
    ///
    /// A value already in JSON number syntax is kept byte for byte (`74`, `0.12`, `1e-05`), so no
    /// precision is lost or invented; other finite spellings Swift reads (`.5`, `5.`, `+3`) become
    /// the shortest round-tripping decimal. NaN, infinities, overflow and non-numbers give `nil`.
    /// - Parameter written: the attribute as written.
    /// - Returns: a finite JSON number, or `nil`.
    static func number(_ written: String) -> String? {
        guard let value = Double(written), value.isFinite else { return nil }
        if isJSONNumber(written) { return written }
        return value.description
    }

    /// Whether `text` matches the JSON number grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func isDigit(_ i: Int) -> Bool { i < bytes.count && (0x30...0x39).contains(bytes[i]) }
        func digitRun() -> Bool {
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
            return true
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if !digitRun() {
            return false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digitRun() else { return false }
        }
        if index < bytes.count,
            bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
        {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard digitRun() else { return false }
        }
        return index == bytes.count
    }
}
