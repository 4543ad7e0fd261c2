import Foundation
import RecountLog

/// The engine's projections as ranges of users in string order, each checkpointed in its own
/// file, so that an engine holds about `limit` ids and rollups (`Projections.rangeSize`) in
/// memory at most, whatever the history's size (`docs/projections.md`, "Ranges of users").
///
/// A user's projections depend only on the user's envelopes and the `*` config defaults, so a
/// range folds its users' records and every `*` record, and an answer about every user joins
/// the ranges' answers in range order. A range is held (its projections in memory, folded
/// through the last record the engine routed, `through`) or stored (its checkpoint). An
/// ingested envelope is folded at once into its user's range when that range is held, or can
/// be held within the limit; otherwise it waits in the log, and `catchUp` folds what waits a
/// group of ranges at a time, one read of the log's tail per group. Past the limit the least
/// recently used ranges are stored and dropped; a range grown past a quarter of the limit is
/// split at its users, each part's checkpoint written from its projections in memory.
struct ProjectionRanges {
    struct Range {
        /// The least user name it holds (`""` for the first range, which also holds `*`).
        var lowerBound: String
        /// Its checkpoint's file name in the projections' directory.
        var file: String
        /// Its projections, when held.
        var held: Projections?
        /// Every record bearing on the range up to this position is folded into its checkpoint
        /// (unless `waiting`, which marks records after it that may bear on it).
        var position: UInt64
        /// Whether records after `position` may bear on it (it is behind the log).
        var waiting: Bool
        /// Its ids, rollups and check-ins (`rangeSize`) when last held: what holding it costs.
        var size: Int
        /// Records and samples routed to it while it waited: about what folding them adds to
        /// `size`.
        var pending = 0
        /// Its dirty days when last held.
        var dirtyDays: Int
        /// The dirty days its checkpoint holds: what the manifest says, for an engine that
        /// opens the checkpoint without this one's unsaved work (a range recomputed in memory
        /// and not stored has fewer, which the manifest said once another range's store
        /// rewrote it; the next engine then took the checkpoint's days for recomputed).
        var storedDirtyDays = 0
        /// Its checkpoint file's checksum as last stored (0: none known).
        var checksum: UInt64 = 0
        /// Whether it has no checkpoint of its own to read: rebuilt from the log since the engine
        /// opened (its file missing, damaged or another log's, or a cut's new part), and not
        /// stored since.
        var fresh = false
        /// Work (records, samples, days recomputed) folded into it since its checkpoint.
        var unsaved = 0
        /// The position through which what its records changed was reported (a range dropped
        /// with its work unsaved folds those records again, and must not report them twice).
        var reported: UInt64 = 0
        /// Where its dirty days were last recomputed since its checkpoint (0: not since): a
        /// range dropped with unsaved work is rebuilt by folding its records again, and
        /// recomputing there, so that it holds exactly what it held.
        var recomputedAt: UInt64 = 0
        /// When it was last used (a counter): the least recently used is dropped first.
        var lastUse = 0

        /// Ids and rollups it holds now, or held when it was stored.
        var currentSize: Int { held?.rangeSize ?? size }
        /// What holding it would cost: its size, and what the records that wait for it add.
        var projectedSize: Int { size + pending }
    }

    /// The ranges, by lower bound.
    private(set) var ranges: [Range]
    /// Their lower bounds (kept apart: an observer on `ranges` ran at every change of a range).
    private var bounds: [String] = []
    /// The position of the last log record routed to the ranges (0: none).
    private(set) var through: UInt64 = 0
    private let directory: DataDirectory
    /// The most ids and rollups (`rangeSize`) held at once (one range alone may hold more).
    let limit: Int
    /// The log, which a stored checkpoint must not be ahead of; `nil` for an engine opened
    /// read-only, which stores nothing.
    private let log: Log?
    /// The log as a read-only engine opened it: it reads through this snapshot only, so that a
    /// checkpoint the writer stored since (ahead of it) is not read, and the range is folded
    /// from the snapshot instead.
    private var snapshot: LogReader?
    /// Why the last checkpoint (or manifest) that could not be stored could not, while a range
    /// whose store failed is still not stored: a later range's store does not make the
    /// warning stale.
    private(set) var storeFailure: (any Error)?
    /// The files of the ranges whose last store failed.
    private var unstoredFiles: Set<String> = []
    private var uses = 0
    /// How many times a range was held from its checkpoint or the log (it was not held).
    private(set) var rangesLoaded = 0
    /// Whether a dropped range is stored whatever its unsaved work (`storeEverything`).
    private var storesEveryDrop = false
    /// The number of the next new range's file (`range-N`).
    private var nextFile: Int
    /// The manifest's fingerprint of the log record at each range's position, until `open`
    /// compares them with the log's.
    private var records: [UInt64] = []

