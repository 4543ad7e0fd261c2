import Glibc

/// One record as the reader hands it out; `bytes` are valid only inside the reader's callback.
public struct LogRecord {
    /// The record's position.
    public let position: UInt64
    /// The record's bytes, valid only during the callback that received them.
    public let bytes: UnsafeRawBufferPointer
}

/// Reads the records of a log snapshot, checking every frame before decompressing it.
///
/// A reader can run on any thread while the writer appends: it sees the records of its
/// snapshot, never a partly written frame.
public struct LogReader: Sendable {
    /// The extent this reader reads.
    public let snapshot: LogSnapshot
    /// A torn frame found after the committed ones when the reader opened the directory itself
    /// with no writer running (a writer that opens the log will cut it off); preallocated zeros
    /// are not reported.
    public let uncommittedTail: TornTail?
    /// Damage after the committed frames, found as for `uncommittedTail`: a writer would
    /// refuse to open the log. `check()` throws it.
    public let uncommittedDamage: LogError?
    let fileSystem: any LogFileSystem

    init(snapshot: LogSnapshot, fileSystem: any LogFileSystem) {
        self.snapshot = snapshot
        self.fileSystem = fileSystem
        uncommittedTail = nil
        uncommittedDamage = nil
    }

    /// Opens the log in `directory` for reading only, without taking the writer's lock.
    ///
    /// The reader sees what is committed (the commit record's extent), so it never reads a
    /// frame a writer is still writing or a tail a writer will cut. When no writer has the log
    /// open, what follows the committed frames is examined too: a torn frame there is reported
    /// in `uncommittedTail`, damage in `uncommittedDamage` (both left alone).
    ///
    /// - Throws: `.noLog` when `directory` holds no log; `.corruptManifest` or
    ///   `.corruptSegment` when the manifest, commit record and segment files disagree.
    public init(directory: String) throws(LogError) {
        try self.init(directory: directory, fileSystem: PosixFileSystem())
    }

    package init(directory: String, fileSystem: any LogFileSystem) throws(LogError) {
        self.fileSystem = fileSystem
        guard try Segment.directoryExists(directory), let layout = try Self.layout(directory, fileSystem) else {
            throw LogError(.noLog, "no log at \(directory)", path: directory)
        }
        snapshot = LogSnapshot(directory: directory, segments: layout.segments, endPosition: layout.endPosition)
        (uncommittedTail, uncommittedDamage) =
            DirectoryLock.isHeld(directory: directory) ? (nil, nil) : Self.examineTail(of: layout, fileSystem)
    }

    /// The layout, read again when a writer changed the manifest and commit record between
    /// the two reads.
    private static func layout(_ directory: String, _ fileSystem: any LogFileSystem) throws(LogError) -> LogLayout? {
        var attempt = 0
        while true {
            do {
                return try LogLayout.load(directory: directory, fileSystem: fileSystem)
            } catch  where attempt < 5 && DirectoryLock.isHeld(directory: directory) {
                attempt += 1
                usleep(2_000)
            }
        }
    }

    /// What follows the active segment's committed frames, as recovery would see it.
    private static func examineTail(
        of layout: LogLayout, _ fileSystem: any LogFileSystem
    ) -> (TornTail?, LogError?) {
        guard let active = layout.active,
            let file = try? fileSystem.open(active.path, writable: false, create: false),
            let fileLength = try? file.size(), fileLength > active.length
        else { return (nil, nil) }
        var whole = active
        whole.length = fileLength
        // A writer may open the log and cut this tail meanwhile; then there is nothing to say.
        guard
            let tail = try? SegmentScanner(segment: whole, file: file, map: false).scanTail(
                from: active.length, position: active.endPosition, fileLength: fileLength, { _, _ in })
        else { return (nil, nil) }
        switch tail.end {
        case .clean, .preallocated:
            return (nil, nil)
        case .torn(let reason):
            return (
                TornTail(
                    segment: active.path, offset: tail.offset, position: tail.position,
                    bytes: fileLength - tail.offset, reason: reason), nil
            )
        case .corrupt(let reason):
            return (nil, LogError.corruption(reason, path: active.path, offset: tail.offset))
        }
    }

    /// The position after the last record this reader sees.
    public var endPosition: UInt64 { snapshot.endPosition }

