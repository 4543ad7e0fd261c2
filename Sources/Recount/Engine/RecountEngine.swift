import Foundation
public import RecountLog

/// The embedding API: the engine over one data directory, whose log lives in `DIR/log` and
/// whose projections are checkpointed in `DIR/projections`, as ranges of users of which the
/// engine holds at most about `memoryLimit` ids and rollups (16 check-ins weigh as one) in
/// memory at once.
///
/// One engine per directory may be open for writing at a time (the log's lock enforces it);
/// any number may be opened read-only beside it (`init(readingDirectory:)`). Methods may be
/// called from any thread: ingests one at a time (each appends and folds its envelopes
/// before the next begins), folds and queries under the engine's lock. Rollups are read
/// recomputed: a query first rebuilds any dirty day (left by `ingest(recompute: false)`, or by
/// the tail an engine folded when it opened).
public final class RecountEngine: Sendable {
    /// The data directory.
    public let directory: String
    /// The writer of the log; `nil` for an engine opened read-only.
    private let log: Log?
    private let projections: LockedRanges
    /// Taken for a whole ingest, so that ingests from many tasks append and fold in turn (a fold
    /// must follow the log's order), by `verify` while it takes the stored digest, and by `close`.
    let ingesting = IngestTurns()
    /// Stamps the envelopes ingested without `receivedAt`, so that one user's keep their order.
    private let receiptClock = ReceiptClock()
    /// How much work (log records and samples folded, days recomputed since the stored
    /// checkpoints) an ingest or recompute leaves before it checkpoints; `nil`: 250,000 or half
    /// the ids the projections hold, whichever is larger.
    public let checkpointInterval: Int?
    /// The most ids and rollups (about 250 bytes each; 16 check-ins, which a channel keeps all
    /// of, weigh as one) the engine holds in memory at once: past it, the least recently used
    /// ranges of users are stored and dropped, and a range that grows past a quarter of it
    /// splits at its users.
    public let memoryLimit: Int
    /// `memoryLimit` when none is given: about 500 MB.
    public static let defaultMemoryLimit = 2_000_000

    /// The memory limit an engine keeps for the one asked for: the default when none is
    /// given, and at least 1.
    private static func memoryLimit(asked: Int?) -> Int { max(1, asked ?? defaultMemoryLimit) }
    /// Log records folded when the engine opened: those after the stored checkpoint (all of
    /// them when there was none, or it was damaged or ahead of the log).
    public let recordsFoldedOnOpen: Int
    /// The one user whose records the engine holds (`init(readingDirectory:user:)`); `nil` when
    /// it holds every user's.
    public let onlyUser: String?

