extension Projections {
    /// The whole state as bytes, interning order kept, so that loading it and folding the rest
    /// of the log gives exactly what folding the whole log gives.
    package func checkpoint() -> [UInt8] {
        var out = CanonicalBytes()
        out.append("recount checkpoint v1")
        out.append(position)
        out.append(zones.dataVersion)
        for interner in [users, providers] {
            out.append(UInt32(interner.strings.count))
            for string in interner.strings { out.append(string) }
        }
        out.append(UInt32(sources.count))
        for source in sources {
            out.append(source.origin)
            out.append(source.device) { $0.append($1) }
        }
        out.append(UInt64(index.liveCount))
        for (key, entry) in sortedLive() {
            writeKeyIDs(key, &out)
            writeEntry(entry, &out) { out, source in out.append(source.rawValue) }
        }
        let tombstones = index.tombstones.sorted(by: keyOrder)
        out.append(UInt64(tombstones.count))
        for key in tombstones { writeKeyIDs(key, &out) }
        func order(_ key: DirtyDays.Key) -> (UInt32, UInt32, UInt8, Int32) {
            (key.user, key.provider, key.metric.rawValue, key.day.daysSinceEpoch)
        }
        let dirtyDays = dirty.days.sorted { order($0.key) < order($1.key) }
        out.append(UInt64(dirtyDays.count))
        for (key, version) in dirtyDays {
            out.append(key.user)
            out.append(key.provider)
            out.append(key.metric.rawValue)
            out.append(key.day.daysSinceEpoch)
            out.append(version)
        }
        writeConfig(&out)
        writeSync(&out, counters: true)
        writeRollupCheckpoint(&out)
        return out.bytes
    }

    /// Loads a checkpoint, or throws when it is damaged, foreign, or from other zone data.
    package init(checkpoint bytes: [UInt8]) throws(CheckpointReader.Malformed) {
        self.init()
        var input = CheckpointReader(bytes)
        try input.expect("recount checkpoint v1")
        position = try input.integer()
        guard try input.string() == zones.dataVersion else { throw CheckpointReader.Malformed() }
        for which in 0..<2 {
            var interner = Interner()
            for _ in 0..<(try input.integer(UInt32.self)) { _ = interner.intern(try input.string()) }
            if which == 0 { users = interner } else { providers = interner }
        }
        for _ in 0..<(try input.integer(UInt32.self)) {
            let origin = try input.string()
            let source = Source(
                origin: origin, device: try input.optional { r throws(CheckpointReader.Malformed) in try r.string() })
            sourceIDs[source] = SourceID(UInt32(sources.count))
            sources.append(source)
        }
        func readKey(_ input: inout CheckpointReader) throws(CheckpointReader.Malformed) -> IdIndex.Key {
            let user: UInt32 = try input.integer()
            let provider: UInt32 = try input.integer()
            guard user < users.strings.count, provider < providers.strings.count else {
                throw CheckpointReader.Malformed()
            }
            return IdIndex.Key(user: user, provider: provider, id: try input.sampleID())
        }
        for _ in 0..<(try input.integer(UInt64.self)) {
            let key = try readKey(&input)
            guard let metric = Metric(rawValue: try input.integer()) else { throw CheckpointReader.Malformed() }
            let startMillis: Int64 = try input.integer()
            let startOffset: Int32 = try input.integer()
            let endMillis: Int64 = try input.integer()
            let endOffset: Int32 = try input.integer()
            let zone = try input.optional { r throws(CheckpointReader.Malformed) in try r.string() }
            let value = try input.optional { r throws(CheckpointReader.Malformed) in try r.double() }
            let stage = try input.optional { r throws(CheckpointReader.Malformed) in try r.integer(UInt8.self) }
            let source: UInt32 = try input.integer()
            guard source < sources.count, stage.map({ SleepStage(rawValue: $0) != nil }) ?? true else {
                throw CheckpointReader.Malformed()
            }
            let sample = LiveSample(
                id: key.id, metric: metric, startMillis: startMillis, startOffset: startOffset, endMillis: endMillis,
                endOffset: endOffset, zone: zone, value: value, stage: stage.flatMap(SleepStage.init(rawValue:)),
                source: SourceID(source), position: try input.integer())
            let entry = IdIndex.Entry(
                sample: sample, receivedAt: try input.integer(),
                lastModified: try input.optional { r throws(CheckpointReader.Malformed) in try r.integer(Int64.self) },
                syncIdentifier: try input.optional { r throws(CheckpointReader.Malformed) in try r.string() },
                syncVersion: try input.optional { r throws(CheckpointReader.Malformed) in try r.integer(Int64.self) },
                unitSymbol: try input.optional { r throws(CheckpointReader.Malformed) in try r.string() },
                originalValue: try input.optional { r throws(CheckpointReader.Malformed) in try r.double() })
            index.set(key, entry)
            Self.forEachDay(of: sample, zones: zones) { day in
                cells[CellKey(user: key.user, metric: metric, day: day), default: []].insert(key)
            }
        }
        for _ in 0..<(try input.integer(UInt64.self)) { index.delete(try readKey(&input)) }
        for _ in 0..<(try input.integer(UInt64.self)) {
            let user: UInt32 = try input.integer()
            let provider: UInt32 = try input.integer()
            guard let metric = Metric(rawValue: try input.integer()) else { throw CheckpointReader.Malformed() }
            let day = CivilDay(daysSinceEpoch: try input.integer())
            dirty.mark(DirtyDays.Key(user: user, provider: provider, metric: metric, day: day), at: try input.integer())
        }
        for _ in 0..<(try input.integer(UInt32.self)) {
            let user = try input.string()
            guard let metric = Metric(rawValue: try input.integer()) else { throw CheckpointReader.Malformed() }
            priorities[PriorityKey(user: user, metric: metric)] = try Self.readConfigured(&input)
        }
        for _ in 0..<(try input.integer(UInt32.self)) {
            ownOrigins[try input.string()] = try Self.readConfigured(&input)
        }
        try readSync(&input)
        try readRollupCheckpoint(&input)
        guard input.isAtEnd else { throw CheckpointReader.Malformed() }
    }

