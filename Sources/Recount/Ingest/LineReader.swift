import Glibc

/// Reads NDJSON lines from a file descriptor in large chunks, splitting on `\n` bytes only
/// (a U+2028 inside a JSON string is not a line break).
package final class LineReader {
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// The input's name in errors: its path, or `-` for standard input.
    private let source: String
    private var buffer: [UInt8] = []
    private var start = 0
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
        atEnd = true
    }

    /// Opens `path` for reading.
    package init(path: String) throws(IngestFileError) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IngestFileError(path: path, reason: String(cString: strerror(errno))) }
        ownsDescriptor = true
        source = path
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Calls `body` with the next line's bytes (without the line break and a trailing `\r`);
    /// returns `false` at the end of the input. Lines longer than `limit` are cut at `limit + 1`
    /// bytes so the caller can reject them without holding them whole.
    package func next<T>(limit: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        while true {
            if let newline = nextNewline() {
                defer { start = newline + 1 }
                lineNumber += 1
                return try line(start..<newline, limit: limit, body)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                lineNumber += 1
                return try line(start..<buffer.count, limit: limit, body)
            }
            try fill()
        }
    }

    /// The index of the next `\n` in the buffer from `start` (memchr: lines can be megabytes).
    private func nextNewline() -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBytes { bytes in
            memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start).map {
                $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
            }
        }
    }

    private func line<T>(_ range: Range<Int>, limit: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        var range = range
        if range.count > 0, buffer[range.upperBound - 1] == UInt8(ascii: "\r") {
            range = range.lowerBound..<(range.upperBound - 1)
        }
        if range.count > limit + 1 { range = range.lowerBound..<(range.lowerBound + limit + 1) }
        return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    private func fill() throws {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunk))
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, Self.chunk) }
        if n < 0 {
            buffer.removeSubrange(old...)
            if errno == EINTR { return }
            throw IngestFileError(path: source, reason: String(cString: strerror(errno)))
        }
        buffer.removeSubrange((old + n)...)
        if n == 0 { atEnd = true }
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
