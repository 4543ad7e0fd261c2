/// The 16 bytes of a canonical UUID string (`8-4-4-4-12` hex, one letter case), and back.
enum UUIDText {
    /// The UUID's 16 bytes (big-endian halves) and its letter case, or `nil` when `text` is not one.
    static func bytes(of text: String) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        guard text.utf8.count == 36 else { return nil }
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        var sawLower = false
        var sawUpper = false
        for index in 0..<utf8.count {
            let char = utf8[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard char == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = char - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                nibble = char - UInt8(ascii: "a") + 10
                sawLower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                nibble = char - UInt8(ascii: "A") + 10
                sawUpper = true
            default: return nil
            }
            if nibbles < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
            nibbles += 1
        }
        guard !(sawLower && sawUpper) else { return nil }
        return ((high, low), !sawUpper)
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