    /// The ranges the data directory's manifest lists, none held.
    /// - Parameters:
    ///   - limit: the most ids and rollups (`rangeSize`) to hold at once.
    ///   - log: the writer of the log, or `nil` for a read-only engine.
    init(directory: DataDirectory, limit: Int, log: Log?) {
        self.directory = directory
        self.limit = max(1, limit)
        self.log = log
        let manifest = RangeManifest(path: directory.ranges)
        if manifest.isDamaged || (manifest == .unsplit && Self.holdsRangeFiles(directory)) {
            // Its ranges' checkpoints are read as none: every range is folded from the log (it
            // said nothing; an attack run, 2026-12-06).
            unusableManifest = UnusableCheckpoint(
                path: directory.ranges, reason: manifest.isDamaged ? "damaged" : "missing")
        }
        ranges = manifest.entries.map { entry in
            Range(
                lowerBound: entry.lowerBound, file: entry.file, held: nil, position: entry.position, waiting: false,
                size: entry.size, dirtyDays: entry.dirtyDays, storedDirtyDays: entry.dirtyDays,
                checksum: entry.checksum)
        }
        records = manifest.entries.map(\.record)
        bounds = ranges.map(\.lowerBound)
        nextFile = 1 + (ranges.compactMap { Self.fileNumber($0.file) }.max() ?? 0)
        if log != nil { removeUnlisted() }
    }

    /// One range holding `projections`, folded from `snapshot` (a read-only engine of one
    /// user's records), never stored nor dropped.
    init(holding projections: Projections, foldedFrom snapshot: LogReader, directory: DataDirectory) {
        self.directory = directory
        limit = .max
        log = nil
        self.snapshot = snapshot
        nextFile = 1
        through = projections.position
        ranges = [
            Range(
                lowerBound: "", file: "", held: projections, position: projections.position, waiting: false,
                size: projections.rangeSize, dirtyDays: projections.dirty.count)
        ]
        bounds = [""]
    }

    /// The ranges no more than a quarter of the limit may hold before they split.
    private var splitSize: Int { max(1, limit / 4) }

    /// The ids, rollups and check-ins (`rangeSize`) of the held ranges.
    var heldSize: Int { ranges.indices.reduce(0) { $0 + (ranges[$1].held?.rangeSize ?? 0) } }

    /// The work folded since the ranges' checkpoints.
    var unsavedWork: Int { ranges.reduce(0) { $0 + $1.unsaved } }

    /// The ids of every range (held or as last held).
    var totalSize: Int { ranges.reduce(0) { $0 + $1.currentSize } }

    // MARK: Opening and catching up

    /// The ranges' manifest, when it was damaged, or missing beside range checkpoints.
    private var unusableManifest: UnusableCheckpoint?
    /// The checkpoints found unusable since `open` (their ranges are folded from the log).
    private(set) var unusableCheckpoints: [UnusableCheckpoint] = []

    /// Marks as waiting every range the log holds records after the manifest's word for, or
    /// whose word or checkpoint is not this log's, or whose checkpoint is damaged (rebuilt from
    /// the log), and folds what waits (`catchUp`).
    mutating func open(_ reader: LogReader, progress: ((ReplayProgress) -> Void)?) throws -> ProjectionReplay.Summary {
        unusableCheckpoints = unusableManifest.map { [$0] } ?? []
        if log == nil { snapshot = reader }
        through = Self.lastPosition(of: reader)
        // The log as it is now, read once for every checkpoint a read-only engine's snapshot
        // is behind (every range's, when the log was put back from before them).
        lazy var logNow = log == nil ? try? LogReader(directory: directory.log) : nil
        for index in ranges.indices {
            ranges[index].reported = through
            let position = ranges[index].position
            // A word about another log's records (or ones a repair cut) says nothing.
            let found = position <= through ? try CheckpointFile.fingerprint(of: reader, at: position) : nil
            if found != records[index] { ranges[index].position = 0 }
            switch CheckpointFile(path: path(of: ranges[index].file)).check(folding: reader, of: users(of: index)) {
            case .success(let file):
                // A checkpoint behind its word (an older copy of the file put back) covers less:
                // trusted, the word skipped the records between (their data silently missing).
                ranges[index].position = min(ranges[index].position, file.position)
                ranges[index].waiting = ranges[index].position != through
                // Another file than the one stored (an older copy put back), or one whose
                // checksum no manifest listed (one written before them), is loaded now, and its
                // checksum taken once it loads (`load`). A file written for other users (another
                // range's put back under this name, or one of a finer split) is refused by its
                // header, below: found only when a query loaded it, a writer with nothing to
                // fold never stored the range again, and a manifest stored before the range
                // loaded listed the checksum of a file not its own, which every reader after
                // refused for good (attack runs, 2026-12-06 and 2026-12-07).
                if ranges[index].checksum != file.checksum { ranges[index].waiting = true }
            case .failure(.missing) where ranges[index].position == 0:
                ranges[index].waiting = through > 0
                ranges[index].fresh = true
            case .failure(let reason):
                // Ahead of a read-only engine's snapshot, but a fold of the log as it is now: a
                // writer stored it since the snapshot was taken, and it is not another log's (a
                // reader beside a writer said so of a healthy file; an attack run, 2026-12-07).
                if reason != .otherLog || !isFold(index, of: logNow) {
                    unusableCheckpoints.append(UnusableCheckpoint(path: path(of: ranges[index].file), unusable: reason))
                }
                ranges[index].waiting = true
                ranges[index].fresh = true
                ranges[index].position = 0
            }
        }
        try cutRebuilds(reader)
        return try catchUp(reader, recompute: false, progress: progress).summary
    }

