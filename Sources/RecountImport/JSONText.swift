import Recount

/// The little JSON writing the importer needs: quoted strings and number validation.
///
/// Output is built by hand so the field order is fixed and the bytes are identical on every run.
enum JSONText {
    /// Appends `text` as a JSON string literal (quotes included), escaped as `JSONWriter` does.
    static func appendQuoted(_ text: String, to output: inout String) {
        output += EnvelopeJSON.quote(text)
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
