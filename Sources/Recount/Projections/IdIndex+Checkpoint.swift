extension IdIndex {
    /// The bytes of one id in a checkpoint: its key, then its record.
    private static let checkpointEntrySize = 28 + Record.checkpointSize
    /// How many entries one block of the checkpoint holds: stored by column, a block's columns
    /// compress best when they are short enough (4,096 entries: the benchmark's index 2.4 times
    /// smaller than by row under LZ4, and 2.5 times faster to compress).
    private static let checkpointBlockEntries = 1 << 12

    /// Writes the index in number order, interning order kept, so that reading it back gives
    /// the same numbers (and so the same cells, in the same order). The keys and records are
    /// blocks of fixed-size entries, stored by column. With a `selection`, only its users' ids,
    /// renumbered.
    func writeCheckpoint(_ out: inout CanonicalBytes, keeping selection: CheckpointSelection? = nil) {
        for (interner, kept) in [(textIDs, selection?.textIDs), (strings, selection?.strings)] {
            let strings = kept.map { $0.kept.map { interner.strings[$0] } } ?? interner.strings
            out.append(UInt32(strings.count))
            for string in strings { out.append(string) }
        }
        let count = selection?.ids.count ?? records.count
        out.append(UInt64(count))
        @inline(__always) func put(_ key: StoredKey, _ record: Record, _ block: inout CanonicalBytes.ColumnWriter) {
            block.put(key.user)
            block.put(key.provider)
            block.put(key.high)
            block.put(key.low)
            block.put(key.kind)
            record.write(&block)
        }
        // Blocks, so that a streaming checkpoint spills between them, and a chunked reader reads
        // each from one chunk.
        for start in stride(from: 0, to: count, by: Self.checkpointBlockEntries) {
            let rows = min(count - start, Self.checkpointBlockEntries)
            // Two closures: a selection looked up per entry cost 70 instructions an id.
            if let selection {
                out.appendColumns(rows: rows, entrySize: Self.checkpointEntrySize) { block, row in
                    let number = selection.ids[start + row]
                    put(selection.renumbered(table.keys[number]), selection.renumbered(records[number]), &block)
                }
            } else {
                out.appendColumns(rows: rows, entrySize: Self.checkpointEntrySize) { block, row in
                    put(table.keys[start + row], records[start + row], &block)
                }
            }
        }
    }

    /// Reads what `writeCheckpoint` wrote, checking every reference.
    /// - Parameters:
    ///   - users, providers, sources: how many of each the checkpoint interned.
    init(
        checkpoint input: inout CheckpointReader, users: Int, providers: Int, sources: Int
    ) throws(CheckpointReader.Malformed) {
        self.init()
        for which in 0..<2 {
            var interner = Interner()
            for _ in 0..<(try input.integer(UInt32.self)) { _ = interner.intern(try input.string()) }
            if which == 0 { textIDs = interner } else { strings = interner }
        }
        let count = try input.int()
        guard count <= input.remainingBytes / Self.checkpointEntrySize else { throw CheckpointReader.Malformed() }
        // Keys are placed in the table's buckets all at once, after the last (`placeAppendedKeys`).
        table.reserveKeys(count)
        records.reserveCapacity(count)
        let (texts, interned) = (UInt32(textIDs.strings.count), UInt32(strings.strings.count))
        for start in stride(from: 0, to: count, by: Self.checkpointBlockEntries) {
            let rows = min(count - start, Self.checkpointBlockEntries)
            try input.columns(rows: rows, entrySize: Self.checkpointEntrySize) {
                block, _ throws(CheckpointReader.Malformed) in
                let key = StoredKey(reading: &block)
                guard key.user < users, key.provider < providers, key.kind < texts + 2,
                    let record = Record(reading: &block), record.zone <= interned,
                    record.syncIdentifier <= interned, record.unitSymbol <= interned,
                    // Only a live sample names a source (a tombstone's is 0, and a
                    // checkpoint of tombstones alone interned none).
                    record.state != .live || record.source.rawValue < sources
                else { throw CheckpointReader.Malformed() }
                table.appendUnplaced(key)
                appendLoaded(record)
            }
        }
        // A key twice is damage.
        guard table.placeAppendedKeys() else { throw CheckpointReader.Malformed() }
    }
}

extension IdIndex.StoredKey {
    /// Reads a key as `IdIndex.writeCheckpoint` writes it.
    fileprivate init(reading block: inout CheckpointReader.ColumnReader) {
        self.init(user: block.take(), provider: block.take(), high: block.take(), low: block.take(), kind: block.take())
    }
}
