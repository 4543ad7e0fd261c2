/// The 16 bytes of a canonical UUID string (`8-4-4-4-12` hex, one letter case), and back.
enum UUIDText {
    /// The UUID's 16 bytes (big-endian halves) and its letter case, or `nil` when `text` is not one.
    static func bytes(of text: String) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        guard text.utf8.count == 36 else { return nil }
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        guard utf8[8] == dash, utf8[13] == dash, utf8[18] == dash, utf8[23] == dash else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        // Each byte's class: bit 4 marks a hex digit (its value in the low bits), bit 5 a
        // lowercase letter, bit 6 an uppercase one.
        var classes: UInt8 = 0x10
        for index in 0..<36 where index != 8 && index != 13 && index != 18 && index != 23 {
            let entry = hexTable[Int(utf8[index])]
            classes &= entry | 0x60
            classes |= entry & 0x60
            if index < 19 { high = high &<< 4 | UInt64(entry & 0x0F) } else { low = low &<< 4 | UInt64(entry & 0x0F) }
        }
        guard classes & 0x10 != 0, classes & 0x60 != 0x60 else { return nil }
        return ((high, low), classes & 0x40 == 0)
    }

    private static let dash = UInt8(ascii: "-")

    private static let hexTable: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): 0x10 | (UInt8(byte) - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): 0x30 | (UInt8(byte) - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): 0x50 | (UInt8(byte) - UInt8(ascii: "A") + 10)
        default: 0
        }
    }

    static func text(of bytes: UnsafeRawBufferPointer, lowercase: Bool) -> String {
        let digits = Array((lowercase ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
