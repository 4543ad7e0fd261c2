/// What the writer finds when it opens a log directory: the checked layout, every frame
/// verified, indexes rebuilt where their hints disagree, and a torn tail cut off.
struct LogOpening {
    var writer: LogWriter
    var recovery: TornTail?
    var rebuiltIndexes: [String] = []

    init(directory: String, configuration: LogConfiguration, lock: DirectoryLock) throws(LogError) {
        let fileSystem = configuration.fileSystem
        let commitPath = directory + "/" + CommitPoint.fileName
        let layout: LogLayout
        if let existing = try LogLayout.load(directory: directory, fileSystem: fileSystem) {
            layout = existing
        } else {
            layout = try Self.create(directory: directory, fileSystem: fileSystem)
        }
        for leftover in layout.leftovers {
            try fileSystem.remove(leftover.path)
            try? fileSystem.remove(leftover.indexPath)
        }
        if !layout.leftovers.isEmpty { try fileSystem.syncDirectory(directory) }
        for segment in layout.sealed {
            if try Self.verify(segment, fileSystem: fileSystem, interval: configuration.indexInterval) {
                rebuiltIndexes.append(segment.path)
            }
        }
        writer = LogWriter(
            directory: directory, configuration: configuration, lock: lock, sealed: layout.sealed, active: nil,
            nextPosition: layout.endPosition,
            commitFile: try fileSystem.open(commitPath, writable: true, create: false), commit: layout.commit)
        if let active = layout.active {
            try recoverActive(active, fileSystem: fileSystem)
        }
        if layout.commit.reservedEnd > writer.nextPosition {
            try skipReservedPositions(to: layout.commit.reservedEnd, fileSystem: fileSystem)
        }
    }

    /// After a crash, positions up to the unreleased reservation may have been handed out for
    /// batches that are now lost: the active segment is sealed and the next one will start
    /// after the reservation, so none of them is given again.
    private mutating func skipReservedPositions(to end: UInt64, fileSystem: any LogFileSystem) throws(LogError) {
        if var active = writer.active {
            try active.trim()
            try active.file.sync()
            writer.sealed.append(active.segment)
            writer.active = nil
        }
        try writer.manifest(active: nil).write(directory: writer.directory, fileSystem: fileSystem)
        writer.nextPosition = end
        try writer.recordCommit()
    }

    /// Starts an empty log: a commit record, then the manifest that marks the directory a log.
    private static func create(directory: String, fileSystem: any LogFileSystem) throws(LogError) -> LogLayout {
        let commit = CommitPoint(
            sequence: 1, endPosition: Log.firstPosition, segment: nil, segmentLength: 0, reservedEnd: Log.firstPosition)
        let file = try fileSystem.open(directory + "/" + CommitPoint.fileName, writable: true, create: true)
        try file.truncate(to: 0)
        try commit.write(to: file)
        try fileSystem.syncDirectory(directory)
        try LogManifest(entries: []).write(directory: directory, fileSystem: fileSystem)
        return LogLayout(sealed: [], active: nil, commit: commit, endPosition: Log.firstPosition, leftovers: [])
    }

    /// Checks every frame of a sealed segment and its end against the manifest, and rewrites
    /// its index when the hint on disk disagrees. Returns whether it did.
    private static func verify(
        _ segment: Segment, fileSystem: any LogFileSystem, interval: Int64
    ) throws(LogError) -> Bool {
        let file = try fileSystem.open(segment.path, writable: false, create: false)
        let index = try withLogErrors(path: segment.path) {
            try SegmentIndex.build(segment, file: file, interval: interval)
        }
        guard SegmentIndex.load(segment, segmentFile: file, fileSystem: fileSystem, interval: interval) != index else {
            return false
        }
        let indexFile = try fileSystem.open(segment.indexPath, writable: true, create: true)
        try indexFile.truncate(to: 0)
        try indexFile.write(index.encoded(), at: 0)
        return true
    }

    /// Checks the active segment's committed frames, keeps whole frames written after them,
    /// cuts a torn tail (keeping an exact copy) and refuses anything else.
    private mutating func recoverActive(_ committed: Segment, fileSystem: any LogFileSystem) throws(LogError) {
        let file = try fileSystem.open(committed.path, writable: true, create: false)
        let fileLength = try file.size()
        let interval = writer.configuration.indexInterval
        var index = try withLogErrors(path: committed.path) {
            try SegmentIndex.build(committed, file: file, interval: interval)
        }
        var whole = committed
        whole.length = fileLength
        let tail = try withLogErrors(path: committed.path) {
            try SegmentScanner(segment: whole, file: file, map: false).scanTail(
                from: committed.length, position: committed.endPosition, fileLength: fileLength
            ) { offset, header in index.note(position: header.firstPosition, offset: offset) }
        }
        switch tail.end {
        case .clean, .preallocated:
            break
        case .torn(let reason):
            recovery = TornTail(
                segment: committed.path, offset: tail.offset, position: tail.position, bytes: fileLength - tail.offset,
                reason: reason,
                savedTo: try LogCut.save(committed.path, file: file, from: tail.offset, fileSystem: fileSystem))
        case .corrupt(let reason):
            // The damage alone: the command line adds how to repair it (`LogError.isDamage`).
            throw LogError.corruption(reason, path: committed.path, offset: tail.offset)
        }
        if tail.offset < fileLength {
            try file.truncate(to: tail.offset)
        }
        let indexFile = try fileSystem.open(committed.indexPath, writable: true, create: true)
        try indexFile.truncate(to: 0)
        try indexFile.write(index.encoded(), at: 0)
        var segment = committed
        segment.length = tail.offset
        segment.endPosition = tail.position
        writer.active = ActiveSegment(
            segment: segment, file: file, index: index, indexFile: indexFile, allocated: tail.offset)
        writer.nextPosition = tail.position
        // Frames kept after the old commit point, and the cut, are made durable and committed.
        if tail.offset != committed.length || tail.offset != fileLength {
            try file.sync()
            try writer.recordCommit()
        }
    }
}
