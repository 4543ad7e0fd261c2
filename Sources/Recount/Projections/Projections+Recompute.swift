extension Projections {
    /// A rollup as stored: the cell and its version, the log position of the last event that
    /// changed its inputs (it only grows).
    package struct StoredRollup: Equatable, Sendable {
        package var cell: RollupCell
        package var version: UInt64
    }

    /// Rebuilds every dirty (user, metric, day) cell from its live samples and empties the
    /// dirty set (contract §3.4). A cell's version is the highest position that dirtied it; a
    /// rollup is never replaced by one of a lower version.
    /// - Returns: how many cells were rebuilt.
    @discardableResult
    package mutating func recompute() -> Int { recompute(only: nil) }

    /// Rebuilds `cell` if it is dirty, as `recompute()` would, and drops every other dirty day
    /// without rebuilding it: for a scratch replay that reads one cell alone (`CellHistory`),
    /// where rebuilding all of them after each envelope made an audit take time in the number
    /// of the user's days times their `config.sources` changes (18 s for ten years and 2,000
    /// changes; an attack run, 2026-12-06).
    /// - Returns: how many cells were rebuilt (0 or 1).
    @discardableResult
    package mutating func recomputeDroppingOthers(_ cell: CellKey) -> Int { recompute(only: cell) }

    private mutating func recompute(only cell: CellKey?) -> Int {
        // Each cell at the highest position that dirtied it (over its providers' dirty days).
        var dirtied: [(cell: CellKey, version: UInt64)] = []
        for (day, position) in dirty.drain() {
            let key = CellKey(user: day.user, metric: day.metric, day: day.day)
            if cell == nil || cell == key { dirtied.append((key, position)) }
        }
        dirtied.sort { $0.cell == $1.cell ? $0.version > $1.version : $0.cell < $1.cell }
        // Counted, not listed: a list of each cell's rollup before and after, which no caller
        // read, took 200 bytes a cell (54 MB of fresh pages for the benchmark's 270,000 cells).
        var rebuilt = 0
        // Cells come by user and metric, and a user's cells mostly share their sources: the
        // ranking of the cell before is reused when it ranked the same sources.
        var ranked: (user: UInt32, metric: Metric, sources: [SourceID], priority: SourcePriority)?
        for (place, (key, version)) in dirtied.enumerated() where place == 0 || dirtied[place - 1].cell != key {
            guard version >= (rollups[key]?.version ?? 0) else { continue }
            let samples = inputs(of: key).map { index.liveSample(Int($0)) }
            var involved: [SourceID] = []
            // By index: iterating the samples would copy each (retaining its id and zone).
            for place in samples.indices where !involved.contains(samples[place].source) {
                involved.append(samples[place].source)
            }
            involved.sort()
            let priority: SourcePriority
            if let last = ranked, last.user == key.user, last.metric == key.metric, last.sources == involved {
                priority = last.priority
            } else {
                priority = self.priority(for: key, involved)
                ranked = (key.user, key.metric, involved, priority)
            }
            let new = StoredRollup(
                cell: Rollup.compute(
                    metric: key.metric, day: key.day, samples: samples, priority: priority,
                    zones: zones),
                version: version)
            store(new, at: key)
            feed.noteRebuilt(key, at: position)
            rebuilt += 1
        }
        return rebuilt
    }

    /// The live samples a cell's rollup is computed from: its own, and for a metric whose
    /// rollup merges overlapping sources, those of the two days either side that overlap one
    /// of them in time (a watch writing UTC and a phone writing local time put one hour on two
    /// dates; the merge counts each sample on its own days only, but lets every one of them
    /// decide who covers an instant). `insertLive` and `removeLive` dirty a day whenever these
    /// change.
    private func inputs(of key: CellKey) -> [UInt32] {
        guard key.metric.mergesOverlaps else { return cells.members(of: key) }
        let own = cells.contents(of: key)
        var numbers = own.members
        // The own samples' spans, read once a neighbour's span meets theirs.
        var ownSpans: [SampleSpan] = []
        for place in 0..<4 {
            let day = CivilDay(daysSinceEpoch: Self.neighbourDay(place, of: DayRange(key.day)))
            let neighbour = cells.contents(of: CellKey(user: key.user, metric: key.metric, day: day))
            guard neighbour.span.overlaps(own.span) else { continue }
            if ownSpans.isEmpty { ownSpans = own.members.map { SampleSpan(index.record(Int($0))) } }
            for number in neighbour.members {
                let span = SampleSpan(index.record(Int(number)))
                if ownSpans.contains(where: { $0.overlaps(span) }) { numbers.append(number) }
            }
        }
        guard numbers.count > own.members.count else { return numbers }
        // A sample on two days is a member of both.
        numbers.sort()
        var kept = 0
        for number in numbers where kept == 0 || numbers[kept - 1] != number {
            numbers[kept] = number
            kept += 1
        }
        numbers.removeLast(numbers.count - kept)
        return numbers
    }

    /// Stores a cell's rollup, widening its user's span of days for the metric.
    private mutating func store(_ stored: StoredRollup, at key: CellKey) {
        rollups[key] = stored
        widenRollupSpan(to: key)
    }

    /// Widens the span of days with a rollup of `key`'s user and metric to take in its day.
    private mutating func widenRollupSpan(to key: CellKey) {
        let user = UserMetric(user: key.user, metric: key.metric)
        let span = rollupSpans[user].map { min($0.lowerBound, key.day)...max($0.upperBound, key.day) }
        rollupSpans[user] = span ?? key.day...key.day
    }

    /// The ranking of `involved` for the cell's user and metric: the user's own
    /// `config.sources` list, else the `*` default, else none (the documented default rule).
    func priority(for key: CellKey, _ involved: [SourceID]) -> SourcePriority {
        let configured = configuredPriority(user: users[key.user], metric: key.metric)
        var sources: [SourceID: Source] = [:]
        for id in involved { sources[id] = self.sources[Int(id.rawValue)] }
        return SourcePriority(configured: configured, sources: sources)
    }

    /// The `config.sources` list that ranks `user`'s sources of `metric`: the user's own, else
    /// the `*` default; empty for neither (the documented default rule).
    func configuredPriority(user: String, metric: Metric) -> [String] {
        (priorities[PriorityKey(user: user, metric: metric)] ?? priorities[PriorityKey(user: "*", metric: metric)])?
            .origins ?? []
    }

    /// Writes the rollups of the users in `kept` (all when `nil`) in cell order into the
    /// digest's canonical bytes, cells named by their user's string; `flush` is handed the
    /// bytes whenever they pass 64 KiB. Returns how many.
    func writeRollups(of kept: Set<String>?, _ out: inout CanonicalBytes, flush: (inout CanonicalBytes) -> Void) -> Int
    {
        let keptUsers = users.strings.map { kept?.contains($0) ?? true }
        let ordered = rollups.lazy.filter { keptUsers[Int($0.key.user)] }.sorted { a, b in
            a.key.user == b.key.user ? a.key < b.key : users[a.key.user] < users[b.key.user]
        }
        var cellBytes: [UInt8] = []
        for (key, stored) in ordered {
            out.append(users[key.user])
            out.append(stored.version)
            cellBytes.removeAll(keepingCapacity: true)
            stored.cell.write(into: &cellBytes, naming: sources)
            out.append(UInt32(cellBytes.count))
            out.appendBytes(cellBytes)
            if out.bytes.count > 1 << 16 { flush(&out) }
        }
        return ordered.count
    }

    /// Writes the rollups (of `selection`'s users alone, renumbered, when given) in cell order.
    func writeRollupCheckpoint(_ out: inout CanonicalBytes, keeping selection: CheckpointSelection? = nil) {
        guard let selection else { return writeRollupCells(rollups.sortedByKey(), count: rollups.count, &out) }
        // Renumbered as they are written, one cell at a time.
        let kept = rollups.sortedByKey().lazy.filter { selection.users.contains($0.key.user) }.map { key, stored in
            var stored = stored
            stored.cell = selection.renumbered(stored.cell)
            return (key: CellKey(user: selection.users[key.user], metric: key.metric, day: key.day), value: stored)
        }
        writeRollupCells(kept, count: selection.rollups, &out)
    }

    private func writeRollupCells(
        _ cells: some Sequence<(key: CellKey, value: StoredRollup)>, count: Int, _ out: inout CanonicalBytes
    ) {
        out.append(UInt64(count))
        var cellBytes: [UInt8] = []
        for (key, stored) in cells {
            out.append(key.user)
            out.append(stored.version)
            cellBytes.removeAll(keepingCapacity: true)
            stored.cell.write(into: &cellBytes)
            out.append(UInt32(cellBytes.count))
            out.appendBytes(cellBytes)
        }
    }

    mutating func readRollupCheckpoint(_ input: inout CheckpointReader) throws(CheckpointReader.Malformed) {
        let count = try input.int()
        // The cells are placed in the table at once, after the last (`FlatTable.placeAppendedKeys`).
        rollups = FlatMap(unplacedCapacity: min(count, 1 << 24))
        for _ in 0..<count {
            let user: UInt32 = try input.integer()
            let version: UInt64 = try input.integer()
            let length = Int(try input.integer(UInt32.self))
            let cell = try RollupCell(reading: &input, length: length, sources: UInt32(sources.count))
            guard user < users.strings.count else { throw CheckpointReader.Malformed() }
            let key = CellKey(user: user, metric: cell.metric, day: cell.day)
            rollups.appendUnplaced(key, StoredRollup(cell: cell, version: version))
            widenRollupSpan(to: key)
        }
        // A cell twice is damage.
        guard rollups.placeAppendedKeys() else { throw CheckpointReader.Malformed() }
    }
}

