/// Eight bytes tested at once in one 64-bit word (SWAR): each byte is a lane whose top bit
/// carries the test. For words of ASCII bytes only (test `word & ByteLanes.tops` first): adding
/// less than 0x80 to such a lane never carries into the next.
enum ByteLanes {
    /// 0x01 in every lane: `ones &* b` is `b` in every lane.
    static var ones: UInt64 { 0x0101_0101_0101_0101 }
    /// The top bit of every lane.
    static var tops: UInt64 { 0x8080_8080_8080_8080 }

    /// The top bit of each lane of `word` whose byte lies in `low...high` (all below 0x80).
    @inline(__always)
    static func within(_ word: UInt64, _ low: UInt64, _ high: UInt64) -> UInt64 {
        (word &+ ones &* (0x80 - low)) & ~(word &+ ones &* (0x7F - high)) & tops
    }
}