    /// Whether range `index`'s checkpoint is a fold of `reader`'s log (`false` without one).
    private func isFold(_ index: Int, of reader: LogReader?) -> Bool {
        guard let reader,
            case .success = CheckpointFile(path: path(of: ranges[index].file)).check(
                folding: reader, of: users(of: index))
        else { return false }
        return true
    }

    /// The bytes of log records taken to make one id or rollup when a range is cut before it
    /// is rebuilt from nothing: 64, under the benchmark log's 83, so that the cut ranges come
    /// out under the split size.
    private static let recordBytesPerEntry = 64
    /// The record bytes a user weighs beyond its records': its own weight and a channel's, as
    /// `rangeSize` counts them (many users of few samples each are mostly that).
    private static let userBytes = (Projections.entriesPerUser + Projections.entriesPerChannel) * recordBytesPerEntry

    /// Cuts every range to be rebuilt from nothing (no usable checkpoint) whose users' records
    /// weigh more than the split size into ranges that do not, at its users by their record
    /// bytes (one read of the log's headers), so that rebuilding a lost or damaged store from
    /// the log holds no more than the limit at a time.
    private mutating func cutRebuilds(_ reader: LogReader) throws {
        let rebuilt = ranges.indices.filter { ranges[$0].waiting && ranges[$0].fresh }
        let (product, overflow) = splitSize.multipliedReportingOverflow(by: Self.recordBytesPerEntry)
        let most = overflow ? Int.max : product
        guard !rebuilt.isEmpty, try reader.stats().rawBytes > UInt64(most) else { return }
        let weights = try ProjectionReplay.weighUsers(reader, until: .max).filter { $0.key != "*" }.sorted {
            $0.key < $1.key
        }
        for index in rebuilt.reversed() {
            let upper = index + 1 < ranges.count ? ranges[index + 1].lowerBound : nil
            var parts: [(lowerBound: String, bytes: Int)] = [(ranges[index].lowerBound, 0)]
            for (user, weight) in weights
            where user >= ranges[index].lowerBound && upper.map({ user < $0 }) ?? true {
                let bytes = weight.bytes + Self.userBytes
                if parts[parts.count - 1].bytes > 0 && parts[parts.count - 1].bytes + bytes > most {
                    parts.append((user, 0))
                }
                parts[parts.count - 1].bytes += bytes
            }
            guard parts.count > 1 else { continue }
            var cut: [Range] = []
            for part in parts {
                // A read-only engine's parts have no file: a name of its own could be one the
                // writer has given another range since the manifest it read.
                cut.append(
                    Range(
                        lowerBound: part.lowerBound, file: log == nil ? "" : newFile(), held: nil, position: 0,
                        waiting: true,
                        size: part.bytes / Self.recordBytesPerEntry, dirtyDays: 0, fresh: true))
            }
            ranges.replaceSubrange(index...index, with: cut)
        }
        bounds = ranges.map(\.lowerBound)
    }

    /// The position of the last record `reader` holds (0: none).
    static func lastPosition(of reader: LogReader) -> UInt64 {
        // Not `endPosition - 1`: a repair leaves positions that hold no record.
        reader.snapshot.segments.last { $0.endPosition > $0.firstPosition }.map { $0.endPosition - 1 } ?? 0
    }

    /// Folds the records after `through` that `reader` holds (routed to no range yet: an ingest
    /// that failed part way) and those waiting for stored ranges into their ranges, a group
    /// within the limit at a time, recomputing each range's dirty days when `recompute`.
    /// - Parameter unreported: whether to fold only the ranges whose waiting records were not
    ///   reported (routed to them while they waited: an ingest's end). A range dropped with
    ///   its work unsaved waits for records it reported already; it is folded when next held.
    ///   Folded at each ingest's end, every such range was loaded again: one envelope per call
    ///   into a store of ranges took 276 ms a call (`ProjectionBenchmark`, `engine.bounded`).
    /// - Returns: what was folded, and the days recomputed.
    mutating func catchUp(
        _ reader: LogReader, recompute: Bool, unreported: Bool = false, progress: ((ReplayProgress) -> Void)? = nil
    ) throws -> (summary: ProjectionReplay.Summary, recomputed: Int) {
        let end = Self.lastPosition(of: reader)
        var everyRange = !unreported
        if end > through {
            for index in ranges.indices { ranges[index].waiting = true }
            through = end
            everyRange = true
        }
        var total = ProjectionReplay.Summary()
        var recomputed = 0
        // The waiting ranges, in groups that fit the limit together (a range over it alone).
        let waiting = ranges.indices.filter { ranges[$0].waiting && (everyRange || ranges[$0].pending > 0) }.map {
            index in
            (item: index, weight: ranges[index].held == nil ? ranges[index].projectedSize : 0)
        }
        for group in ProjectionReplay.packed(waiting, holding: limit) {
            let (summary, days) = try rebuild(
                group, reader: reader, recompute: recompute, progress: total.reporting(after: progress))
            total += summary
            recomputed += days
        }
        if recompute { recomputed += recomputeHeld() }
        return (total, recomputed)
    }

