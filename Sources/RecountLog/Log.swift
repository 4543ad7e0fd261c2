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

    /// The log directory.
    public let directory: String
    /// What the log was opened with.
    public let configuration: LogConfiguration
    /// The torn tail cut off on open, if there was one.
    public let recovery: TornTail?
    /// Sealed segments whose index file was missing or disagreed with the segment, and was
    /// rebuilt on open.
    public let rebuiltIndexes: [String]

    private let writer: Mutex<Writer>
    private let published: Mutex<LogSnapshot>
    /// With group commit, a timer that syncs batches older than `maxDelay` when appends stop.
    private let flusher = Mutex<LogFlusher?>(nil)

    /// Opens (creating it when missing) the log in `directory` as its only writer.
    ///
    /// - Throws: `LogError` with `.locked` when another writer has it open, `.corruptFrame` or
    ///   `.corruptSegment` for damage before the tail, `.io` for file-system failures.
    public init(directory: String, configuration: LogConfiguration = LogConfiguration()) throws(LogError) {
        let fileSystem = configuration.fileSystem
        if try !Segment.directoryExists(directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw LogError(.io, "cannot create the log directory: \(error)", path: directory)
            }
        }
        let lock = try DirectoryLock(directory: directory)
        var segments = try Segment.list(in: directory)
        var writer = Writer(
            directory: directory, configuration: configuration, lock: lock, sealed: [],
            nextPosition: segments.first?.firstPosition ?? Self.firstPosition)
        var tornTail: TornTail? = nil
        var rebuilt: [String] = []
        for segment in segments.dropLast() {
            let file = try fileSystem.open(segment.path, writable: false, create: false)
            let interval = configuration.indexInterval
            if SegmentIndex.load(segment, segmentFile: file, fileSystem: fileSystem, interval: interval) == nil {
                _ = try SegmentIndex.rebuild(segment, segmentFile: file, fileSystem: fileSystem, interval: interval)
                rebuilt.append(segment.path)
            }
        }
        if var last = segments.popLast() {
            let file = try fileSystem.open(last.path, writable: true, create: false)
            var index = SegmentIndex(interval: configuration.indexInterval)
            var end = last.firstPosition
            let torn = try withLogErrors(path: last.path) {
                try SegmentScanner(segment: last, file: file).scan(isLast: true) { offset, header, _ in
                    index.note(position: header.firstPosition, offset: offset)
                    end = header.endPosition
                    return true
                }
            }
            if let torn {
                if !torn.isPreallocated {
                    tornTail = TornTail(
                        segment: last.path, offset: torn.offset, position: torn.position, bytes: torn.bytes,
                        reason: torn.reason,
                        savedTo: try Self.saveCutBytes(of: last, file: file, from: torn.offset, fileSystem: fileSystem))
                }
                try file.truncate(to: torn.offset)
                try file.sync()
                last.length = torn.offset
            }
            let indexFile = try fileSystem.open(last.indexPath, writable: true, create: true)
            try indexFile.truncate(to: 0)
            try indexFile.write(index.encoded(), at: 0)
            writer.sealed = segments
            writer.active = ActiveSegment(
                segment: last, file: file, index: index, indexFile: indexFile, allocated: last.length)
            writer.nextPosition = end
        }
        self.directory = directory
        self.configuration = configuration
        self.recovery = tornTail
        self.rebuiltIndexes = rebuilt
        self.published = Mutex(writer.snapshot)
        self.writer = Mutex(writer)
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
        let (positions, snapshot) = try writer.withLock { writer throws(LogError) in
            let positions = try writer.append(batch)
            return (positions, writer.snapshot)
        }
        if !positions.isEmpty { published.withLock { $0 = snapshot } }
        return positions
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

/// The segment being appended to.
struct ActiveSegment {
    var segment: Segment
    let file: any LogFile
    var index: SegmentIndex
    let indexFile: any LogFile
    /// The file's length: committed frames, then zeros written ahead of them.
    var allocated: Int64

    /// Bytes of zeros written ahead at a time.
    static let preallocation: Int64 = 4 << 20

