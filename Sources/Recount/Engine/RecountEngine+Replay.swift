public import RecountLog
import Synchronization

/// What a replay from scratch read and produced.
public struct ReplayResult: Sendable {
    /// Log records folded.
    public var records: Int
    /// Samples in them.
    public var samples: Int
    /// The last position folded (0 when none).
    public var lastPosition: UInt64
    /// The SHA-256 (hex) of the projections it built, every dirty day recomputed.
    public var digest: String
    /// The tz data version the civil days came from.
    public var zoneDataVersion: String
    /// How many groups of users were folded one after another to bound memory (1: all at once).
    public var userGroups: Int
}

/// How far a fold of the log has got: an engine opening over its log's tail, a replay, the
/// replay of `verify`.
public struct ReplayProgress: Sendable, Equatable {
    /// Log records read so far, those of users the fold skips included (a replay of one user
    /// reads every record and folds few).
    public var records: Int
    /// Samples folded so far.
    public var samples: Int
}

/// What `verify` compared.
public struct VerifyResult: Sendable {
    /// The log's counts; every frame and record was checked.
    public var log: LogStats
    /// The digest of the engine's projections (after recomputing its dirty days).
    public var stored: String
    /// The replay from scratch it was compared with.
    public var replay: ReplayResult
    /// A torn frame after the committed ones (a crash's), when no writer had the log open:
    /// not part of the log verified, and left for the next writer to cut off (keeping a copy).
    public var uncommittedTail: TornTail? = nil
    /// The stored checkpoints that could not be used (see `UnusableCheckpoint.reason`): the
    /// stored digest is of projections folded from the log in their place.
    public var unusableCheckpoints: [UnusableCheckpoint] = []
    /// Whether the two digests are equal.
    public var matches: Bool { stored == replay.digest }
}

extension RecountEngine {
    /// Rebuilds projections from the log of the data directory `directory`, in memory, without
    /// taking the writer's lock; an auditor's replay.
    ///
    /// - Parameters:
    ///   - user: replay only this user's envelopes (and the `*` config defaults).
    ///   - until: stop before this log position.
    ///   - progress: called each time the samples folded or the records read pass another
    ///     million.
    /// - Throws: `QueryError(.invalidUser)` for a name no envelope can carry, `LogError`
    ///   (`.noLog` when there is no log there), or a record that does not decode.
    public static func replay(
        directory: String, user: String? = nil, until: UInt64? = nil,
        progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws -> ReplayResult {
        if let user { try checkUserName(user) }
        return try replay(logReader(directory: directory), user: user, until: until, progress: progress)
    }

    /// A replay of `reader`: of one user in memory, or of every user with memory bounded by
    /// `groupBytes` of records (`ProjectionReplay.digest`).
    static func replay(
        _ reader: LogReader, user: String? = nil, until: UInt64? = nil,
        groupBytes: Int = ProjectionReplay.defaultGroupBytes, progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws -> ReplayResult {
        let replayed: ProjectionReplay.Digested
        if let user {
            let (projections, summary) = try ProjectionReplay.recomputed(
                reader, users: [user], until: until ?? .max,
                progress: progress
            )
            replayed = ProjectionReplay.Digested(
                summary: summary, digest: projections.digest(), zoneDataVersion: projections.zones.dataVersion,
                userGroups: 1)
        } else {
            replayed = try ProjectionReplay.digest(
                reader, until: until ?? .max, groupBytes: groupBytes, progress: progress)
        }
        return ReplayResult(
            records: replayed.summary.records, samples: replayed.summary.samples,
            lastPosition: replayed.summary.lastPosition, digest: SHA256.hex(replayed.digest),
            zoneDataVersion: replayed.zoneDataVersion, userGroups: replayed.userGroups)
    }

    /// Cuts the damaged log of the data directory `directory` back to its last good frame
    /// (`Log.repair`), and removes the projections' checkpoints when anything was cut, since
    /// they may hold records the log no longer has: the next engine rebuilds them from the log.
    public static func repairLog(directory: String) throws -> LogRepair {
        try DataDirectory.checkPath(directory)
        let repair = try Log.repair(directory: DataDirectory(directory).log)
        if repair.damage != nil { try ProjectionRanges.remove(in: DataDirectory(directory)) }
        return repair
    }

    /// Checks every log frame, recomputes the engine's dirty days, replays the log from scratch
    /// into memory (only `onlyUser`'s records when the engine holds one user's) and compares
    /// the two digests. Ingests from other tasks wait while it takes the stored digest (not
    /// while it replays), so that the digest and the replayed log end at the same record.
    public func verify(progress: (@Sendable (ReplayProgress) -> Void)? = nil) throws -> VerifyResult {
        try Self.compare(storedDigest(), user: onlyUser, progress: progress)
    }

    /// `verify` of the data directory `directory`, read as a read-only engine reads it: the
    /// committed log, without the writer's lock and writing nothing, so it runs beside an
    /// ingest (which it neither blocks nor fails). The stored projections are digested (their
    /// dirty days recomputed in memory) and released before the replay, so the two are never
    /// in memory together; the replay reads the log snapshot the digest covers. Taking the
    /// writer's lock, it made an ingest started meanwhile fail ("another writer"), and wrote
    /// checkpoints.
    /// - Throws: `LogError` when the log is damaged or unreadable (`.noLog`: none there).
    /// - Parameter memoryLimit: the engine's (`RecountEngine.defaultMemoryLimit` when `nil`).
    public static func verify(
        directory: String, memoryLimit: Int? = nil, progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws -> VerifyResult {
        // The engine is released before the replay, so the two are never in memory together.
        let (stored, unusable) = try {
            let engine = try RecountEngine(
                readingDirectory: directory, recompute: false, memoryLimit: memoryLimit, progress: progress)
            return (try engine.storedDigest(), engine.unusableCheckpoints)
        }()
        var result = try compare(stored, user: nil, progress: progress)
        result.uncommittedTail = stored.reader.uncommittedTail
        result.unusableCheckpoints = unusable
        return result
    }

    /// `verify`'s result: the stored digest against a replay from scratch of the same log
    /// snapshot (of `user`'s records alone when given).
    private static func compare(
        _ stored: (log: LogStats, digest: String, reader: LogReader), user: String?,
        progress: (@Sendable (ReplayProgress) -> Void)?
    ) throws -> VerifyResult {
        VerifyResult(
            log: stored.log, stored: stored.digest, replay: try replay(stored.reader, user: user, progress: progress))
    }

    /// Checks every log frame and recomputes the dirty days; the projections' digest, with the
    /// log snapshot they cover. Ingests wait meanwhile: an ingest's batch is in the log before
    /// it is folded, so a snapshot taken between the two, or a digest taken after the next
    /// batch, gave a replay that disagreed with a store that was whole (a false mismatch).
    private func storedDigest() throws -> (log: LogStats, digest: String, reader: LogReader) {
        try ingesting.take("verify", refusal: { $0 as any Error }) { () throws in
            let reader = try logReader()
            let stats = try reader.check()
            try recompute()
            return (stats, try digest(), reader)
        }
    }
}