    /// Holds the ranges of `group` (their checkpoints, or nothing for fresh ones) and folds
    /// every record after their positions up to `through` that bears on them, in one read of
    /// the log; recomputes them when `recompute`.
    private mutating func rebuild(
        _ group: [Int], reader: LogReader, recompute: Bool, progress: ((ReplayProgress) -> Void)? = nil
    ) throws -> (summary: ProjectionReplay.Summary, recomputed: Int) {
        try makeRoom(for: group)
        // Where a range dropped with unsaved work had recomputed (0: none to redo; `through`,
        // after its fold, for one whose checkpoint was lost: below).
        var recomputeAt = group.map { ranges[$0].held == nil ? ranges[$0].recomputedAt : 0 }
        rangesLoaded += group.count { ranges[$0].held == nil }
        // Taken out of the ranges while they fold, so the fold's closures touch no `self`.
        var states = group.enumerated().map { slot, index in
            if let held = ranges[index].held.take() { return held }
            let (loaded, found) = load(index, reader: reader)
            // A range whose checkpoint went missing or moved ahead of the log since it was read
            // (a writer beside a read-only engine stored it again) is folded from the log
            // instead, its every day dirty, and recomputed after it, so that it comes back
            // recomputed as it was; left dirty, `verify` mismatched and `changes` missed its cells.
            if !found, !ranges[index].fresh, !ranges[index].file.isEmpty {
                recomputeAt[slot] = through
                ranges[index].recomputedAt = through
            }
            return loaded
        }
        let router = UserRouter(bounds)
        let start = states.map(\.position).min() ?? through
        var targets: [Int] = []
        let reported = group.map { ranges[$0].reported }
        // Days recomputed again where a dropped range had: work its checkpoint lacks.
        var redone = group.map { _ in 0 }
        let summary = try ProjectionReplay.fold(
            reader, from: start + 1, until: through + 1,
            picking: { position, bytes in
                targets.removeAll(keepingCapacity: true)
                let index = router.index(ofRecord: bytes)
                for (slot, member) in group.enumerated()
                where (index == nil || index == member) && position > states[slot].position {
                    targets.append(slot)
                }
                return !targets.isEmpty
            }, progress: progress
        ) { envelope, samples, position in
            var effect = Projections.Effect()
            for slot in targets {
                if recomputeAt[slot] != 0 && position > recomputeAt[slot] {
                    redone[slot] += states[slot].recompute()
                    recomputeAt[slot] = 0
                }
                let changed = states[slot].apply(envelope, samples: samples, at: position)
                if position > reported[slot] { effect += changed }
            }
            return effect
        }
        var recomputed = 0
        for (slot, index) in group.enumerated() {
            if recomputeAt[slot] != 0 { redone[slot] += states[slot].recompute() }
            states[slot].advance(through: through)
            let days = recompute ? states[slot].recompute() : 0
            if days > 0 { ranges[index].recomputedAt = through }
            recomputed += days
            states[slot].keepFeedReadings()
            ranges[index].held = states[slot]
            ranges[index].waiting = false
            ranges[index].pending = 0
            ranges[index].reported = through
            ranges[index].unsaved += redone[slot] + days
            use(index)
        }
        // Every group member counts the work, so that each is stored before it is dropped.
        for index in group where summary.records > 0 { ranges[index].unsaved += summary.records + summary.samples }
        return (summary, recomputed)
    }

    /// Range `index`'s stored projections, advanced through the position its word says no
    /// later record bears on them before, and `found`; or empty ones, when the range is fresh,
    /// has no file (a read-only engine's cut), or its checkpoint is missing, ahead of the log,
    /// another log's, damaged, another version's, of other tz data or another range's (the fold
    /// from position 0 rebuilds it; the last four are named in `unusableCheckpoints`).
    private mutating func load(_ index: Int, reader: LogReader) -> (projections: Projections, found: Bool) {
        guard !ranges[index].fresh, !ranges[index].file.isEmpty else { return (Projections(), false) }
        let file = path(of: ranges[index].file)
        func unusable(_ checkpoint: UnusableCheckpoint) -> (projections: Projections, found: Bool) {
            if !unusableCheckpoints.contains(checkpoint) { unusableCheckpoints.append(checkpoint) }
            return (Projections(), false)
        }
        var loaded: Projections
        // Another range's file (a backup restored file by file under the wrong name) is whole
        // and this log's, but answered for the wrong users until `verify` mismatched; a file
        // of a finer split (an older manifest put back over newer files) holds only some of
        // the range's users, and the others vanished for good (an attack run, 2026-12-07).
        switch CheckpointFile(path: file).load(folding: reader, of: users(of: index)) {
        case .success(let file):
            loaded = file.projections
            // Known good only now: the manifests stored before list the checksum they read.
            ranges[index].checksum = file.checksum
        // Missing, or ahead of the log: a writer beside a read-only engine stored it again.
        case .failure(.missing), .failure(.otherLog): return (Projections(), false)
        case .failure(let reason): return unusable(UnusableCheckpoint(path: file, unusable: reason))
        }
        loaded.advance(through: ranges[index].position)
        // The manifest's word for the dirty days may not be this file's: a crash between a
        // range's store and the manifest's left a word of none (a range never stored, or one
        // stored recomputed), and the next manifest wrote it again for the file's position,
        // so engines after it never recomputed the range's days (an attack run, 2026-12-06).
        ranges[index].storedDirtyDays = loaded.dirty.count
        return (loaded, true)
    }