    /// Opens (creating it when missing) the data directory: the log, then the projections'
    /// checkpoint, folding the records appended since it.
    ///
    /// The checkpoint is rewritten whole, so it is not written per call: an ingest or
    /// recompute writes it once the records and samples folded and the days recomputed since
    /// the last one reach `checkpointInterval`, and `close` writes what is left. By default
    /// the interval grows with the projections (half their ids), so that rewriting a checkpoint,
    /// whose cost grows with them too, stays a fixed share of the work. Opening does not write
    /// it: it returns as soon as the engine can answer. Whatever a crash leaves unwritten is
    /// folded again from the log when the engine next opens.
    ///
    /// - Parameters:
    ///   - directory: the data directory; the log is kept in its `log` folder.
    ///   - durability: when appended envelopes reach the disk (`.everyBatch` by default).
    ///   - checkpointInterval: the work between checkpoints; by default (`nil`) 250,000 (a
    ///     quarter of a second of folding when the engine next opens after a crash) or half the
    ///     ids the projections hold, whichever is larger; 1 checkpoints after every ingest.
    ///   - progress: called each time the samples folded or the records read from the log's
    ///     tail pass another million (a lost checkpoint means folding the whole log).
    ///   - memoryLimit: the most ids and rollups (16 check-ins weigh as one) to hold in memory
    ///     at once (`defaultMemoryLimit` when `nil`; at least 1).
    /// - Throws: `LogError` when the log is locked by another writer, damaged (`.corruptFrame`,
    ///   `.corruptSegment`, `.corruptManifest`: `repairLog(directory:)` cuts it back to its last
    ///   good frame, as `recount log repair`, which the error's message names, does), or
    ///   unreadable, `.noLog` when the directory holds stored projections but no log, and
    ///   `.notADirectory` for an empty path.
    public init(
        directory: String, durability: LogConfiguration.Durability = .everyBatch, checkpointInterval: Int? = nil,
        memoryLimit: Int? = nil, progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws {
        try DataDirectory.checkPath(directory)
        self.directory = directory
        self.checkpointInterval = checkpointInterval.map { max(1, $0) }
        self.memoryLimit = Self.memoryLimit(asked: memoryLimit)
        try Self.refuseProjectionsWithoutLog(directory)
        let log = try Log(
            directory: DataDirectory(directory).log, configuration: LogConfiguration(durability: durability))
        self.log = log
        var ranges = ProjectionRanges(directory: DataDirectory(directory), limit: self.memoryLimit, log: log)
        recordsFoldedOnOpen = try ranges.open(log.reader(), progress: progress).records
        onlyUser = nil
        projections = LockedRanges(ranges, directory: directory)
    }

    /// Throws `LogError(.noLog)` when `directory` holds stored projections (a checkpoint or the
    /// ranges' manifest) and no log: a writer started a new, empty log there, and replaced the
    /// projections (the only copy left of what the lost log held) with its own (an attack
    /// run, 2026-12-06).
    package static func refuseProjectionsWithoutLog(_ path: String) throws {
        let directory = DataDirectory(path)
        let files = FileManager.default
        guard !files.fileExists(atPath: directory.log),
            files.fileExists(atPath: directory.checkpoint) || files.fileExists(atPath: directory.ranges)
        else { return }
        throw LogError(
            .noLog,
            "no log at \(directory.log), but projections at \(directory.projections): the log is the truth, so "
                + "nothing is written; put the log back, or move the projections away to start a new store",
            path: directory.log)
    }

    /// Opens the data directory for queries only, beside a writer (another process's
    /// `ingest`): the stored checkpoint, and the committed records after it folded in memory.
    /// It takes no lock and writes nothing: `ingest` and `sync` throw `LogError(.readOnly)`,
    /// and `recompute` rebuilds the dirty days in memory only. It answers from the log as it
    /// was when it opened: what a writer commits after that is seen by an engine opened after
    /// it (each folds only the records after the stored checkpoints).
    ///
    /// - Parameters:
    ///   - recompute: rebuild the dirty days (in memory) after folding, so rollups answer for
    ///     every committed record; `false` keeps the dirty set as the writer left it.
    ///   - memoryLimit: as `init(directory:)`'s; ranges of users the log is ahead of are folded
    ///     as it opens, the others held as queries need them.
    ///   - progress: as `init(directory:)`'s.
    /// - Throws: `LogError` (`.noLog` when there is no log there, `.notADirectory` for an empty
    ///   path) or a record that does not decode.
    public convenience init(
        readingDirectory directory: String, recompute: Bool = true, memoryLimit: Int? = nil,
        progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws {
        try DataDirectory.checkPath(directory)
        let limit = Self.memoryLimit(asked: memoryLimit)
        var ranges = ProjectionRanges(directory: DataDirectory(directory), limit: limit, log: nil)
        let folded = try ranges.open(Self.logReader(directory: directory), progress: progress)
        if recompute { _ = try ranges.recompute() }
        self.init(readingDirectory: directory, ranges, recordsFolded: folded.records, memoryLimit: limit, onlyUser: nil)
    }

    /// Opens the data directory for queries about one user: that user's records and the `*`
    /// config defaults, folded from the whole log in memory and recomputed. The checkpoint,
    /// which holds every user, is not read, and other users' records are skipped by their
    /// header, so memory grows with this user's history alone and the time with the log's
    /// bytes (on the benchmark store of 1,000 users, about a tenth of the time and a sixth of
    /// the memory of `init(readingDirectory:)`). A user's projections depend on nothing else,
    /// so the answers are the whole store's.
    ///
    /// Like `init(readingDirectory:)` it takes no lock and writes nothing. A query about
    /// another user throws `QueryError(.otherUser)`; `stats`, `stale`, `dirtyDays`, `digest`,
    /// `changes` and `verify` answer for this user (and the defaults) alone.
    /// - Parameter progress: called each time the records read (or, rarely, the user's samples
    ///   folded) pass another million.
    /// - Throws: `QueryError(.invalidUser)` for a name no envelope can carry, `LogError`
    ///   (`.noLog` when there is no log there) or a record that does not decode.
    public convenience init(
        readingDirectory directory: String, user: String, progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws {
        try Self.checkUserName(user)
        let snapshot = try Self.logReader(directory: directory)
        let (state, folded) = try ProjectionReplay.recomputed(snapshot, users: [user], progress: progress)
        self.init(
            readingDirectory: directory,
            ProjectionRanges(holding: state, foldedFrom: snapshot, directory: DataDirectory(directory)),
            recordsFolded: folded.records, memoryLimit: .max, onlyUser: user)
    }

    /// A read-only engine over `ranges`, folded from the data directory `directory`.
    private init(
        readingDirectory directory: String, _ ranges: sending ProjectionRanges, recordsFolded: Int, memoryLimit: Int,
        onlyUser: String?
    ) {
        self.directory = directory
        log = nil
        recordsFoldedOnOpen = recordsFolded
        checkpointInterval = nil
        self.memoryLimit = memoryLimit
        self.onlyUser = onlyUser
        projections = LockedRanges(ranges, directory: directory)
    }

    /// Throws `QueryError(.invalidUser)` for a name no envelope can carry, and
    /// `QueryError(.otherUser)` when the engine holds only another user's records.
    private func checkAsked(_ user: String) throws(QueryError) {
        try Self.checkUserName(user)
        guard let onlyUser, onlyUser != user else { return }
        throw QueryError(.otherUser, "the engine was opened for \(onlyUser)'s queries only, not \(user)'s")
    }

    /// Throws `QueryError(.invalidUser)` for a name no envelope can carry.
    static func checkUserName(_ user: String) throws(QueryError) {
        if let problem = Envelope.userNameProblem(user) { throw QueryError(.invalidUser, problem) }
    }

    /// The log's writer, or `.readOnly` for an engine opened for queries only.
    private func writer() throws(LogError) -> Log {
        guard let log else {
            throw LogError(.readOnly, "the engine was opened read-only", path: DataDirectory(directory).log)
        }
        try projections.checkOpen()
        return log
    }

    /// A torn frame that recovery cut off when the engine opened, if any.
    public var recovery: TornTail? { log?.recovery }

    /// Appends the valid envelopes of NDJSON files (`-` reads standard input), in order; each
    /// line is applied whole or rejected whole.
    ///
    /// Every file is opened before anything is appended, so a missing one changes nothing.
    /// A slow input's envelopes are appended within about a second (see `docs/ingest.md`).
    /// What was appended is as durable as the engine's `durability` makes it (with
    /// `.everyBatch`, durable when this returns); `sync()` or `close()` makes all of it durable.
    ///
    /// - Parameters:
    ///   - paths: the files, or `-`.
    ///   - recompute: rebuild the days the ingest dirtied before returning; `false` leaves them
    ///     for `recompute()` or the next query that reads rollups.
    ///   - rejected: called with each rejected line as it is found (the report keeps only the
    ///     first `IngestReport.rejectionsKept`).
    ///   - progress: called after each appended batch with the report so far.
    /// - Returns: what was appended and what was rejected (with line, path and reason).
    /// - Throws: `IngestFailure` when a file cannot be opened or read, or appending fails: it
    ///   carries the report of what was appended and rejected before.
    public func ingest(
        files paths: [String], recompute: Bool = true, rejected: ((IngestRejection) -> Void)? = nil,
        progress: ((IngestReport) -> Void)? = nil
    ) throws(IngestFailure) -> IngestReport {
        try ingesting.take("ingest", refusal: { IngestFailure(report: IngestReport(), error: $0) }) {
            () throws(IngestFailure) in
            try ingest(paths, recompute: recompute, rejected: rejected, progress: progress)
        }
    }

    private func ingest(
        _ paths: [String], recompute: Bool, rejected: ((IngestRejection) -> Void)?,
        progress: ((IngestReport) -> Void)?
    ) throws(IngestFailure) -> IngestReport {
        var report = IngestReport()
        let readers: [LineReader]
        do {
            // A read-only engine says so before any input is opened (a missing file is not
            // what stops it).
            _ = try writer()
            readers = try paths.map { path throws(IngestFileError) in
                path == "-" ? LineReader() : try LineReader(path: path)
            }
        } catch {
            throw IngestFailure(report: report, error: error)
        }
        for (path, reader) in zip(paths, readers) {
            try ingest(
                reader, source: path, recompute: recompute, into: &report, rejected: rejected, progress: progress)
        }
        try foldAppended(into: &report, recompute: recompute)
        return report
    }

    /// Appends the valid envelopes of NDJSON text held in memory (durable as `ingest(files:)`
    /// says).
    ///
    /// - Parameters:
    ///   - ndjson: the envelopes, one per line.
    ///   - source: the name rejections give the input.
    ///   - rejected: called with each rejected line as it is found.
    /// - Throws: `IngestFailure` when appending fails, with the report of what was appended before.
    public func ingest(
        ndjson: [UInt8], source: String, recompute: Bool = true, rejected: ((IngestRejection) -> Void)? = nil
    ) throws(IngestFailure) -> IngestReport {
        try ingesting.take("ingest", refusal: { IngestFailure(report: IngestReport(), error: $0) }) {
            () throws(IngestFailure) in
            var report = IngestReport()
            try ingest(
                LineReader(bytes: ndjson, source: source), source: source, recompute: recompute, into: &report,
                rejected: rejected)
            try foldAppended(into: &report, recompute: recompute)
            return report
        }
    }

    /// Appends envelopes built in code, each as its NDJSON line (`IngestEnvelope.ndjsonLine`):
    /// validated, rejected and stored as `ingest(ndjson:source:)` does with those lines. A
    /// rejection's line N is the envelope at index N - 1.
    /// - Throws: `IngestFailure` when appending fails, with the report of what was appended before.
    public func ingest(
        _ envelopes: [IngestEnvelope], source: String = "envelopes", recompute: Bool = true,
        rejected: ((IngestRejection) -> Void)? = nil
    ) throws(IngestFailure) -> IngestReport {
        try ingest(ndjson: IngestEnvelope.ndjson(envelopes), source: source, recompute: recompute, rejected: rejected)
    }

    private func ingest(
        _ reader: LineReader, source: String, recompute: Bool, into report: inout IngestReport,
        rejected: ((IngestRejection) -> Void)?, progress: ((IngestReport) -> Void)? = nil
    ) throws(IngestFailure) {
        // Each appended batch is folded as it is appended, from the envelopes in hand: reading
        // them back from the log decoded every record a second time. The log holds what these
        // envelopes encode to (`EnvelopeCodec` round-trips; `verify` replays the log to check).
        // In-process queries may so see a batch before it is synced (`--durability none` or
        // `group-commit`); the checkpoint never covers one.
        var folded = Projections.Effect()
        var recomputed = 0
        do {
            try ingestor().ingest(reader, source: source, into: &report, rejected: rejected, progress: progress) {
                envelopes, blocks, positions in
                try self.projections.withOpenRanges { projections in
                    for (index, position) in zip(envelopes.indices, positions) {
                        // Each envelope and block is moved out to be folded, the block moved
                        // back for the ingestor to refill: passed from the arrays (or through
                        // pointers into them), each was copied, retaining every string and array
                        // it holds, and released again (in a profile of an ingest of the
                        // benchmark's input, those retains alone were 1.8% of the time).
                        var envelope = Envelope.emptied
                        swap(&envelope, &envelopes[index])
                        var block: SampleBlock? = nil
                        swap(&block, &blocks[index])
                        defer { swap(&block, &blocks[index]) }
                        folded += try projections.apply(envelope, samples: block, at: position)
                    }
                    let fitted = try projections.fit(recompute: recompute)
                    recomputed += fitted.recomputed
                    folded += fitted.effect
                }
            }
            report.note(folded)
            report.daysRecomputed += recomputed
        } catch {
            report.note(folded)
            report.daysRecomputed += recomputed
            // What was appended before the failure is folded all the same.
            try? foldAppended(into: &report, recompute: false)
            throw IngestFailure(report: report, error: error)
        }
    }

    /// Folds the appended records not folded yet, recomputes the dirty days when asked, and
    /// checkpoints the projections once `checkpointInterval` of work waits (syncing the log
    /// first: a checkpoint never covers a record that could be lost). It does not sync
    /// otherwise: the engine's `durability` decides when appended records reach the disk (a
    /// sync per call would undo group commit).
    private func foldAppended(into report: inout IngestReport, recompute: Bool) throws(IngestFailure) {
        do {
            let log = try writer()
            try projections.withOpenRanges { projections in
                let (folded, days) = try projections.catchUp(log.reader(), recompute: recompute, unreported: true)
                report.note(folded.effect)
                report.daysRecomputed += days
                if recompute { report.daysRecomputed += try projections.recompute() }
                let fitted = try projections.fit(recompute: recompute)
                report.note(fitted.effect)
                report.daysRecomputed += fitted.recomputed
                if checkpointIsDue(projections) { try projections.storeAll() }
            }
        } catch {
            throw IngestFailure(report: report, error: error)
        }
    }

    /// Rebuilds every dirty day from its live samples, checkpointing the projections once
    /// `checkpointInterval` of work waits.
    /// - Returns: how many days were rebuilt.
    @discardableResult
    public func recompute() throws -> Int {
        try projections.withOpenRanges { try recompute(&$0) }
    }

    /// `recompute` under the projections' lock.
    private func recompute(_ projections: inout ProjectionRanges) throws -> Int {
        let count = try projections.recompute() + projections.fit(recompute: true).recomputed
        if log != nil, checkpointIsDue(projections) { try projections.storeAll() }
        return count
    }

    /// One row per day of a user's metric from `from` to `to` (`YYYY-MM-DD`, inclusive; the
    /// days that have rollups when not given, at most 3,660 of them:
    /// the latest without `from`), each known, partial or unknown (contract §3 rule 8).
    ///
    /// - Parameter asOf: an RFC 3339 instant: the rows as they stood then, from the user's
    ///   envelopes received by then (and the `*` defaults), replayed from the log; a day that
    ///   had not ended by then is not known. Without it, a day that has not ended by the
    ///   engine's clock is not known (a check-in received within the skew ingest accepts, up to
    ///   5 minutes ahead, made it known before its end; an oracle run).
    /// - Throws: `QueryError` for an unknown metric, a malformed date or a reversed range;
    ///   `LogError` when the user's projections cannot be read back (damage).
    public func rollups(
        user: String, metric: String, from: String? = nil, to: String? = nil, asOf: String? = nil
    ) throws -> [RollupRow] {
        try checkAsked(user)
        let metric = try Self.metric(metric)
        let first = try from.map { text throws(QueryError) in try Self.day(text, "--from") }
        let last = try to.map { text throws(QueryError) in try Self.day(text, "--to") }
        guard let asOf else {
            return try reading(user: user, recomputed: true) { projections in
                try projections.rollupRows(
                    user: user, metric: metric, from: first, to: last, clock: Self.now().millis)
            }
        }
        // What the log held by then: values, versions, recovery windows and the latest offset as
        // they were (read from today's projections, a later backfill or reconcile showed).
        let instant = try Self.instant(asOf, "--as-of")
        let then = try ProjectionReplay.recomputed(logReader(), users: [user], receivedBy: instant).projections
        return try then.rollupRows(user: user, metric: metric, from: first, to: last, asOf: instant)
    }

    /// `body`'s answer from the projections of `user`'s range (its dirty days recomputed first
    /// when `recomputed`), held for the call.
    /// - Throws: `LogError` when the range cannot be read back from its checkpoint and the
    ///   log (damage), or what `body` throws.
    private func reading<T: Sendable>(user: String, recomputed: Bool, _ body: (Projections) throws -> T) throws -> T {
        try projections.withOpenRanges { try $0.reading(user: user, recomputed: recomputed, body) }
    }

    /// The instant a query names, `name` (`--as-of`, as the command line spells the parameter)
    /// saying which when it is not one.
    static func instant(_ text: String, _ name: String) throws(QueryError) -> Int64 {
        guard let parsed = RFC3339.parse(text), RFC3339.utcYearsMillis.contains(parsed.millis) else {
            throw QueryError(
                .invalidDate,
                "\(name) \(text) is not an RFC 3339 date-time with an offset, in the years 0001–9999 UTC")
        }
        return parsed.millis
    }

    /// The live samples of a user's metric on one day (`YYYY-MM-DD`), in time order.
    public func samples(user: String, metric: String, day: String) throws -> [SampleRow] {
        try checkAsked(user)
        let metric = try Self.metric(metric)
        let day = try Self.day(day, "--day")
        return try reading(user: user, recomputed: false) { $0.sampleRows(user: user, metric: metric, day: day) }
    }

    /// One cell's current rollup, each source's part in it, and (with `history`) every version
    /// it has had with the log event that made it, from a replay of the user's records;
    /// `nil` when the day has no rollup.
    public func audit(user: String, metric: String, day: String, history: Bool = true) throws -> CellAudit? {
        try checkAsked(user)
        let metric = try Self.metric(metric)
        let day = try Self.day(day, "--day")
        let found = try reading(user: user, recomputed: true) {
            $0.audit(user: user, metric: metric, day: day, clock: Self.now().millis)
        }
        guard var audit = found else { return nil }
        if history { audit.history = try CellHistory.versions(logReader(), user: user, metric: metric, day: day) }
        return audit
    }

    /// The stored cursor of a user's provider for a metric, with its state and recovery window,
    /// so a reinstalled client can resume instead of replaying; `nil` when there is none.
    public func cursor(user: String, provider: String, metric: String) throws -> CursorRow? {
        try checkAsked(user)
        // A name no envelope can carry was answered "never synced", as if it could have synced.
        if let problem = Envelope.providerNameProblem(provider) { throw QueryError(.invalidProvider, problem) }
        let metric = try Self.metric(metric)
        return try reading(user: user, recomputed: false) {
            $0.cursorRow(user: user, provider: provider, metric: metric)
        }
    }

    /// The channels whose last check-in is older than their provider's expected interval at
    /// `asOf` (an RFC 3339 instant; now when not given), and per provider and cohort the
    /// fraction of users that are stale.
    public func stale(asOf: String? = nil) throws -> StaleReport {
        let instant = try asOf.map { text throws(QueryError) in try Self.instant(text, "--as-of") } ?? Self.now().millis
        var reports: [StaleReport] = []
        try eachRange(recomputed: false) { projections, _ in reports.append(projections.staleReport(asOf: instant)) }
        return StaleReport(joining: reports, asOf: instant)
    }

    /// What the projections hold, and per provider how its channels sync (re-delivery storms,
    /// recoveries, stuck clients).
    public func stats() throws -> EngineStats {
        var parts: [EngineStats] = []
        try eachRange(recomputed: false) { projections, _ in parts.append(projections.stats()) }
        return EngineStats(joining: parts)
    }

    /// Calls `body` with the projections of each range of users in turn, in their order, and
    /// the users whose answers each gives (`nil`: all it holds); see `ProjectionRanges.forEach`.
    private func eachRange(
        recomputed: Bool, needed: (ProjectionRanges.Range) -> Bool = { _ in true },
        _ body: (Projections, Set<String>?) throws -> Void
    ) throws {
        try projections.withOpenRanges { projections in
            _ = try projections.forEach(recomputed: recomputed, needed: needed, body)
        }
    }

    /// Every cell whose version moved after `version` (a log position), with its figures then
    /// and now: the feed a backend follows to push updated days to its clients. Dirty days are
    /// recomputed first. The figures then come from the reading each cell had before its last
    /// move, kept as it moved, when that reading held at `version` (a follower that asks since
    /// the highest version it was given, after each upload, reads no log); the others from a
    /// replay of the log up to `version` of their users (a user's rollups depend on the user's
    /// envelopes and the `*` config defaults alone), many users a group at a time
    /// (`ProjectionReplay.foldInGroups`), so memory stays bounded.
    ///
    /// The rows are those of one moment: cells that moved again after it, while the replay
    /// ran beside an ingest, come in the next call, so every row has its figures then, and a
    /// feed that asks next since the highest version it was given misses nothing.
    public func changes(since version: UInt64, user: String? = nil) throws -> [CellChangeRow] {
        try changes(since: version, user: user, groupBytes: ProjectionReplay.defaultGroupBytes)
    }

    /// `changes`, its replay folding at most about `groupBytes` of records at a time.
    func changes(since version: UInt64, user: String?, groupBytes: Int) throws -> [CellChangeRow] {
        try changesReplaying(since: version, user: user, groupBytes: groupBytes).rows
    }

    /// `changes`, and how many users' records it replayed for the old readings the projections
    /// had not kept (all of them without `keptReadings`: the baseline of `ProjectionBenchmark`).
    package func changesReplaying(
        since version: UInt64, user: String?, groupBytes: Int, keptReadings: Bool = true
    ) throws -> (rows: [CellChangeRow], replayedUsers: Int) {
        if let user { try checkAsked(user) }
        // The moved cells and their readings now, at one moment: an ingest folding and
        // recomputing between finding them and reading them (two turns of the lock until
        // 2026-12-05) left a cell out, to come in the next call with the old figures of the
        // version the follower had moved to rather than those it had been given.
        var moved = try projections.withOpenRanges { projections in
            _ = try recompute(&projections)
            var moved: [Projections.MovedCell] = []
            _ = try projections.forEach(recomputed: false) { projections, _ in
                moved += projections.movedCells(since: version, user: user)
            }
            return moved
        }
        if !keptReadings { moved.indices.forEach { moved[$0].old = nil } }
        // Their readings then: those the projections kept (`FeedReadings`: most, for a follower
        // asking since the last version it was given), the others from a replay.
        let unanswered = moved.filter { $0.old == nil }.map(\.cell)
        let replayed = try readings(of: unanswered, at: version, groupBytes: groupBytes)
        assert(keptReadingsAreReplayed(moved, at: version, groupBytes: groupBytes), "a kept reading is not the log's")
        let rows = moved.map { moved in
            CellChangeRow(
                user: moved.cell.user, metric: moved.cell.metric.name, date: "\(moved.cell.day)",
                // The replay read every cell asked; a user it did not know had never synced.
                version: moved.version,
                old: moved.old ?? replayed[moved.cell] ?? .unknown(.neverSynced),
                new: moved.new)
        }
        return (rows, Set(unanswered.map(\.user)).count)
    }

    /// How `rollups` read each of `cells` at `version`, from a replay of their users' records up
    /// to it, a group of users at a time (a user the log did not know then is left out).
    private func readings(
        of cells: [Projections.NamedCell], at version: UInt64, groupBytes: Int
    ) throws -> [Projections.NamedCell: RollupRow.Reading] {
        var readings: [Projections.NamedCell: RollupRow.Reading] = [:]
        guard !cells.isEmpty else { return readings }
        _ = try ProjectionReplay.foldInGroups(
            logReader(), users: Set(cells.map(\.user)), until: version &+ 1, groupBytes: groupBytes
        ) { before, group in
            readings.merge(
                before.readings(of: group.map { group in cells.filter { group.contains($0.user) } } ?? cells)
            ) { held, _ in held }
        }
        return readings
    }

    /// Whether every old reading the projections kept is the one a replay gives (checked in
    /// debug builds, so every test of the feed checks it).
    private func keptReadingsAreReplayed(_ moved: [Projections.MovedCell], at version: UInt64, groupBytes: Int) -> Bool
    {
        let kept = moved.filter { $0.old != nil }
        guard let replayed = try? readings(of: kept.map(\.cell), at: version, groupBytes: groupBytes) else {
            return false
        }
        return kept.allSatisfy { $0.old == replayed[$0.cell] ?? .unknown(.neverSynced) }
    }

    /// The days whose inputs changed since they were last recomputed.
    public func dirtyDays() throws -> [DirtyDay] {
        var rows: [DirtyDay] = []
        try eachRange(recomputed: false, needed: { $0.dirtyDays > 0 }) { projections, _ in
            rows += projections.dirtyRows()
        }
        return rows
    }

    /// The SHA-256 (hex) of the projections' canonical form (`docs/projections.md`): of every
    /// range's part, joined in range order, as one fold of every user gives it.
    public func digest() throws -> String {
        var whole: [UInt8]?
        var spool: DigestSpool?
        var zoneDataVersion = ""
        try eachRange(recomputed: false) { projections, users in
            zoneDataVersion = projections.zones.dataVersion
            guard let users else { return whole = projections.digest() }
            if spool == nil { spool = try DigestSpool(directory: NSTemporaryDirectory()) }
            try spool?.append(projections, users: users)
        }
        return SHA256.hex(try whole ?? spool?.digest(zoneDataVersion: zoneDataVersion) ?? Projections().digest())
    }

    static func metric(_ name: String) throws(QueryError) -> Metric {
        guard let metric = Metric.resolve(typeName: name) else {
            throw QueryError(.unknownMetric, "\(name) is not a metric of the catalogue")
        }
        return metric
    }

    /// The day a query names, `name` (`--from`, `--to`, `--day`, as the command line spells the
    /// parameters) saying which when it is not one.
    static func day(_ text: String, _ name: String) throws(QueryError) -> CivilDay {
        guard let day = CivilDay(parsing: text), day.components.year >= 1 else {
            throw QueryError(.invalidDate, "\(name) \(text) is not a YYYY-MM-DD date in the years 0001–9999")
        }
        return day
    }

    /// A reader of the engine's log: what it holds now, or for a read-only engine what it held
    /// when the engine opened (`ProjectionRanges.reader()`). Not to be called under the lock.
    func logReader() throws -> LogReader {
        try projections.withOpenRanges { try $0.reader() }
    }

    /// Makes every appended envelope durable.
    public func sync() throws { try writer().sync() }

    /// Whether the work since the stored checkpoints reaches the interval (under the
    /// projections' lock). Checkpoints are written after syncing the log, so they never cover
    /// a record the log could still lose; one that cannot be written (a full disk) only costs
    /// the next engine a longer fold, so it is kept in `checkpointFailure` and the call goes on.
    private func checkpointIsDue(_ projections: ProjectionRanges) -> Bool {
        projections.unsavedWork >= checkpointInterval ?? max(250_000, projections.totalSize / 2)
    }

    /// The ids and rollups (and check-ins, 16 as one) the engine holds in memory now, and in
    /// how many ranges of users.
    var held: (entries: Int, ranges: Int) {
        projections.withLock { ($0.heldSize, $0.ranges.count { $0.held != nil }) }
    }

    /// How many times a range of users was loaded (from its checkpoint or the log) since the
    /// engine opened.
    var rangesLoaded: Int { projections.withLock { $0.rangesLoaded } }

    /// Why a checkpoint could not be written (the disk full, say), while one whose write failed
    /// is still not written; `nil` otherwise. Nothing is lost either way: the log holds every
    /// ingested envelope, and the next engine folds what the stored checkpoints lack.
    public var checkpointFailure: (any Error)? { projections.withLock { $0.storeFailure } }

    /// The stored checkpoints this engine found unusable (`UnusableCheckpoint.reason`), when it
    /// opened or as it loaded a range of users: their users' projections are folded from the log.
    public var unusableCheckpoints: [UnusableCheckpoint] { projections.withLock { $0.unusableCheckpoints } }

    /// Checkpoints what was done since the last checkpoint (see `checkpointFailure`), syncs the
    /// log and releases the data directory. An ingest running on another thread finishes first
    /// (closing under it crashed the process: it folded records the ingest had appended, which
    /// the ingest then folded again; an attack run).
    /// Every call after it throws `LogError(.closed)`: a closed engine reads and writes nothing
    /// (queries answered, and a recompute after one wrote checkpoints into a directory whose
    /// lock it had given up). Closing again does nothing (it threw "the log is closed"). A
    /// read-only engine closes too.
    /// - Throws: `ReentrantCallError` from inside an ingest's callback; `LogError`.
    public func close() throws {
        try ingesting.take("close", refusal: { $0 as any Error }) { () throws in
            try projections.close { ranges in
                guard let log else { return }
                try ranges.storeEverything()
                // Before the directory is free for the next writer.
                receiptClock.waitUntilStampsPass()
                try log.close()
            }
        }
    }

    /// An ingestor that stamps a missing `receivedAt` with the current time.
    private func ingestor() throws(LogError) -> Ingestor { Ingestor(log: try writer(), clock: receiptClock) }

    /// The current time in UTC: for stamping envelopes and for queries, never for folding.
    static func now() -> Instant {
        Instant(millis: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)), offsetSeconds: 0)
    }
}

/// The engine's ranges of users, touched only under `lock`, which is what makes the engine
/// `Sendable`. (A `Mutex` holds a `sending` value, which a query's body, capturing the
/// caller's state, could not be given.)
private final class LockedRanges: @unchecked Sendable {
    private let lock = NSLock()
    private var ranges: ProjectionRanges
    /// Whether the engine has closed: the ranges are no longer read, nor written (the
    /// directory's lock is released, and another writer may own it).
    private var closed = false
    /// What a call on a closed engine throws.
    private let closedError: LogError

    init(_ ranges: sending ProjectionRanges, directory: String) {
        self.ranges = ranges
        closedError = LogError(.closed, "the engine is closed", path: directory)
    }

    /// `body` on the ranges, open or closed: for reading what the engine found and kept.
    func withLock<T>(_ body: (inout ProjectionRanges) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&ranges)
    }

    /// `body` on the ranges, or `LogError(.closed)` once the engine has closed.
    func withOpenRanges<T>(_ body: (inout ProjectionRanges) throws -> T) throws -> T {
        try withLock { ranges in
            if closed { throw closedError }
            return try body(&ranges)
        }
    }

    /// Throws `LogError(.closed)` once the engine has closed.
    func checkOpen() throws(LogError) {
        lock.lock()
        defer { lock.unlock() }
        if closed { throw closedError }
    }

    /// Runs `body`, the engine's last work on the ranges, then closes them; does nothing when
    /// they are closed. Should `body` throw, they stay open.
    func close(_ body: (inout ProjectionRanges) throws -> Void) throws {
        try withLock { ranges in
            guard !closed else { return }
            try body(&ranges)
            closed = true
        }
    }
}