    /// Cuts the zeros written ahead, leaving exactly the committed frames.
    mutating func trim() throws(LogError) {
        guard allocated > segment.length else { return }
        try file.truncate(to: segment.length)
        allocated = segment.length
    }
}

/// The writer's state, guarded by the log's mutex.
struct Writer {
    let directory: String
    let configuration: LogConfiguration
    var lock: DirectoryLock?
    var sealed: [Segment]
    var active: ActiveSegment?
    var nextPosition: UInt64
    /// The frame being written, reused from batch to batch.
    private var frame: [UInt8] = []
    private var unsyncedBytes = 0
    private var oldestUnsynced: ContinuousClock.Instant?
    private var failure: LogError?

    init(
        directory: String, configuration: LogConfiguration, lock: DirectoryLock, sealed: [Segment], nextPosition: UInt64
    ) {
        self.directory = directory
        self.configuration = configuration
        self.lock = lock
        self.sealed = sealed
        self.nextPosition = nextPosition
    }

    var snapshot: LogSnapshot {
        LogSnapshot(
            directory: directory, segments: sealed + (active.map { [$0.segment] } ?? []), endPosition: nextPosition)
    }

    mutating func append(_ batch: LogBatch) throws(LogError) -> Range<UInt64> {
        try checkUsable()
        guard !batch.isEmpty else { return nextPosition..<nextPosition }
        let frameLength = encodeFrame(batch)
        if active == nil
            || (active!.segment.length > 0 && active!.segment.length + Int64(frameLength) > configuration.segmentBytes)
        {
            try roll()
        }
        let segment = active!.segment
        do {
            try preallocate(upTo: segment.length + Int64(frameLength))
            try active!.file.write(frame, count: frameLength, at: segment.length)
        } catch {
            do { try active!.file.truncate(to: segment.length) } catch { failure = error }
            active!.allocated = segment.length
            throw error
        }
        if active!.index.note(position: nextPosition, offset: segment.length) {
            let entry = SegmentIndex.encodeEntry(position: nextPosition, offset: segment.length)
            let at = Int64(active!.index.positions.count - 1) * 16
            // The index is a hint, checked when used: a failed write costs a rescan, never data.
            try? active!.indexFile.write(entry, at: at)
        }
        active!.segment.length += Int64(frameLength)
        let positions = nextPosition..<(nextPosition + UInt64(batch.count))
        nextPosition = positions.upperBound
        unsyncedBytes += frameLength
        switch configuration.durability {
        case .everyBatch:
            try syncActive()
        case .groupCommit(let maxBytes, let maxDelay):
            if oldestUnsynced == nil { oldestUnsynced = ContinuousClock.now }
            if unsyncedBytes >= maxBytes { try syncActive() } else { try syncIfOlder(than: maxDelay) }
        case .none:
            break
        }
        return positions
    }

    /// Compresses the batch into `frame` behind its header; returns the frame's length.
    private mutating func encodeFrame(_ batch: LogBatch) -> Int {
        let needed = FrameHeader.size + LZ4Block.compressBound(batch.byteCount)
        if frame.count < needed { frame = [UInt8](repeating: 0, count: needed) }
        let first = nextPosition
        return frame.withUnsafeMutableBytes { frame in
            let body = UnsafeMutableRawBufferPointer(rebasing: frame[FrameHeader.size...])
            var stored = batch.payload.withUnsafeBytes { LZ4Block.compress($0, into: body) }
            let compressed = stored > 0 && stored < batch.byteCount
            if !compressed {
                batch.payload.withUnsafeBytes { body.copyMemory(from: $0) }
                stored = batch.byteCount
            }
            var header = FrameHeader(
                compressed: compressed, firstPosition: first, recordCount: UInt32(batch.count),
                rawLength: UInt32(batch.byteCount), storedLength: UInt32(stored), checksum: 0)
            header.encode(
                into: UnsafeMutableRawBufferPointer(rebasing: frame[0..<FrameHeader.size]),
                payload: UnsafeRawBufferPointer(rebasing: body[0..<stored]))
            return FrameHeader.size + stored
        }
    }

