extension Projections {
    /// The whole state as bytes, interning order kept, so that loading it and folding the rest
    /// of the log gives exactly what folding the whole log gives.
    package func checkpoint() -> [UInt8] {
        var out = CanonicalBytes()
        writeCheckpoint(&out)
        return out.bytes
    }

    /// Writes what `checkpoint()` returns into `out`, which may stream it out; with a
    /// `selection`, only the projections of its users (a range's part when it splits).
    package func writeCheckpoint(_ out: inout CanonicalBytes, keeping selection: CheckpointSelection? = nil) {
        out.append("recount checkpoint v2")
        out.append(position)
        out.append(zones.dataVersion)
        let userNames = selection.map { $0.users.kept.map { users.strings[$0] } } ?? users.strings
        for strings in [userNames, providers.strings] {
            out.append(UInt32(strings.count))
            for string in strings { out.append(string) }
        }
        let keptSources = selection.map { $0.sources.kept.map { sources[$0] } } ?? sources
        out.append(UInt32(keptSources.count))
        for source in keptSources {
            out.append(source.origin)
            out.append(source.device) { $0.append($1) }
        }
        index.writeCheckpoint(&out, keeping: selection)
        let dirtyDays =
            selection.map { selection in dirty.days.filter { selection.users.contains($0.key.user) } }
            ?? dirty.days
        out.append(UInt64(dirtyDays.count))
        for (key, version) in dirtyDays {
            out.append(selection?.users[key.user] ?? key.user)
            out.append(key.provider)
            out.append(key.metric.rawValue)
            out.append(key.day.daysSinceEpoch)
            out.append(version)
        }
        let kept = selection?.userNames
        writeCounted(.priorities, &out) { writePriorityEntries(of: kept, &$0) }
        writeCounted(.ownOrigins, &out) { writeOwnOriginEntries(of: kept, &$0) }
        writeCounted(.syncStates, &out) { writeSyncStateEntries(of: kept, counters: true, keeping: selection, &$0) }
        writeCounted(.providerSettings, &out) { writeProviderSettingEntries(of: kept, history: true, &$0) }
        writeRollupCheckpoint(&out, keeping: selection)
    }

    /// The selection of the users `keep` accepts, for `writeCheckpoint(_:keeping:)`.
    package func selection(keepingUsers keep: (String) -> Bool) -> CheckpointSelection {
        CheckpointSelection(self, keepingUsers: keep)
    }

    /// Loads a checkpoint, or throws when it is damaged, foreign, or from other zone data.
    package init(checkpoint bytes: [UInt8]) throws(CheckpointReader.Malformed) {
        var input = CheckpointReader(bytes)
        try self.init(checkpoint: &input)
    }

    /// Loads a checkpoint from `input` (its payload whole, or its chunks as they come), or
    /// throws when it is damaged, foreign, or from other zone data.
    package init(checkpoint input: inout CheckpointReader) throws(CheckpointReader.Malformed) {
        self.init()
        try input.expect("recount checkpoint v2")
        position = try input.integer()
        let zoneData = try input.string()
        guard zoneData == zones.dataVersion else { throw CheckpointReader.Malformed(otherZoneData: zoneData) }
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
            let span = SampleSpan(record)
            noteLatest(record, user: user)
            Self.forEachDay(of: record, zone: index.zone(of: record), zones: zones) { day in
                cells.insert(number, spanning: span, into: CellKey(user: user, metric: record.metric, day: day))
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
        guard try input.isAtEnd() else { throw CheckpointReader.Malformed() }
        placeCellsWithoutSamples()
    }

    /// Gives a place in `cells` to each cell the fold had made that has no live sample now:
    /// those with a dirty day, and those with a rollup built from no sample. (A rollup built
    /// from samples has them live, or, gone since, a dirty day.)
    private mutating func placeCellsWithoutSamples() {
        for (day, _) in dirty.days {
            cells.touch(CellKey(user: day.user, metric: day.metric, day: day.day))
        }
        for (key, stored) in rollups where stored.cell.count == 0 { cells.touch(key) }
    }

    /// Writes `part` as the checkpoint holds it (as the digest does): its count, then the
    /// entries `write` writes and counts.
    private func writeCounted(_ part: DigestPart, _ out: inout CanonicalBytes, _ write: (inout CanonicalBytes) -> Int) {
        var entries = CanonicalBytes()
        part.writeCount(write(&entries), &out)
        out.appendBytes(entries.bytes)
    }

    /// Writes the `config.sources` settings of the users in `kept` (all when `nil`) in key
    /// order; returns how many.
    func writePriorityEntries(of kept: Set<String>?, _ out: inout CanonicalBytes) -> Int {
        let sorted = priorities.filter { kept?.contains($0.key.user) ?? true }.sorted {
            ($0.key.user, $0.key.metric.rawValue) < ($1.key.user, $1.key.metric.rawValue)
        }
        for (key, setting) in sorted {
            out.append(key.user)
            out.append(key.metric.rawValue)
            Self.write(setting, &out)
        }
        return sorted.count
    }

    /// Writes the `config.ownOrigins` settings of the users in `kept` (all when `nil`) by user;
    /// returns how many.
    func writeOwnOriginEntries(of kept: Set<String>?, _ out: inout CanonicalBytes) -> Int {
        let sorted = ownOrigins.filter { kept?.contains($0.key) ?? true }.sorted { $0.key < $1.key }
        for (user, setting) in sorted {
            out.append(user)
            Self.write(setting, &out)
        }
        return sorted.count
    }

    private static func write(_ setting: Configured, _ out: inout CanonicalBytes) {
        out.append(setting.receivedAt)
        out.append(UInt32(setting.origins.count))
        for origin in setting.origins { out.append(origin) }
    }

    private static func readConfigured(_ input: inout CheckpointReader) throws(CheckpointReader.Malformed) -> Configured
    {
        let receivedAt: Int64 = try input.integer()
        var origins: [String] = []
        for _ in 0..<(try input.integer(UInt32.self)) { origins.append(try input.string()) }
        return Configured(origins: origins, receivedAt: receivedAt)
    }
}
