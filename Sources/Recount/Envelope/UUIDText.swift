/// The 16 bytes of a canonical UUID string (`8-4-4-4-12` hex, one letter case), and back.
enum UUIDText {
    /// The UUID's 16 bytes (big-endian halves) and its letter case, or `nil` when `text` is not one.
    static func bytes(of text: String) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        guard text.utf8.count == 36 else { return nil }
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        let dash = UInt8(ascii: "-")
        guard utf8[8] == dash, utf8[13] == dash, utf8[18] == dash, utf8[23] == dash else { return nil }
        var sawLower = false
        var sawUpper = false
        /// Folds the hex digits at `range` into `word`; `false` at a byte that is none.
        func fold(_ range: Range<Int>, into word: inout UInt64) -> Bool {
            for index in range {
                let byte = utf8[index]
                let digit = byte &- UInt8(ascii: "0")
                let lower = byte &- UInt8(ascii: "a")
                let upper = byte &- UInt8(ascii: "A")
                let nibble: UInt8
                if digit < 10 {
                    nibble = digit
                } else if lower < 6 {
                    nibble = lower &+ 10
                    sawLower = true
                } else if upper < 6 {
                    nibble = upper &+ 10
                    sawUpper = true
                } else {
                    return false
                }
                word = word &<< 4 | UInt64(nibble)
            }
            return true
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        guard fold(0..<8, into: &high), fold(9..<13, into: &high), fold(14..<18, into: &high),
            fold(19..<23, into: &low), fold(24..<36, into: &low), !(sawLower && sawUpper)
        else { return nil }
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