    /// Writes a live entry's fields (all but its key), the source as `writeSource` writes it.
    func writeEntry(
        _ entry: IdIndex.Entry, _ out: inout CanonicalBytes, writeSource: (inout CanonicalBytes, SourceID) -> Void
    ) {
        let sample = entry.sample
        out.append(sample.metric.rawValue)
        out.append(sample.startMillis)
        out.append(sample.startOffset)
        out.append(sample.endMillis)
        out.append(sample.endOffset)
        out.append(sample.zone) { $0.append($1) }
        out.append(sample.value) { $0.append($1) }
        out.append(sample.stage) { $0.append($1.rawValue) }
        writeSource(&out, sample.source)
        out.append(sample.position)
        out.append(entry.receivedAt)
        out.append(entry.lastModified) { $0.append($1) }
        out.append(entry.syncIdentifier) { $0.append($1) }
        out.append(entry.syncVersion) { $0.append($1) }
        out.append(entry.unitSymbol) { $0.append($1) }
        out.append(entry.originalValue) { $0.append($1) }
    }

    /// Writes the config in key order.
    func writeConfig(_ out: inout CanonicalBytes) {
        func write(_ setting: Configured) {
            out.append(setting.receivedAt)
            out.append(UInt32(setting.origins.count))
            for origin in setting.origins { out.append(origin) }
        }
        let sortedPriorities = priorities.sorted {
            ($0.key.user, $0.key.metric.rawValue) < ($1.key.user, $1.key.metric.rawValue)
        }
        out.append(UInt32(sortedPriorities.count))
        for (key, setting) in sortedPriorities {
            out.append(key.user)
            out.append(key.metric.rawValue)
            write(setting)
        }
        out.append(UInt32(ownOrigins.count))
        for (user, setting) in ownOrigins.sorted(by: { $0.key < $1.key }) {
            out.append(user)
            write(setting)
        }
    }

    private static func readConfigured(_ input: inout CheckpointReader) throws(CheckpointReader.Malformed) -> Configured
    {
        let receivedAt: Int64 = try input.integer()
        var origins: [String] = []
        for _ in 0..<(try input.integer(UInt32.self)) { origins.append(try input.string()) }
        return Configured(origins: origins, receivedAt: receivedAt)
    }

    private func writeKeyIDs(_ key: IdIndex.Key, _ out: inout CanonicalBytes) {
        out.append(key.user)
        out.append(key.provider)
        out.append(key.id)
    }
}
