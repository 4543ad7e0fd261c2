extension IdIndex {
    /// Writes the index in number order, interning order kept, so that reading it back gives
    /// the same numbers (and so the same cells, in the same order).
    func writeCheckpoint(_ out: inout CanonicalBytes) {
        for interner in [textIDs, strings] {
            out.append(UInt32(interner.strings.count))
            for string in interner.strings { out.append(string) }
        }
        out.append(UInt64(records.count))
        for (key, record) in zip(table.keys, records) {
            out.append(key.user)
            out.append(key.provider)
            out.append(key.high)
            out.append(key.low)
            out.append(key.kind)
            out.append(record.state.rawValue)
            guard record.state == .live else { continue }
            out.append(record.metric.rawValue)
            out.append(record.stage.map { $0.rawValue + 1 } ?? 0)
            out.append(record.startOffset)
            out.append(record.endOffset)
            out.append(record.zone)
            out.append(record.syncIdentifier)
            out.append(record.unitSymbol)
            out.append(record.source.rawValue)
            out.append(record.startMillis)
            out.append(record.endMillis)
            out.append(record.value) { $0.append($1) }
            out.append(record.originalValue) { $0.append($1) }
            out.append(record.position)
            out.append(record.receivedAt)
            out.append(record.lastModified) { $0.append($1) }
            out.append(record.syncVersion) { $0.append($1) }
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
        let count = Int(try input.integer(UInt64.self))
        table = FlatTable(capacity: count)
        records.reserveCapacity(count)
        func check(_ condition: Bool) throws(CheckpointReader.Malformed) {
            if !condition { throw CheckpointReader.Malformed() }
        }
        for number in 0..<count {
            let key = StoredKey(
                user: try input.integer(), provider: try input.integer(), high: try input.integer(),
                low: try input.integer(), kind: try input.integer())
            try check(key.user < users && key.provider < providers && key.kind < textIDs.strings.count + 2)
            try check(table.insert(key) == (number, true))
            records.append(Record())
            guard let state = Record.State(rawValue: try input.integer()) else { throw CheckpointReader.Malformed() }
            switch state {
            case .empty: continue
            case .deleted:
                delete(number)
                continue
            case .live: break
            }
            guard let metric = Metric(rawValue: try input.integer()) else { throw CheckpointReader.Malformed() }
            let stageCode: UInt8 = try input.integer()
            let stage = stageCode == 0 ? nil : SleepStage(rawValue: stageCode - 1)
            try check(stageCode == 0 || stage != nil)
            var record = Record(state: .live, metric: metric, stage: stage)
            record.startOffset = try input.integer()
            record.endOffset = try input.integer()
            record.zone = try input.integer()
            record.syncIdentifier = try input.integer()
            record.unitSymbol = try input.integer()
            record.source = SourceID(try input.integer())
            try check(
                [record.zone, record.syncIdentifier, record.unitSymbol].allSatisfy { $0 <= strings.strings.count }
                    && record.source.rawValue < sources)
            record.startMillis = try input.integer()
            record.endMillis = try input.integer()
            record.value = try input.optional { r throws(CheckpointReader.Malformed) in try r.double() }
            record.originalValue = try input.optional { r throws(CheckpointReader.Malformed) in try r.double() }
            record.position = try input.integer()
            record.receivedAt = try input.integer()
            record.lastModified = try input.optional { r throws(CheckpointReader.Malformed) in try r.integer(Int64.self)
            }
            record.syncVersion = try input.optional { r throws(CheckpointReader.Malformed) in try r.integer(Int64.self)
            }
            set(number, record)
        }
    }
}