    /// Writes zeros ahead of the committed frames so that most appends overwrite allocated space
    /// and `fdatasync` need not journal a new file size (about 5× fewer milliseconds per sync).
    private mutating func preallocate(upTo end: Int64) throws(LogError) {
        guard end > active!.allocated else { return }
        let target = max(end, min(active!.allocated + ActiveSegment.preallocation, configuration.segmentBytes))
        let zeros = [UInt8](repeating: 0, count: Int(target - active!.allocated))
        try active!.file.write(zeros, at: active!.allocated)
        active!.allocated = target
    }

    /// Seals the active segment and starts a new one named by the next position.
    private mutating func roll() throws(LogError) {
        if var active {
            do { try active.trim() } catch {
                failure = error
                throw error
            }
            self.active = active
            if configuration.durability != .none { try syncActive(force: true) }
            sealed.append(active.segment)
            self.active = nil
        }
        let fileSystem = configuration.fileSystem
        let segment = Segment(
            firstPosition: nextPosition, path: directory + "/" + Segment.fileName(firstPosition: nextPosition),
            length: 0)
        let file = try fileSystem.open(segment.path, writable: true, create: true)
        guard try file.size() == 0 else {
            throw LogError(.corruptSegment, "a segment for the next position already holds data", path: segment.path)
        }
        let indexFile = try fileSystem.open(segment.indexPath, writable: true, create: true)
        try indexFile.truncate(to: 0)
        do { try fileSystem.syncDirectory(directory) } catch {
            failure = error
            throw error
        }
        active = ActiveSegment(
            segment: segment, file: file, index: SegmentIndex(interval: configuration.indexInterval),
            indexFile: indexFile,
            allocated: 0)
    }

    /// Fsyncs when the oldest unsynced batch has waited at least `delay`.
    mutating func syncIfOlder(than delay: Duration) throws(LogError) {
        guard lock != nil, failure == nil, let oldest = oldestUnsynced, ContinuousClock.now - oldest >= delay else {
            return
        }
        try syncActive()
    }

    /// Fsyncs the active segment; a failure stops the log (it never retries and carries on).
    mutating func syncActive(force: Bool = false) throws(LogError) {
        try checkUsable()
        guard unsyncedBytes > 0 || force, let active else { return }
        do {
            try active.file.sync()
        } catch {
            failure = error
            throw error
        }
        unsyncedBytes = 0
        oldestUnsynced = nil
    }

    private func checkUsable() throws(LogError) {
        if let failure {
            throw LogError(
                .failStopped, "the log stopped after a failed write or sync (\(failure)); reopen it", path: directory)
        }
        guard lock != nil else { throw LogError(.closed, "the log is closed", path: directory) }
    }

    mutating func close() throws(LogError) {
        guard lock != nil else { return }
        defer {
            lock?.release()
            lock = nil
            active = nil
        }
        guard failure == nil else { return }
        if active != nil {
            do { try active!.trim() } catch {
                failure = error
                throw error
            }
        }
        try syncActive(force: true)
    }
}

extension Log {
    /// Copies the bytes of `segment` from `offset` to its end, trailing zeros left out, to a new
    /// file beside it (`SEGMENT.cut-OFFSET`, numbered if that exists), durably, before recovery
    /// cuts them off. Recovery cannot tell a frame torn by a crash from a whole frame damaged
    /// later, so it keeps the bytes rather than lose a committed batch without a trace.
    /// - Returns: the new file's path.
    fileprivate static func saveCutBytes(
        of segment: Segment, file: any LogFile, from offset: Int64, fileSystem: any LogFileSystem
    ) throws(LogError) -> String {
        let bytes = try file.read(Int(segment.length - offset), at: offset)
        let end = bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        var path = "\(segment.path).cut-\(offset)"
        var copy = 1
        while FileManager.default.fileExists(atPath: path) {
            path = "\(segment.path).cut-\(offset).\(copy)"
            copy += 1
        }
        let saved = try fileSystem.open(path, writable: true, create: true)
        try saved.write(bytes, count: end, at: 0)
        try saved.sync()
        try fileSystem.syncDirectory((segment.path as NSString).deletingLastPathComponent)
        return path
    }
}