    /// Calls `body` with every record from `start` up to (not including) `end`, in order.
    ///
    /// - Throws: `LogError.corruptFrame` naming file and offset for any damaged frame,
    ///   `.positionOutOfRange` when `start` is past the end, or what `body` throws.
    public func forEach(
        from start: UInt64 = Log.firstPosition, to end: UInt64 = .max, _ body: (LogRecord) throws -> Void
    ) throws {
        let end = min(end, snapshot.endPosition)
        guard start <= snapshot.endPosition else {
            throw LogError(
                .positionOutOfRange,
                "position \(start) is past the end of the log (the next record appended gets \(snapshot.endPosition))",
                path: snapshot.directory)
        }
        guard start < end else { return }
        var raw: [UInt8] = []
        try walkFrames(from: start, to: end) { segment, offset, header, stored in
            if header.endPosition <= start { return true }
            try FramePayload.forEachRecord(
                of: header, stored: stored, into: &raw, path: segment.path, offset: offset
            ) { index, bytes in
                let position = header.firstPosition + UInt64(index)
                if position >= start && position < end { try body(LogRecord(position: position, bytes: bytes)) }
            }
            return header.endPosition < end
        }
    }

    /// Reads every frame and record of the snapshot, checking all of them, and reports damage
    /// after the committed frames.
    public func check() throws -> LogStats {
        let stats = try inspect(decodeRecords: true)
        if let uncommittedDamage { throw uncommittedDamage }
        return stats
    }

    /// Counts segments, frames, records and bytes, checking every frame's checksum.
    public func stats() throws -> LogStats {
        try inspect(decodeRecords: false)
    }

    private func inspect(decodeRecords: Bool) throws -> LogStats {
        var stats = LogStats(segments: snapshot.segments.count)
        var raw: [UInt8] = []
        try walkFrames(from: snapshot.startPosition, to: .max) { segment, offset, header, stored in
            stats.frames += 1
            stats.records += UInt64(header.recordCount)
            stats.rawBytes += UInt64(header.rawLength)
            stats.fileBytes += UInt64(header.frameLength)
            if decodeRecords {
                try FramePayload.forEachRecord(
                    of: header, stored: stored, into: &raw, path: segment.path, offset: offset
                ) { _, _ in }
            }
            return true
        }
        return stats
    }

    /// Walks the checked frames holding positions from `start`, across segments, until `body`
    /// returns `false` or the snapshot ends. Positions run on from frame to frame within a
    /// segment; between segments the manifest may record a gap that `repair` left.
    private func walkFrames(
        from start: UInt64, to end: UInt64,
        _ body: (Segment, Int64, FrameHeader, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let segments = snapshot.segments
        guard var first = segments.indices.last else { return }
        while first > 0 && segments[first].firstPosition > start { first -= 1 }
        for (number, segment) in segments[first...].enumerated() {
            let file = try fileSystem.open(segment.path, writable: false, create: false)
            let scanner = SegmentScanner(segment: segment, file: file)
            let (offset, position) = number == 0 ? seek(scanner, to: start) : (0, segment.firstPosition)
            var keepGoing = true
            let reached = try scanner.scan(from: offset, position: position) { offset, header, stored in
                keepGoing = try body(segment, offset, header, stored)
                return keepGoing
            }
            if !keepGoing || reached >= end { return }
            guard reached == segment.endPosition else {
                throw LogError(
                    .corruptSegment, "the segment's frames end at position \(reached), expected \(segment.endPosition)",
                    path: segment.path, offset: segment.length)
            }
        }
    }

    /// The offset and position of the indexed frame at or before `position`, checked against the
    /// segment; the segment's start when the index is missing or disagrees.
    private func seek(_ scanner: SegmentScanner, to position: UInt64) -> (Int64, UInt64) {
        let segment = scanner.segment
        guard position > segment.firstPosition,
            let index = SegmentIndex.load(segment, segmentFile: scanner.file, fileSystem: fileSystem, interval: 0),
            let entry = index.entry(atOrBefore: position),
            index.agrees(position: entry.position, offset: entry.offset, segmentFile: scanner.file)
        else { return (0, segment.firstPosition) }
        return (entry.offset, entry.position)
    }
}

/// What a log holds, counted by `LogReader.stats()` and `check()`.
public struct LogStats: Sendable, Equatable {
    /// Segment files.
    public var segments = 0
    /// Frames (appended batches).
    public var frames: UInt64 = 0
    /// Records.
    public var records: UInt64 = 0
    /// Record bytes before compression, length prefixes included.
    public var rawBytes: UInt64 = 0
    /// Bytes of frames on disk, headers included.
    public var fileBytes: UInt64 = 0

    /// All counts zero: an empty log.
    public init() {}

    package init(segments: Int) { self.segments = segments }

    /// Raw bytes per byte on disk.
    public var compressionRatio: Double { fileBytes == 0 ? 1 : Double(rawBytes) / Double(fileBytes) }
}
