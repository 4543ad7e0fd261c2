import Glibc

/// The exclusive `flock`s that make their holder a log directory's only writer: on the
/// directory itself, and on its `LOCK` file.
///
/// `flock` locks belong to the open file, so a second writer is refused whether it is in
/// another process or in this one; the lock goes away with the process. The directory's lock
/// is the one that cannot be lost: a lock file can be removed while it is held (a stale-lock
/// cleanup), and a second writer then locks a new file of that name and appends beside the
/// first (an attack run, 2026-12-06); a directory holding a log cannot be removed. `LOCK` is
/// locked too, as the writers before that did.
final class DirectoryLock {
    /// The descriptors locked so far: the directory's, then `LOCK`'s.
    private var descriptors: [Int32] = []

    /// Takes the locks on `directory` and `directory/LOCK`, or throws `.locked` when another
    /// writer holds either.
    init(directory: String) throws(LogError) {
        do throws(LogError) {
            try take(open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), path: directory)
            let path = directory + "/LOCK"
            try take(open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644), path: path)
        } catch {
            // Released here, and `deinit` (which still runs for a class whose initialiser
            // throws once every property is set) finds nothing left to close.
            release()
            throw error
        }
    }

    /// Locks `fd` (just opened from `path`) exclusively and keeps it.
    private func take(_ fd: Int32, path: String) throws(LogError) {
        guard fd >= 0 else { throw posixError("cannot open to lock", path: path) }
        descriptors.append(fd)
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
            throw errno == EWOULDBLOCK
                ? LogError(.locked, "another writer has this log open", path: path)
                : posixError("cannot lock", path: path)
        }
    }

    /// How many times a refused lock is tried again, 2 ms apart, before `.locked`.
    private static let retries = 50

    /// Whether a writer holds the lock on `directory` now (a shared lock cannot be had on the
    /// directory or on its `LOCK`).
    static func isHeld(directory: String) -> Bool {
        [(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), (directory + "/LOCK", O_RDONLY | O_CLOEXEC)].contains {
            path, flags in
            let fd = open(path, flags)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
        }
    }

    /// Releases the locks.
    func release() {
        for fd in descriptors { close(fd) }
        descriptors = []
    }

    deinit { release() }
}
