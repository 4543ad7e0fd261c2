import Glibc

/// Reads NDJSON lines from a file descriptor in large chunks, splitting on `\n` bytes only
/// (a U+2028 inside a JSON string is not a line break).
///
/// Each byte is searched for a line break once, however long its line, and memory stays within
/// the line limit and a chunk: a longer line is skipped to its end chunk by chunk and reported
/// by its length alone.
package final class LineReader {
    /// One line of the input.
    package enum Line {
        /// The line's bytes, without the line break and a trailing `\r`.
        case bytes(UnsafeRawBufferPointer)
        /// A line over the limit, skipped unread: its length in bytes (without the line break
        /// and a trailing `\r`).
        case tooLong(Int)
    }

    /// What `next` found.
    package enum Next<T> {
        /// The next line, as `body` made it.
        case line(T)
        /// The wait limit passed before a whole line arrived; calling `next` again goes on.
        case timedOut
        /// The input has no more lines.
        case end
    }

    /// How long `next` may wait for input that has not arrived yet.
    package struct WaitLimit {
        /// Give up after this long without any input.
        package var idle: Duration
        /// Give up at this instant, however the input trickles in.
        package var deadline: ContinuousClock.Instant

        package init(idle: Duration, deadline: ContinuousClock.Instant) {
            self.idle = idle
            self.deadline = deadline
        }
    }

    private let fd: Int32
    private let ownsDescriptor: Bool
    /// The input's name in errors: its path, or `-` for standard input.
    private let source: String
    /// The bytes read and not yet returned are `buffer[start..<end]`; the rest is room to read into.
    private var buffer: [UInt8] = []
    private var end = 0
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// `buffer[start..<scanned]` holds no `\n`: the search for the line's end goes on from here.
    private var scanned = 0
    /// Bytes of an over-long line already dropped from the buffer, while skipping it.
    private var skipped: Int?
    /// The last byte dropped while skipping (a `\r` before the line break is not counted).
    private var lastSkipped: UInt8 = 0
    private var atEnd = false
    /// The 1-based number of the line last returned.
    package private(set) var lineNumber = 0
    private static let chunk = 1 << 20

    /// Reads standard input.
    package init() {
        fd = 0
        ownsDescriptor = false
        source = "-"
    }

    /// Reads lines held in memory.
    package init(bytes: [UInt8], source: String) {
        fd = -1
        ownsDescriptor = false
        self.source = source
        buffer = bytes
        end = bytes.count
        atEnd = true
    }

    /// Opens `path` for reading; a directory is refused here rather than at the first read.
    package init(path: String) throws(IngestFileError) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IngestFileError(path: path, reason: String(cString: strerror(errno))) }
        ownsDescriptor = true
        source = path
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw IngestFileError(path: path, reason: String(cString: strerror(EISDIR)))
        }
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Calls `body` with the next line and returns what it returns.
    ///
    /// - Parameters:
    ///   - limit: lines longer than this many bytes are skipped and given as `.tooLong`.
    ///   - wait: how long to wait for more input before returning `.timedOut` (`nil`: as long
    ///     as it takes). Input held in memory or in a regular file never waits.
    /// - Throws: `IngestFileError` when reading fails, or what `body` throws.
    package func next<T>(limit: Int, wait: WaitLimit? = nil, _ body: (Line) throws -> T) throws -> Next<T> {
        while true {
            if let newline = nextNewline() {
                defer {
                    start = newline + 1
                    scanned = start
                }
                lineNumber += 1
                return .line(try line(start..<newline, limit: limit, body))
            }
            if atEnd {
                guard start < end || skipped != nil else { return .end }
                defer {
                    start = end
                    scanned = start
                }
                lineNumber += 1
                return .line(try line(start..<end, limit: limit, body))
            }
            if skipped != nil || end - start > limit + 1 {
                // Even without a trailing `\r` the line is over the limit: drop what is held.
                skipped = (skipped ?? 0) + end - start
                if end > start { lastSkipped = buffer[end - 1] }
                start = 0
                end = 0
                scanned = 0
            }
            guard try fill(wait) else { return .timedOut }
        }
    }

    /// The index of the next `\n` in the buffer, searching only bytes not searched before.
    private func nextNewline() -> Int? {
        guard scanned < end else { return nil }
        let found = buffer.withUnsafeBytes { bytes in
            memchr(bytes.baseAddress! + scanned, 0x0A, end - scanned).map {
                $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
            }
        }
        if found == nil { scanned = end }
        return found
    }

    /// Gives `body` the line in `range` of the buffer (after any bytes of it already skipped).
    private func line<T>(_ range: Range<Int>, limit: Int, _ body: (Line) throws -> T) throws -> T {
        var range = range
        if let dropped = skipped {
            skipped = nil
            let last = range.isEmpty ? lastSkipped : buffer[range.upperBound - 1]
            return try body(.tooLong(dropped + range.count - (last == UInt8(ascii: "\r") ? 1 : 0)))
        }
        if range.count > 0, buffer[range.upperBound - 1] == UInt8(ascii: "\r") {
            range = range.lowerBound..<(range.upperBound - 1)
        }
        guard range.count <= limit else { return try body(.tooLong(range.count)) }
        return try buffer.withUnsafeBytes { try body(.bytes(UnsafeRawBufferPointer(rebasing: $0[range]))) }
    }

    /// Reads the next chunk; returns `false` when `wait` ran out before any input arrived.
    private func fill(_ wait: WaitLimit?) throws -> Bool {
        if start > 0 {
            buffer.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + start, end - start) }
            end -= start
            scanned -= start
            start = 0
        }
        if buffer.count - end < Self.chunk {
            // Grows only while lines grow, up to the line limit and a chunk.
            buffer += [UInt8](unsafeUninitializedCapacity: Self.chunk) { _, count in count = Self.chunk }
        }
        if let wait, try !inputArrives(within: wait) { return false }
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, Self.chunk) }
        if n < 0 {
            if errno == EINTR { return true }
            throw IngestFileError(path: source, reason: String(cString: strerror(errno)))
        }
        end += n
        if n == 0 { atEnd = true }
        return true
    }

    /// Waits until the input can be read (or is at its end), or `wait` runs out.
    private func inputArrives(within wait: WaitLimit) throws(IngestFileError) -> Bool {
        let now = ContinuousClock.now
        guard now < wait.deadline else { return false }
        let timeout = min(wait.idle, now.duration(to: wait.deadline)).components
        let milliseconds = timeout.seconds * 1000 + (timeout.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
        if ready < 0 {
            // Interrupted: report a timeout, and the caller asks again.
            if errno == EINTR { return false }
            throw IngestFileError(path: source, reason: String(cString: strerror(errno)))
        }
        return ready > 0
    }
}

/// An input file that cannot be read.
public struct IngestFileError: Error, CustomStringConvertible {
    /// The input's path.
    public var path: String
    /// The operating system's reason.
    public var reason: String
    /// `cannot read PATH: REASON`.
    public var description: String { "cannot read \(path): \(reason)" }
}
