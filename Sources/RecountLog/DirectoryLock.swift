import Glibc

/// The exclusive `flock` on a log directory's `LOCK` file that makes its holder the only writer.
///
/// `flock` locks belong to the open file, so a second writer is refused whether it is in
/// another process or in this one; the lock goes away with the process.
final class DirectoryLock {
    private var fd: Int32

    /// Takes the lock on `directory/LOCK`, or throws `.locked` when another writer holds it.
    init(directory: String) throws(LogError) {
        let path = directory + "/LOCK"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixError("cannot open the lock file", path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error =
                errno == EWOULDBLOCK
                ? LogError(.locked, "another writer has this log open", path: path)
                : posixError("cannot lock", path: path)
            close(fd)
            throw error
        }
    }

    /// Whether a writer holds the lock on `directory` now (a shared lock cannot be had).
    static func isHeld(directory: String) -> Bool {
        let fd = open(directory + "/LOCK", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Releases the lock.
    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
