/// Strings numbered in order of first use, each with a code byte (0 for plain strings, the
/// metric or unit code for a type name or unit symbol); the order is the input's, never a hash
/// table's.
///
/// Envelopes repeat a handful of strings, so small tables are searched linearly (cheaper than
/// hashing), starting with the caller's hint; a hash index keyed by exact bytes takes over past
/// `linearLimit` entries.
struct StringTable {
    private(set) var strings: [String] = []
    private(set) var codes: [UInt8] = []
    private var indices: [[UInt8]: Int32] = [:]
    private static let linearLimit = 16

    /// The number of (`code`, `string`), added when new; `hint` is the entry to try first.
    mutating func index(adding string: String, code: UInt8 = 0, hint: Int32 = 0) -> Int32 {
        if hint >= 0, Int(hint) < strings.count, codes[Int(hint)] == code, strings[Int(hint)].hasSameUTF8(as: string) {
            return hint
        }
        for index in strings.indices.prefix(Self.linearLimit)
        where codes[index] == code && strings[index].hasSameUTF8(as: string) {
            return Int32(index)
        }
        if strings.count > Self.linearLimit, let index = indices[Array(string.utf8)], codes[Int(index)] == code {
            return index
        }
        // One text under two codes cannot come from ingest (a name or symbol means one thing at a
        // time); such an entry is kept apart and is only found by the hint or the linear part.
        let index = Int32(strings.count)
        if strings.count >= Self.linearLimit {
            let key = Array(string.utf8)
            if indices[key] == nil { indices[key] = index }
        }
        strings.append(string)
        codes.append(code)
        return index
    }
}
