/// Strings numbered in order of first use; the order is the input's, never a hash table's.
///
/// Envelopes repeat a handful of strings, so small tables are searched linearly (cheaper than
/// hashing), starting with the caller's hint; a hash index keyed by exact bytes takes over past
/// `linearLimit` entries.
struct StringTable {
    private(set) var strings: [String] = []
    private var indices: [[UInt8]: Int32] = [:]
    private static let linearLimit = 16

    /// The number of `string`, added when new; `hint` is the entry to try first.
    mutating func index(adding string: String, hint: Int32 = 0) -> Int32 {
        if hint >= 0, Int(hint) < strings.count, strings[Int(hint)].hasSameUTF8(as: string) { return hint }
        for index in strings.indices.prefix(Self.linearLimit) where strings[index].hasSameUTF8(as: string) {
            return Int32(index)
        }
        if strings.count > Self.linearLimit, let index = indices[Array(string.utf8)] { return index }
        let index = Int32(strings.count)
        if strings.count >= Self.linearLimit { indices[Array(string.utf8)] = index }
        strings.append(string)
        return index
    }
}
