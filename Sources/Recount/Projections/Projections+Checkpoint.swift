extension Projections {
    /// The whole state as bytes, interning order kept, so that loading it and folding the rest
    /// of the log gives exactly what folding the whole log gives.
    package func checkpoint() -> [UInt8] {
        var out = CanonicalBytes()
        writeCheckpoint(&out)
        return out.bytes
    }

    /// Writes what `checkpoint()` returns into `out`, which may stream it out.
    package func writeCheckpoint(_ out: inout CanonicalBytes) {
        out.append("recount checkpoint v2")
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
        index.writeCheckpoint(&out)
        let dirtyDays = dirty.days
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
    }

    /// Loads a checkpoint, or throws when it is damaged, foreign, or from other zone data.
    package init(checkpoint bytes: [UInt8]) throws(CheckpointReader.Malformed) {
        self.init()
        var input = CheckpointReader(bytes)
        try input.expect("recount checkpoint v2")
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
        index = try IdIndex(
            checkpoint: &input, users: users.strings.count, providers: providers.strings.count, sources: sources.count)
        index.forEachLiveNumber { number in
            let record = index.record(number)
            let user = index.owner(number).user
            Self.forEachDay(of: record, zone: index.zone(of: record), zones: zones) { day in
                cells.insert(number, into: CellKey(user: user, metric: record.metric, day: day))
            }
        }
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
}
