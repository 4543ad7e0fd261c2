import Glibc
import Synchronization

@testable import RecountLog

/// A file system that fails on cue: the Nth write (optionally after writing part of it, as a
/// full disk does), or every sync from some point.
final class FaultyFileSystem: LogFileSystem {
    struct Plan {
        /// Fail the write with this 1-based number (counting segment writes only).
        var failWrite: Int? = nil
        /// Bytes of the failing write that reach the file before it fails.
        var partialBytes = 0
        /// The errno of the failure.
        var errno: Int32 = ENOSPC
        /// Fail syncs of segment files from this 1-based sync (of a segment file) on.
        var failSyncFrom: Int? = nil
        /// Fail syncs of directories from this 1-based directory sync on.
        var failDirectorySyncFrom: Int? = nil
        /// Refuse every segment write larger than this many bytes with `errno` (a nearly full
        /// disk, or a file-size limit).
        var roomForBytes: Int? = nil
        /// Room for this many bytes in all in copies of cut-off bytes (`FILE.cut-OFFSET`): a
        /// write past it writes what fits, then fails with ENOSPC.
        var roomForCutBytes: Int? = nil
    }

    let plan: Mutex<Plan>
    let writes = Atomic<Int>(0)
    let syncs = Atomic<Int>(0)
    let directorySyncs = Atomic<Int>(0)
    /// Bytes written to copies of cut-off bytes.
    let cutBytes = Atomic<Int>(0)
    /// The directories synced, in order.
    let syncedDirectories = Mutex<[String]>([])
    private let real = PosixFileSystem()

    init(_ plan: Plan) { self.plan = Mutex(plan) }

    func open(_ path: String, writable: Bool, create: Bool) throws(LogError) -> any LogFile {
        let file = try real.open(path, writable: writable, create: create)
        return path.hasSuffix(".seg") || path.contains(".cut-") ? FaultyFile(file: file, owner: self, path: path) : file
    }

    func syncDirectory(_ path: String) throws(LogError) {
        syncedDirectories.withLock { $0.append(path) }
        let number = directorySyncs.add(1, ordering: .relaxed).newValue
        if let from = plan.withLock({ $0.failDirectorySyncFrom }), number >= from {
            throw LogError(.io, "injected directory fsync failure", path: path, errno: EIO)
        }
        try real.syncDirectory(path)
    }

    func rename(_ path: String, to newPath: String) throws(LogError) { try real.rename(path, to: newPath) }
    func remove(_ path: String) throws(LogError) { try real.remove(path) }
}

final class FaultyFile: LogFile {
    let file: any LogFile
    let owner: FaultyFileSystem
    let path: String

    init(file: any LogFile, owner: FaultyFileSystem, path: String) {
        self.file = file
        self.owner = owner
        self.path = path
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(LogError) -> Int {
        try file.read(into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(LogError) {
        if path.contains(".cut-") { return try writeCut(bytes, at: offset) }
        let number = owner.writes.add(1, ordering: .relaxed).newValue
        let plan = owner.plan.withLock { $0 }
        if let room = plan.roomForBytes, bytes.count > room {
            throw LogError(.io, "injected full disk", path: path, offset: offset, errno: plan.errno)
        }
        if number == plan.failWrite {
            let partial = min(plan.partialBytes, bytes.count)
            if partial > 0 { try file.write(UnsafeRawBufferPointer(rebasing: bytes[0..<partial]), at: offset) }
            throw LogError(.io, "injected write failure", path: path, offset: offset, errno: plan.errno)
        }
        try file.write(bytes, at: offset)
    }

    /// A write to a copy of cut-off bytes, within `Plan.roomForCutBytes`.
    private func writeCut(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(LogError) {
        let room = owner.plan.withLock { $0.roomForCutBytes } ?? .max
        let used = owner.cutBytes.add(bytes.count, ordering: .relaxed).newValue
        guard used > room else { return try file.write(bytes, at: offset) }
        let fits = max(0, bytes.count - (used - room))
        if fits > 0 { try file.write(UnsafeRawBufferPointer(rebasing: bytes[0..<fits]), at: offset) }
        throw LogError(.io, "injected full disk", path: path, offset: offset + Int64(fits), errno: ENOSPC)
    }

    func sync() throws(LogError) {
        let number = owner.syncs.add(1, ordering: .relaxed).newValue
        if let from = owner.plan.withLock({ $0.failSyncFrom }), number >= from {
            throw LogError(.io, "injected fsync failure", path: path, errno: EIO)
        }
        try file.sync()
    }

    func truncate(to length: Int64) throws(LogError) { try file.truncate(to: length) }
    func size() throws(LogError) -> Int64 { try file.size() }
}
