/// Numbers a table's entries in order of first use, the table itself kept by the caller (a
/// `SampleBlock`'s strings, type names or units); the order is the input's, never a hash
/// table's.
///
/// Envelopes repeat a handful of entries, so small tables are searched linearly (cheaper than
/// hashing), starting with the caller's hint; an index keyed by exact bytes takes over past
/// `linearLimit` entries.
struct TableNumbering {
    private var indices: [[UInt8]: Int32] = [:]
    private static let linearLimit = 16

    /// The number of `entry` in `table`, appended when new.
    /// - Parameters:
    ///   - hint: the number to try first.
    ///   - text: an entry's string, by whose bytes a large table is indexed.
    ///   - isEntry: whether a table entry is `entry` (the same bytes, and the same metric or unit).
    mutating func number<Entry>(
        of entry: Entry, in table: inout [Entry], hint: Int32, text: (Entry) -> String, isEntry: (Entry) -> Bool
    ) -> Int32 {
        if hint >= 0, Int(hint) < table.count, isEntry(table[Int(hint)]) { return hint }
        for index in table.indices.prefix(Self.linearLimit) where isEntry(table[index]) { return Int32(index) }
        if table.count > Self.linearLimit, let index = indices[Array(text(entry).utf8)], isEntry(table[Int(index)]) {
            return index
        }
        // One text under two metrics or units cannot come from ingest (a name or symbol means one
        // thing at a time); such an entry is kept apart and is only found by the hint or the
        // linear part.
        let index = Int32(table.count)
        if table.count >= Self.linearLimit {
            let key = Array(text(entry).utf8)
            if indices[key] == nil { indices[key] = index }
        }
        table.append(entry)
        return index
    }
}
