/// Strings numbered in order of first use, each with a code byte (0 for plain strings, the
/// metric or unit code for a type name or unit symbol); the order is the input's, never a hash
/// table's.
///
/// Envelopes repeat a handful of strings, so small tables are searched linearly (cheaper than
/// hashing), starting with the caller's hint; a hash index keyed by exact bytes takes over past
/// `linearLimit` entries.
struct StringTable {
    /// The entries in order of first use.
    private(set) var entries: [(code: UInt8, string: String)] = []
    private var indices: [[UInt8]: Int32] = [:]
    private static let linearLimit = 16

    /// The number of (`code`, `string`), added when new; `hint` is the entry to try first.
    mutating func index(adding string: String, code: UInt8 = 0, hint: Int32 = 0) -> Int32 {
        if hint >= 0, Int(hint) < entries.count, entries[Int(hint)].code == code,
            entries[Int(hint)].string.hasSameUTF8(as: string)
        {
            return hint
        }
        for index in entries.indices.prefix(Self.linearLimit)
        where entries[index].code == code && entries[index].string.hasSameUTF8(as: string) {
            return Int32(index)
        }
        if entries.count > Self.linearLimit, let index = indices[Array(string.utf8)], entries[Int(index)].code == code {
            return index
        }
        // One text under two codes cannot come from ingest (a name or symbol means one thing at a
        // time); such an entry is kept apart and is only found by the hint or the linear part.
        let index = Int32(entries.count)
        if entries.count >= Self.linearLimit {
            let key = Array(string.utf8)
            if indices[key] == nil { indices[key] = index }
        }
        entries.append((code, string))
        return index
    }
}
