/// Writes `JSONValue`s as compact JSON text.
///
/// Output is deterministic: members in order, no whitespace, numbers as their literal, strings
/// escaped minimally. Text written from a parsed value parses back to an equal value.
package enum JSONWriter {
    /// Compact JSON text of a value (members in order, no spaces), strings escaped minimally
    /// (`"`, `\`, control chars as `\u00XX` or `\n` `\t` etc.), numbers written as their literal.
    /// - Parameters:
    ///   - value: the value to write.
    ///   - out: the bytes to append to.
    package static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(true): out.append(contentsOf: "true".utf8)
        case .bool(false): out.append(contentsOf: "false".utf8)
        case .number(let number): out.append(contentsOf: number.literal.utf8)
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            out.append(0x5B)
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(0x2C) }
                write(element, into: &out)
            }
            out.append(0x5D)
        case .object(let object):
            out.append(0x7B)
            for (position, member) in object.members.enumerated() {
                if position > 0 { out.append(0x2C) }
                writeString(member.key, into: &out)
                out.append(0x3A)
                write(member.value, into: &out)
            }
            out.append(0x7D)
        }
    }

    /// Compact JSON text of a value, as a `String`.
    /// - Parameter value: the value to write.
    /// - Returns: the text `write(_:into:)` produces.
    package static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends a JSON string literal for `text`.
    ///
    /// Escapes `"` and `\`, writes `\b` `\f` `\n` `\r` `\t`, other characters below U+0020 as
    /// `\u00xx`; everything else (non-ASCII included) is copied as UTF-8.
    /// - Parameters:
    ///   - text: the string.
    ///   - out: the bytes to append to, quotes included.
    package static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(0x22)
        let utf8 = text.utf8
        if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out.append(contentsOf: utf8)
        } else {
            for b in utf8 {
                switch b {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x08: out.append(contentsOf: [0x5C, 0x62])
                case 0x0C: out.append(contentsOf: [0x5C, 0x66])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                case 0x09: out.append(contentsOf: [0x5C, 0x74])
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                default: out.append(b)
                }
            }
        }
        out.append(0x22)
    }
}