extension RollupCell {
    /// The bytes `write(into:)` gives a cell's head (version, metric, day, count, presence, the
    /// three figures, the source count), and each of its sources (source, samples, four
    /// amounts, the suppressor's presence byte and number).
    private static let headBytes = 43
    private static let shareBytes = 49

    /// Reads what `write(into:)` wrote (`length` bytes), checking it. The length is checked
    /// against the source count once, and the fields read as one block: read one by one, each
    /// checked what was left, about 2,000 instructions a cell in an engine's opening.
    init(reading input: inout CheckpointReader, length: Int, sources: UInt32) throws(CheckpointReader.Malformed) {
        guard length >= Self.headBytes, (length - Self.headBytes) % Self.shareBytes == 0 else {
            throw CheckpointReader.Malformed()
        }
        self = try input.block(count: length) { block throws(CheckpointReader.Malformed) in
            guard block.take(UInt8.self) == RollupCell.layoutVersion, let metric = Metric(rawValue: block.take()) else {
                throw CheckpointReader.Malformed()
            }
            let day = CivilDay(daysSinceEpoch: Int32(bitPattern: block.take(UInt32.self)))
            guard let count = Int(exactly: block.take(UInt64.self)) else { throw CheckpointReader.Malformed() }
            let presence: UInt8 = block.take()
            func field(_ bit: UInt8) -> Double? {
                let value = Double(bitPattern: block.take())
                return presence & bit != 0 ? value : nil
            }
            let (value, minimum, maximum) = (field(1), field(2), field(4))
            let shareCount = Int(block.take(UInt32.self))
            guard shareCount == (length - Self.headBytes) / Self.shareBytes else { throw CheckpointReader.Malformed() }
            // One allocation per cell (none for cells without sources), not one per doubling.
            var shares: [SourceShare] = []
            shares.reserveCapacity(shareCount)
            for _ in 0..<shareCount {
                let source: UInt32 = block.take()
                guard let samples = Int(exactly: block.take(UInt64.self)) else { throw CheckpointReader.Malformed() }
                let counted = Double(bitPattern: block.take())
                let countedMillis = Int64(bitPattern: block.take())
                let suppressed = Double(bitPattern: block.take())
                let suppressedMillis = Int64(bitPattern: block.take())
                let hasSuppressor: UInt8 = block.take()
                let suppressor: UInt32 = block.take()
                guard source < sources, hasSuppressor <= 1, hasSuppressor == 0 || suppressor < sources else {
                    throw CheckpointReader.Malformed()
                }
                shares.append(
                    SourceShare(
                        source: SourceID(source), samples: samples, counted: counted, countedMillis: countedMillis,
                        suppressed: suppressed, suppressedMillis: suppressedMillis,
                        suppressedBy: hasSuppressor == 1 ? SourceID(suppressor) : nil))
            }
            return RollupCell(
                metric: metric, day: day, count: count, value: value, minimum: minimum, maximum: maximum,
                sources: shares)
        }
    }
}