    /// Stores and drops the least recently used held ranges outside `group` until holding
    /// `group` keeps within the limit.
    private mutating func makeRoom(for group: [Int]) throws {
        let needed = group.reduce(0) { $0 + (ranges[$1].held == nil ? ranges[$1].projectedSize : 0) }
        try dropLeastRecentlyUsed(sparing: group, needing: needed)
    }

    /// Stores and drops the least recently used held ranges, but those of `sparing`, until the
    /// held ones and `needed` more keep within the limit (or none is left to drop).
    private mutating func dropLeastRecentlyUsed(sparing: [Int], needing needed: Int) throws {
        while heldSize + needed > limit,
            let victim = ranges.indices.filter({ ranges[$0].held != nil && !sparing.contains($0) }).min(by: {
                ranges[$0].lastUse < ranges[$1].lastUse
            })
        {
            try drop(victim)
        }
    }

    private mutating func use(_ index: Int) {
        uses += 1
        ranges[index].lastUse = uses
    }

    // MARK: Folding an ingest

    /// Folds a logged envelope (its position after every one routed before) into its user's
    /// range, or every range's for a `*` default, where held or where holding it keeps within
    /// the limit; elsewhere it waits in the log for `catchUp`.
    mutating func apply(_ envelope: Envelope, samples: SampleBlock?, at position: UInt64) throws
        -> Projections.Effect
    {
        defer { through = position }
        let work = 1 + (samples?.entries.count ?? envelope.samples.count)
        var effect = Projections.Effect()
        // Optional chaining folds into a held range in place (and only tests one that is not,
        // where reading `held` copied every field of the projections).
        func fold(into index: Int) -> Bool {
            guard let changed = ranges[index].held?.apply(envelope, samples: samples, at: position) else {
                return false
            }
            effect += changed
            ranges[index].unsaved += work
            use(index)
            return true
        }
        guard envelope.user != "*" else {
            for index in ranges.indices where !fold(into: index) {
                ranges[index].waiting = true
                ranges[index].pending += work
            }
            return effect
        }
        let index = UserRouter.index(of: envelope.user, in: bounds)
        if fold(into: index) { return effect }
        guard heldSize + ranges[index].projectedSize <= limit || heldSize == 0 else {
            ranges[index].waiting = true
            ranges[index].pending += work
            return effect
        }
        // What the records that waited for the range changed counts too.
        effect += try rebuild([index], reader: reader(), recompute: false).summary.effect
        _ = fold(into: index)
        return effect
    }

    /// After a batch of `apply`: splits the ranges grown past a quarter of the limit, and
    /// stores and drops the least recently used until the held ranges keep within the limit.
    /// A store of one range splits only once it passes the limit: a split writes its range's
    /// parts and loads each when next used, which a store that fits in memory need never pay.
    /// A range splits with its dirty days, recomputed or not.
    ///
    /// A range that waits grows with every record routed to it. One that would pass half the
    /// limit is caught up first, and so split: caught up only at the ingest's end, a range grew
    /// to several times the limit.
    /// - Returns: the days recomputed, and what the records that waited for the ranges caught
    ///   up changed.
    mutating func fit(recompute: Bool) throws -> (recomputed: Int, effect: Projections.Effect) {
        var recomputed = 0
        var effect = Projections.Effect()
        if log != nil, ranges.count > 1 {
            for index in ranges.indices
            where ranges[index].held == nil && ranges[index].waiting && ranges[index].projectedSize > limit / 2 {
                let caughtUp = try rebuild([index], reader: reader(), recompute: recompute)
                recomputed += caughtUp.recomputed
                effect += caughtUp.summary.effect
            }
        }
        var index = 0
        while index < ranges.count {
            if log != nil, ranges.count > 1 || heldSize > limit, !ranges[index].waiting,
                ranges[index].held?.rangeSize ?? 0 > splitSize, ranges[index].held?.namedUsers ?? 0 >= 2,
                try split(index)
            {
                continue
            }
            index += 1
        }
        try dropToLimit()
        return (recomputed, effect)
    }

    /// Stores and drops the least recently used held ranges until the held ones keep within
    /// the limit (or one is left: the most recently used).
    private mutating func dropToLimit() throws {
        let newest = ranges.indices.filter { ranges[$0].held != nil }.max { ranges[$0].lastUse < ranges[$1].lastUse }
        try dropLeastRecentlyUsed(sparing: newest.map { [$0] } ?? [], needing: 0)
        settle()
    }

