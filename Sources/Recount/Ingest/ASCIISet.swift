/// A set of ASCII bytes as two 64-bit masks: membership is a shift and a test, where a closure
/// per byte that searched a string of allowed characters cost tens of instructions a byte
/// (an anchor's base64 check was 5% of an ingest's instructions).
struct ASCIISet: Sendable {
    private var masks: (low: UInt64, high: UInt64) = (0, 0)

    /// Letters and digits, and the bytes of `others`, which must be ASCII.
    static func alphanumerics(and others: StaticString) -> ASCIISet {
        var set = ASCIISet()
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { set.insert(byte) }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { set.insert(byte) }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { set.insert(byte) }
        others.withUTF8Buffer { others in
            for byte in others {
                precondition(byte < 0x80, "ASCIISet holds ASCII bytes only")
                set.insert(byte)
            }
        }
        return set
    }

    private mutating func insert(_ byte: UInt8) {
        if byte < 64 { masks.low |= 1 << byte } else { masks.high |= 1 << (byte - 64) }
    }

    /// Whether `byte` is in the set (a byte of 0x80 or more never is).
    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        let mask = byte < 64 ? masks.low : byte < 128 ? masks.high : 0
        return mask >> (byte & 63) & 1 != 0
    }
}
