/// Writes `JSONValue`s as compact JSON text.
///
/// Output is deterministic: members in order, no whitespace, numbers as their literal, strings
/// escaped minimally. Text written from a parsed value parses back to an equal value.
package enum JSONWriter {
    /// Compact JSON text of a value (members in order, no spaces), strings escaped minimally
    /// (`"`, `\`, control chars as `\u00XX` or `\n` `\t` etc.), numbers written as their literal.
    ///
    /// Nested containers are walked with an explicit stack, not recursion.
    /// - Parameters:
    ///   - value: the value to write.
    ///   - out: the bytes to append to.
    package static func write(_ value: JSONValue, into out: inout [UInt8]) {
        var open: [OpenContainer] = []
        var next: JSONValue? = value
        while true {
            if let current = next {
                next = nil
                switch current {
                case .null: out.append(contentsOf: "null".utf8)
                case .bool(true): out.append(contentsOf: "true".utf8)
                case .bool(false): out.append(contentsOf: "false".utf8)
                case .number(let number): out.append(contentsOf: number.literal.utf8)
                case .string(let text): writeString(text, into: &out)
                case .array(let elements):
                    out.append(0x5B)
                    open.append(.array(elements, next: 0))
                case .object(let object):
                    out.append(0x7B)
                    open.append(.object(object.members, next: 0))
                }
            }
            guard let container = open.popLast() else { return }
            switch container {
            case .array(let elements, let position):
                if position == elements.count {
                    out.append(0x5D)
                } else {
                    if position > 0 { out.append(0x2C) }
                    open.append(.array(elements, next: position &+ 1))
                    next = elements[position]
                }
            case .object(let members, let position):
                if position == members.count {
                    out.append(0x7D)
                } else {
                    if position > 0 { out.append(0x2C) }
                    writeString(members[position].key, into: &out)
                    out.append(0x3A)
                    open.append(.object(members, next: position &+ 1))
                    next = members[position].value
                }
            }
        }
    }

    /// A container `write(_:into:)` has opened and not yet closed.
    private enum OpenContainer {
        /// An array and the position of its next element.
        case array([JSONValue], next: Int)
        /// An object's members and the position of its next member.
        case object([JSONObject.Member], next: Int)
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
        // Read in place when the string is contiguous UTF-8 (native strings are): no copy of it.
        if text.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0, into: &out) }) != nil { return }
        var text = text
        text.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    /// Appends a JSON string literal for UTF-8 bytes, escaped as `writeString(_:into:)` does.
    /// - Parameters:
    ///   - bytes: valid UTF-8.
    ///   - out: the bytes to append to, quotes included.
    package static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(atMost: maximumStringLength(utf8Count: bytes.count)) { writeString(utf8: bytes, to: &$0) }
    }

    /// The most bytes the literal of a string of `utf8Count` bytes takes: every byte escaped as
    /// `\u00xx`, and the quotes.
    static func maximumStringLength(utf8Count: Int) -> Int { 6 * utf8Count + 2 }

    /// Writes the JSON string literal of a string at a cursor, escaped as `writeString(_:into:)`
    /// does (read in place when the string is contiguous UTF-8, as native strings are).
    /// - Parameters:
    ///   - text: the string.
    ///   - out: room for `maximumStringLength(utf8Count:)` bytes.
    static func writeString(_ text: String, to out: inout ByteCursor) {
        if text.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0, to: &out) }) != nil { return }
        var text = text
        text.withUTF8 { writeString(utf8: $0, to: &out) }
    }

    /// Writes the JSON string literal of UTF-8 bytes at a cursor, escaped as
    /// `writeString(_:into:)` does.
    /// - Parameters:
    ///   - bytes: valid UTF-8.
    ///   - out: room for `maximumStringLength(utf8Count:)` bytes.
    static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteCursor) {
        out.write(0x22)
        // Most strings need no escape at all: their bytes are found plain and copied at once.
        let plain = plainPrefixCount(bytes)
        out.write(UnsafeBufferPointer(rebasing: bytes[..<plain]))
        for byte in bytes[plain...] {
            switch byte {
            case 0x22: out.write(#"\""#)
            case 0x5C: out.write(#"\\"#)
            case 0x08: out.write(#"\b"#)
            case 0x0C: out.write(#"\f"#)
            case 0x0A: out.write(#"\n"#)
            case 0x0D: out.write(#"\r"#)
            case 0x09: out.write(#"\t"#)
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                out.write(#"\u00"#)
                out.write(hex.utf8Start[Int(byte >> 4)])
                out.write(hex.utf8Start[Int(byte & 0xF)])
            default: out.write(byte)
            }
        }
        out.write(0x22)
    }

    /// How many bytes at the start of `bytes` need no escaping (none is below 0x20, a quote or
    /// a backslash), tested eight at a time: a word is plain when no byte of it is below 0x20
    /// and none equals 0x22 or 0x5C, which the "has a byte below n" and "has a zero byte" bit
    /// tricks tell without a false negative (a word they flag is then read byte by byte).
    private static func plainPrefixCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highBits != 0 }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let control = (word &- 0x20 &* ones) & ~word & highBits != 0
            if control || hasZeroByte(word ^ 0x22 &* ones) || hasZeroByte(word ^ 0x5C &* ones) { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { break }
            index += 1
        }
        return index
    }
}