    /// Splits held range `index` at its users into parts of about half the split size each,
    /// by ids and check-ins (two at least). Each part's checkpoint is written from the range's
    /// projections in memory (its dirty days and unsaved work with it); the manifest then lists
    /// the parts in its place, and its file goes. No part is held: the next use loads it. Returns
    /// `false`, the range left whole and held, when a part could not be written
    /// (`storeFailure` says why).
    private mutating func split(_ index: Int) throws -> Bool {
        guard let log, ranges[index].held != nil else { return false }
        let upper = users(of: index).upper
        ranges[index].held!.advance(through: through)
        let held = ranges[index].held!
        let kept = held.syncFactsByUser()
        var weighed: [(user: String, ids: Int)] = []
        for (number, user) in held.users.strings.enumerated() where user != "*" {
            let entries =
                held.index.idCount(ofUser: UInt32(number))
                + Projections.weight(
                    channels: kept.channels[number], checkins: kept.checkins[number], listed: kept.listed[number])
            weighed.append((user, Projections.entriesPerUser + entries))
        }
        weighed.sort { $0.user < $1.user }
        let cuts = Self.cuts(weighed, parts: max(2, held.rangeSize / max(1, splitSize / 2)))
        // The checkpoints must not be ahead of the durable log.
        try log.sync()
        let reader = log.reader()
        let record = try CheckpointFile.fingerprint(of: reader, at: held.position) ?? 0
        let old = ranges[index]
        var written: [Range] = []
        for part in 0...cuts.count {
            let users = UserBounds(
                from: part == 0 ? old.lowerBound : cuts[part - 1], to: part == cuts.count ? upper : cuts[part])
            // `*`'s defaults bear on every user: each range holds them.
            let selection = held.selection { $0 == "*" || users.contains($0) }
            var range = Range(
                lowerBound: users.lower, file: newFile(), held: nil, position: held.position,
                waiting: false, size: selection.size, dirtyDays: selection.dirtyDays,
                storedDirtyDays: selection.dirtyDays)
            range.reported = through
            do {
                range.checksum = try CheckpointFile(path: path(of: range.file)).save(
                    held, of: users, keeping: selection, record: record)
            } catch {
                storeFailure = error
                unstoredFiles.insert(old.file)
                for range in written { try? PosixFileSystem().remove(path(of: range.file)) }
                return false
            }
            written.append(range)
        }
        ranges.replaceSubrange(index...index, with: written)
        bounds = ranges.map(\.lowerBound)
        unstoredFiles.remove(old.file)
        // The old file goes once no manifest lists it (else the next writer removes it).
        if try saveManifest(reader), old.file != "", FileManager.default.fileExists(atPath: path(of: old.file)) {
            try? PosixFileSystem().remove(path(of: old.file))
        }
        return true
    }

    /// Where to cut `weighed` (two users at least, in order, with their ids) into about
    /// `parts` parts of equal ids: the first user of each part after the first. Each part
    /// starts at the user where the ids before it reach its share; one cut at least, before
    /// the last user when the ids before it never reach the first share.
    static func cuts(_ weighed: [(user: String, ids: Int)], parts: Int) -> [String] {
        let total = weighed.reduce(0) { $0 + $1.ids }
        var cuts: [String] = []
        var before = 0
        for (place, (user, ids)) in weighed.enumerated() {
            if place > 0, before * parts >= total * (cuts.count + 1) { cuts.append(user) }
            before += ids
        }
        return cuts.isEmpty ? [weighed[weighed.count - 1].user] : cuts
    }

    /// The users range `index` holds: from its lower bound to the next range's.
    private func users(of index: Int) -> UserBounds {
        UserBounds(from: ranges[index].lowerBound, to: index + 1 < ranges.count ? ranges[index + 1].lowerBound : nil)
    }

    private mutating func newFile() -> String {
        defer { nextFile += 1 }
        return "range-\(nextFile)"
    }

