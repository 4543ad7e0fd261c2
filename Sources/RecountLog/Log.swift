import Foundation
import Synchronization

/// An append-only log of opaque records in LZ4-compressed, checksummed, segmented files.
///
/// One `Log` is the only writer of its directory (a lock file enforces it). Records are
/// appended in batches; each batch becomes one frame and gets consecutive 64-bit positions,
/// starting at 1, that are never reused. Readers take a `LogSnapshot` and read concurrently.
///
/// On open, the last segment is checked frame by frame: a torn tail left by a crash is cut off
/// and reported in `recovery`; damage before the tail is a `corruptFrame` error.
/// After a failed fsync the log refuses every further append until it is reopened.
public final class Log: Sendable {
    /// The position of the first record of a new log.
    public static let firstPosition: UInt64 = 1
    /// Positions are reserved this many at a time; after a crash the next position is the
    /// first one past the reservation (see `docs/log-format.md`).
    package static let positionReservation = LogWriter.reservation
    /// The most raw bytes one batch (its records and their length prefixes) may hold: 64 MiB.
    public static let maximumBatchBytes = FrameHeader.maximumPayload

    /// The log directory.
    public let directory: String
    /// What the log was opened with.
    public let configuration: LogConfiguration
    /// The torn tail cut off on open, if there was one.
    public let recovery: TornTail?
    /// Sealed segments whose index file was missing or disagreed with the segment, and was
    /// rebuilt on open.
    public let rebuiltIndexes: [String]

    private let writer: Mutex<LogWriter>
    private let published: Mutex<LogSnapshot>
    /// With group commit, a timer that syncs batches older than `maxDelay` when appends stop.
    private let flusher = Mutex<LogFlusher?>(nil)

    /// Opens (creating it when missing) the log in `directory` as its only writer.
    ///
    /// Opening checks the whole log: the manifest against the segment files, every frame's
    /// checksum, and the commit record. A torn tail after the committed frames is cut off
    /// (and reported in `recovery`); any other damage refuses the open.
    ///
    /// - Throws: `LogError` with `.locked` when another writer has it open; `.corruptFrame`,
    ///   `.corruptSegment` or `.corruptManifest` for damage (`Log.repair` is the way out);
    ///   `.io` for file-system failures.
    public init(directory: String, configuration: LogConfiguration = LogConfiguration()) throws(LogError) {
        let fileSystem = configuration.fileSystem
        try fileSystem.createDirectories(directory)
        let lock = try DirectoryLock(directory: directory)
        let opened = try LogOpening(directory: directory, configuration: configuration, lock: lock)
        self.directory = directory
        self.configuration = configuration
        self.recovery = opened.recovery
        self.rebuiltIndexes = opened.rebuiltIndexes
        self.published = Mutex(opened.writer.snapshot)
        self.writer = Mutex(opened.writer)
        if case .groupCommit(_, let maxDelay) = configuration.durability { startFlusher(every: maxDelay) }
    }

    /// Syncs, every `interval`, batches that have waited `interval` or longer, so group commit's
    /// delay bounds what a crash can lose even when no further append comes to check it.
    private func startFlusher(every interval: Duration) {
        let flusher = LogFlusher(every: interval) { [weak self] in
            // A failed sync stops the log (the writer records it); the next append reports it.
            self?.writer.withLock { writer in try? writer.syncIfOlder(than: interval) }
        }
        self.flusher.withLock { $0 = flusher }
    }

    /// The position the next appended record will get.
    public var endPosition: UInt64 { published.withLock { $0.endPosition } }

    /// What is committed now, for readers.
    public var snapshot: LogSnapshot { published.withLock { $0 } }

    /// A reader over what is committed now.
    public func reader() -> LogReader {
        LogReader(snapshot: snapshot, fileSystem: configuration.fileSystem)
    }

    /// Appends the batch as one frame, all or nothing.
    ///
    /// - Returns: the positions the batch's records got, in order.
    /// - Throws: `.tooLarge` for a batch over 64 MiB; `.io` when a write fails (the batch is
    ///   not in the log and the log stays usable); `.failStopped` after a failed fsync.
    @discardableResult
    public func append(_ batch: LogBatch) throws(LogError) -> Range<UInt64> {
        guard batch.byteCount <= FrameHeader.maximumPayload else {
            throw LogError(
                .tooLarge,
                "a batch holds \(batch.byteCount) bytes; at most \(FrameHeader.maximumPayload) fit in one frame",
                path: directory)
        }
        return try writer.withLock { writer throws(LogError) in
            let positions = try writer.append(batch)
            // Published under the writer's lock, so that two appends publish in the order they
            // appended (readers never see the end go back).
            if !positions.isEmpty { published.withLock { $0 = writer.snapshot } }
            return positions
        }
    }

    /// Makes every appended batch durable.
    public func sync() throws(LogError) {
        try writer.withLock { writer throws(LogError) in try writer.syncActive() }
    }

    /// Syncs and releases the directory lock; the log refuses appends afterwards.
    public func close() throws(LogError) {
        flusher.withLock { $0?.cancel() }
        try writer.withLock { writer throws(LogError) in try writer.close() }
    }

    deinit {
        flusher.withLock { $0?.cancel() }
        writer.withLock { writer in try? writer.close() }
    }
}
