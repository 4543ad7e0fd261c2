import Foundation
import Glibc

/// An open file as the log uses it: positioned reads and writes, sync, truncate.
///
/// This is the seam where tests inject write errors, a full disk or a failing fsync.
package protocol LogFile: AnyObject {
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at end of file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(LogError) -> Int
    /// Writes all of `bytes` at `offset`, or throws.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(LogError)
    /// Makes written data durable (`fdatasync`).
    func sync() throws(LogError)
    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws(LogError)
    /// The file's current length.
    func size() throws(LogError) -> Int64
    /// The first `length` bytes mapped read-only into memory, or `nil` when the file cannot be
    /// mapped (then reads go through `read(into:at:)`).
    func map(length: Int) -> MappedFile?
}

extension LogFile {
    package func map(length: Int) -> MappedFile? { nil }
}

/// A read-only memory mapping of a file's first bytes, unmapped when released.
///
/// The log only ever reads committed bytes through a mapping, and never truncates below them,
/// so a mapped read cannot fault.
package final class MappedFile {
    /// The mapped bytes.
    package let bytes: UnsafeRawBufferPointer

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }
}

/// How the log reaches the file system; `PosixFileSystem` in production.
package protocol LogFileSystem: Sendable {
    /// Opens `path` for reading, or for reading and writing (creating it when `create`).
    func open(_ path: String, writable: Bool, create: Bool) throws(LogError) -> any LogFile
    /// Makes the directory's entries durable (after a file was created in it).
    func syncDirectory(_ path: String) throws(LogError)
    /// Renames `path` to `newPath`, replacing any file there (atomic on POSIX file systems).
    func rename(_ path: String, to newPath: String) throws(LogError)
    /// Removes the file at `path`.
    func remove(_ path: String) throws(LogError)
}

extension LogFileSystem {
    /// Replaces the file at `path` with `bytes` atomically: a temporary file, fsync, rename,
    /// fsync of the directory. After a crash the file holds the old bytes or the new ones.
    package func replace(_ path: String, with bytes: [UInt8]) throws(LogError) {
        try replace(path) { file throws(LogError) in try file.write(bytes, at: 0) }
    }

    /// Replaces the file at `path` atomically, as `replace(_:with:)` does, with what `write`
    /// writes into the new file (empty when it is handed over): a file written as it is made,
    /// never held whole.
    package func replace(_ path: String, writing write: (any LogFile) throws(LogError) -> Void) throws(LogError) {
        let temporary = path + ".tmp"
        let file = try open(temporary, writable: true, create: true)
        do {
            try file.truncate(to: 0)
            try write(file)
            try file.sync()
        } catch {
            // A partial file would hold the space a full disk needs back.
            try? remove(temporary)
            throw error
        }
        try rename(temporary, to: path)
        try syncDirectory(parentDirectory(of: path))
    }

    /// The text of the small file at `path` (its first 64 KiB), or `nil` when it cannot be read.
    package func text(of path: String) -> String? {
        guard let file = try? open(path, writable: false, create: false), let size = try? file.size(),
            let bytes = try? file.read(Int(min(size, 1 << 16)), at: 0)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Creates `path` and any missing parents, fsyncing each parent a directory was created in.
    package func createDirectories(_ path: String) throws(LogError) {
        if try Segment.directoryExists(path) { return }
        let parent = parentDirectory(of: path)
        if parent != path { try createDirectories(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw posixError("cannot create the directory", path: path)
        }
        try syncDirectory(parent)
    }
}

/// The directory holding `path` (`.` for a bare name, `/` for the root).
package func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The real file system through POSIX calls.
package struct PosixFileSystem: LogFileSystem {
    package init() {}

    package func open(_ path: String, writable: Bool, create: Bool) throws(LogError) -> any LogFile {
        var flags = writable ? O_RDWR : O_RDONLY
        if create { flags |= O_CREAT }
        let fd = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixError("cannot open", path: path) }
        return PosixFile(fd: fd, path: path)
    }

    package func syncDirectory(_ path: String) throws(LogError) {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("cannot open directory", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw posixError("cannot sync directory", path: path) }
    }

    package func rename(_ path: String, to newPath: String) throws(LogError) {
        guard Glibc.rename(path, newPath) == 0 else { throw posixError("cannot rename to \(newPath)", path: path) }
    }

    package func remove(_ path: String) throws(LogError) {
        guard unlink(path) == 0 else { throw posixError("cannot remove", path: path) }
    }

    /// A new, empty file for scratch data in `directory`, readable and writable, removed from
    /// the directory at once: it has no name, and goes away when closed, even after a crash.
    package func scratchFile(in directory: String) throws(LogError) -> any LogFile {
        let directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        var template = Array((directory + "/recount-scratch-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fd >= 0 else { throw posixError("cannot create a scratch file", path: path) }
        let file = PosixFile(fd: fd, path: path)
        try remove(path)
        return file
    }
}

/// A `LogError` for the failed call that just set `errno`.
package func posixError(_ what: String, path: String, offset: Int64? = nil) -> LogError {
    let code = errno
    return LogError(
        .io, "\(what): \(String(cString: strerror(code)))", path: path, offset: offset, errno: code)
}

/// A file descriptor, closed when the object goes away.
final class PosixFile: LogFile {
    private let fd: Int32
    private let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(LogError) -> Int {
        var total = 0
        while total < buffer.count {
            let n = pread(fd, buffer.baseAddress! + total, buffer.count - total, off_t(offset) + off_t(total))
            if n < 0 {
                if errno == EINTR { continue }
                throw posixError("cannot read", path: path, offset: offset + Int64(total))
            }
            if n == 0 { break }
            total += n
        }
        return total
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(LogError) {
        var total = 0
        while total < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + total, bytes.count - total, off_t(offset) + off_t(total))
            if n < 0 {
                if errno == EINTR { continue }
                throw posixError("cannot write", path: path, offset: offset + Int64(total))
            }
            total += n
        }
    }

    func sync() throws(LogError) {
        guard fdatasync(fd) == 0 else { throw posixError("cannot sync", path: path) }
    }

    func truncate(to length: Int64) throws(LogError) {
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw posixError("cannot truncate", path: path, offset: length)
        }
    }

    func map(length: Int) -> MappedFile? {
        guard length > 0, let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            return nil
        }
        return MappedFile(bytes: UnsafeRawBufferPointer(start: address, count: length))
    }

    func size() throws(LogError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw posixError("cannot stat", path: path) }
        return Int64(info.st_size)
    }
}

extension LogFile {
    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    func read(_ count: Int, at offset: Int64) throws(LogError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var result: Result<Int, LogError> = .success(0)
        bytes.withUnsafeMutableBytes { raw in
            result = Result { () throws(LogError) in try read(into: raw, at: offset) }
        }
        bytes.removeSubrange(try result.get()...)
        return bytes
    }

    /// Writes the first `count` bytes of `bytes` (all of them by default) at `offset`.
    package func write(_ bytes: [UInt8], count: Int? = nil, at offset: Int64) throws(LogError) {
        var failure: LogError?
        bytes.withUnsafeBytes { raw in
            do throws(LogError) {
                try write(UnsafeRawBufferPointer(rebasing: raw[0..<(count ?? raw.count)]), at: offset)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