    /// Whether the projections' directory holds a range's checkpoint (`range-N`).
    private static func holdsRangeFiles(_ directory: DataDirectory) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.projections)) ?? []
        return names.contains { fileNumber($0) != nil }
    }

    private static func fileNumber(_ file: String) -> Int? {
        file.hasPrefix("range-") ? Int(file.dropFirst(6)) : nil
    }

    /// Advances every held range through `through`, and the word for every range nothing
    /// waits for and nothing is unsaved in.
    private mutating func settle() {
        let through = through
        // Each range in place (`inout` through the array's accessor): read as `ranges[index]`,
        // each was copied, retaining its strings and every array its projections hold, for
        // every range each time any range was used, which made a store of thousands of ranges
        // take time in their square (`stats` on 3,164 ranges: 6 s; an attack run, 2026-12-06).
        for index in ranges.indices { Self.settle(&ranges[index], through: through) }
    }

    /// `settle` of one range.
    private static func settle(_ range: inout Range, through: UInt64) {
        range.held?.advance(through: through)
        measure(&range)
        if !range.waiting {
            range.reported = through
            if range.unsaved == 0 { range.position = through }
        }
    }

    /// Notes a held range's size and dirty days, for when it is no longer held.
    private static func measure(_ range: inout Range) {
        guard let size = range.held?.rangeSize, let dirtyDays = range.held?.dirty.count else { return }
        range.size = size
        range.dirtyDays = dirtyDays
    }

    // MARK: Storing

    /// Drops a held range, storing its checkpoint first when its unsaved work is worth it:
    /// a sixteenth of what it holds, or when the log's records since the checkpoint pass what
    /// it holds (or 100,000). Otherwise its records wait in the log, to be folded again when
    /// it is next held: folding a few envelopes again costs less than rewriting a large range.
    private mutating func drop(_ index: Int) throws {
        let range = ranges[index]
        if range.unsaved > 0,
            storesEveryDrop || range.unsaved * 16 >= range.currentSize
                || through - range.position > UInt64(max(range.currentSize, 100_000))
        {
            try store([index])
        }
        Self.measure(&ranges[index])
        if ranges[index].unsaved > 0 {
            // Not stored (or it failed: `storeFailure` says why): its checkpoint lacks what was
            // folded, so it waits for the log again. What the records folded so far changed
            // was reported: dropped in the middle of a batch, before `settle` notes it, the
            // range reported them a second time when folded again.
            if !ranges[index].waiting { ranges[index].reported = through }
            ranges[index].waiting = true
            ranges[index].unsaved = 0
        }
        ranges[index].held = nil
    }

    /// Stores the checkpoints of every held range with unsaved work, and the manifest.
    mutating func storeAll() throws {
        try store(ranges.indices.filter { ranges[$0].held != nil && ranges[$0].unsaved > 0 })
    }

    /// Folds what waits for every range and stores every checkpoint that lacks work, so that
    /// the next engine folds nothing (an engine's `close`).
    mutating func storeEverything() throws {
        storesEveryDrop = true
        defer { storesEveryDrop = false }
        _ = try catchUp(reader(), recompute: false)
        try storeAll()
    }

    /// Syncs the log, then stores the checkpoints of the held ranges `indices` (each folded
    /// through `through`) and the manifest. A log that cannot be synced throws; a checkpoint
    /// that cannot be written is kept in `storeFailure` (the log holds everything it lacks).
    private mutating func store(_ indices: [Int]) throws {
        guard let log else { return }
        try log.sync()
        let reader = log.reader()
        let through = through
        for index in indices {
            guard ranges[index].held != nil else { continue }
            ranges[index].held!.advance(through: through)
            let held = ranges[index].held!
            do {
                let record = try CheckpointFile.fingerprint(of: reader, at: held.position) ?? 0
                ranges[index].checksum = try CheckpointFile(path: path(of: ranges[index].file)).save(
                    held, of: users(of: index), record: record)
                ranges[index].unsaved = 0
                ranges[index].recomputedAt = 0
                ranges[index].fresh = false
                ranges[index].position = held.position
                ranges[index].storedDirtyDays = held.dirty.count
                unstoredFiles.remove(ranges[index].file)
                if unstoredFiles.isEmpty { storeFailure = nil }
            } catch {
                storeFailure = error
                unstoredFiles.insert(ranges[index].file)
            }
        }
        settle()
        try saveManifest(reader)
    }

    /// Saves the manifest of the ranges as they are (`reader` finds the log records at their
    /// positions); returns whether it did (why not is kept in `storeFailure`).
    @discardableResult
    private mutating func saveManifest(_ reader: LogReader) throws -> Bool {
        var fingerprints: [UInt64: UInt64] = [:]
        for position in Set(ranges.map(\.position)) {
            fingerprints[position] = try CheckpointFile.fingerprint(of: reader, at: position)
        }
        do {
            try RangeManifest(
                entries: ranges.map { range in
                    RangeManifest.Entry(
                        lowerBound: range.lowerBound, file: range.file,
                        position: range.position, record: fingerprints[range.position] ?? 0,
                        size: range.currentSize, dirtyDays: range.storedDirtyDays, checksum: range.checksum)
                }
            ).save(to: directory.ranges)
            return true
        } catch {
            storeFailure = error
            return false
        }
    }

    /// Removes every range's checkpoint and the manifest (after a repair cut records they may
    /// hold): the next engine rebuilds them from the log. The manifest goes last, so an
    /// interrupted removal leaves no manifest that lists a removed file with a position.
    static func remove(in directory: DataDirectory) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.projections)) ?? []
        for name in names where name == "checkpoint" || fileNumber(name) != nil {
            try CheckpointFile(path: directory.projections + "/" + name).remove()
        }
        if FileManager.default.fileExists(atPath: directory.ranges) { try PosixFileSystem().remove(directory.ranges) }
    }

    /// Removes range checkpoints the manifest does not list (a split a crash interrupted), and
    /// the temporary files of checkpoints and of the manifest a crash left before their rename
    /// (a range's was reused only by a range of its number, so they stayed for good).
    private func removeUnlisted() {
        let listed = Set(ranges.map(\.file))
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.projections) else { return }
        func isTemporary(_ name: String) -> Bool {
            guard name.hasSuffix(".tmp") else { return false }
            let file = String(name.dropLast(4))
            return file == "checkpoint" || file == "ranges" || Self.fileNumber(file) != nil
        }
        for name in names where (Self.fileNumber(name) != nil && !listed.contains(name)) || isTemporary(name) {
            try? PosixFileSystem().remove(path(of: name))
        }
    }

    private func path(of file: String) -> String { directory.projections + "/" + file }

    /// A reader of the log as the engine reads it: the writer's as it is now, or the snapshot a
    /// read-only engine opened (so that its audit history, `changes` and `verify` end where its
    /// ranges do).
    func reader() throws -> LogReader {
        if let log { return log.reader() }
        return try snapshot ?? LogReader(directory: directory.log)
    }

    // MARK: Reading

    /// Recomputes every held range's dirty days; returns how many.
    private mutating func recomputeHeld() -> Int {
        ranges.indices.reduce(0) { days, index in days + (ranges[index].held == nil ? 0 : recompute(index)) }
    }

    /// Holds range `index`, folded through `through`.
    private mutating func hold(_ index: Int) throws {
        if ranges[index].held == nil || ranges[index].waiting {
            _ = try rebuild([index], reader: reader(), recompute: false)
        }
        use(index)
    }

    /// Recomputes every dirty day of every range, holding each range that has any in turn.
    /// - Returns: how many days were recomputed.
    mutating func recompute() throws -> Int {
        try forEach(recomputed: true, needed: { $0.dirtyDays > 0 }) { _, _ in }
    }

    /// `body` with the projections of the range holding `user`, its dirty days recomputed
    /// first when `recomputed`.
    mutating func reading<T>(user: String, recomputed: Bool, _ body: (Projections) throws -> T) throws -> T {
        let index = UserRouter.index(of: user, in: bounds)
        try hold(index)
        if recomputed { recompute(index) }
        let answer = try body(ranges[index].held!)
        try dropToLimit()
        return answer
    }

    /// Recomputes held range `index`'s dirty days; returns how many.
    @discardableResult
    private mutating func recompute(_ index: Int) -> Int {
        guard !ranges[index].held!.dirty.isEmpty else { return 0 }
        let days = ranges[index].held!.recompute()
        ranges[index].unsaved += days
        ranges[index].dirtyDays = 0
        ranges[index].recomputedAt = through
        return days
    }

    /// Calls `body` with each range's projections in range order (holding them in turn within
    /// the limit; stored ranges not `needed` skipped, unless records they have not folded nor
    /// reported wait for them: one dropped with its work unsaved is `needed` as it was when
    /// dropped, which is what folding its records again gives), their dirty days
    /// recomputed first when `recomputed`, and the users whose answers the range gives: `nil`
    /// for every user it holds, or its users (`*` only in the first range) when there are
    /// several ranges.
    /// - Returns: the days recomputed.
    @discardableResult
    mutating func forEach(
        recomputed: Bool, needed: (Range) -> Bool = { _ in true }, _ body: (Projections, Set<String>?) throws -> Void
    ) throws -> Int {
        var days = 0
        for index in ranges.indices
        where needed(ranges[index]) || ranges[index].held != nil || (ranges[index].waiting && ranges[index].pending > 0)
        {
            try hold(index)
            if recomputed { days += recompute(index) }
            let held = ranges[index].held!
            let users: Set<String>? =
                ranges.count == 1 ? nil : Set(held.users.strings.filter { $0 != "*" || index == 0 })
            try body(held, users)
            try dropToLimit()
        }
        return days
    }
}

