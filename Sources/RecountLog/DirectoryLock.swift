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
        // A process spawned from this one holds a copy of every descriptor until it execs
        // (`O_CLOEXEC` closes them only then), and with it any lock just released here; so a
        // refusal is retried for a moment before it is reported.
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK && attempts < Self.retries {
                attempts += 1
                usleep(2_000)
                continue
            }
            let error =
                errno == EWOULDBLOCK
                ? LogError(.locked, "another writer has this log open", path: path)
                : posixError("cannot lock", path: path)
            // `release`, not `close`: a class whose initialiser throws once every property is
            // set still runs `deinit`, which would close the number again, by then perhaps
            // another file's descriptor.
            release()
            throw error
        }
    }

    /// How many times a refused lock is tried again, 2 ms apart, before `.locked`.
    private static let retries = 50

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