extension Projections {
    /// The check-ins that weigh as much as one id or rollup: each is 16 bytes (the instant and
    /// its receipt), an id or rollup about 250.
    static let checkinsPerEntry = 16
    /// The ids reconciles listed that weigh as much as one id or rollup: each is 4 bytes.
    static let listedPerEntry = 64
    /// The ids or rollups one user weighs as much as, and one sync channel: a user's name and
    /// lists and a channel's sync state come to about 1 KB together. (Uncounted, a million
    /// users of one sample each took 1.4 GB under the default limit, meant for 500 MB; an
    /// attack run, 2026-12-07.)
    static let entriesPerUser = 2
    static let entriesPerChannel = 2

    /// What holding these projections costs a range: their ids (live and deleted), rollups,
    /// check-ins (a channel checking in every 15 minutes keeps 35,000 a year), the ids
    /// reconciles listed (a client reading its window again each day lists it each day), and
    /// their users and sync channels.
    var rangeSize: Int {
        index.liveCount + index.tombstoneCount + rollups.count + namedUsers * Self.entriesPerUser
            + Self.weight(channels: syncStates.count, checkins: checkinCount, listed: listedCount)
    }

    /// Each user's sync channels, the check-ins they keep and the ids their reconciles listed,
    /// by interned user.
    func syncFactsByUser() -> (channels: [Int], checkins: [Int], listed: [Int]) {
        let none = [Int](repeating: 0, count: users.strings.count)
        var facts = (channels: none, checkins: none, listed: none)
        for (key, state) in syncStates {
            facts.channels[Int(key.user)] += 1
            facts.checkins[Int(key.user)] += state.checkins.count
            facts.listed[Int(key.user)] += state.listedCount
        }
        return facts
    }

    /// What a user's sync facts weigh (`rangeSize`): its channels, their check-ins and the ids
    /// their reconciles listed, in ids.
    static func weight(channels: Int, checkins: Int, listed: Int) -> Int {
        channels * entriesPerChannel + checkins / checkinsPerEntry + listed / listedPerEntry
    }

    /// Their users but `*`: a range splits between users, and needs two of them.
    var namedUsers: Int { users.strings.count - (users.id(of: "*") == nil ? 0 : 1) }
}
