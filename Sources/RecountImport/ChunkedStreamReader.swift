import Foundation

/// Reads an `InputStream` in large chunks and hands its bytes out in the small reads a parser
/// makes.
///
/// libxml2 asks for about 4 000 bytes at a time; each `InputStream` read is a call through
/// Foundation and, for a file, a system call. Reading a megabyte at a time and copying out of it
/// makes the stream's cost per byte negligible, with memory still flat.
final class ChunkedStreamReader {
    /// The stream read from (opened and closed by the caller).
    private let stream: InputStream
    /// The last chunk read.
    private var chunk: [UInt8]
    /// Where the unread bytes of `chunk` start.
    private var start = 0
    /// Where they end.
    private var end = 0

    /// Creates a reader.
    /// - Parameters:
    ///   - stream: the stream, already open.
    ///   - chunkSize: bytes per read of the stream.
    init(stream: InputStream, chunkSize: Int = 1 << 20) {
        self.stream = stream
        chunk = [UInt8](repeating: 0, count: chunkSize)
    }

    /// Copies the stream's next bytes into `buffer`.
    /// - Returns: how many bytes were copied; 0 at the end of the stream, or the stream's negative
    ///   result when a read failed.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if start == end {
            let count = chunk.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
            guard count > 0 else { return count }
            start = 0
            end = count
        }
        let count = min(buffer.count, end - start)
        chunk.withUnsafeBytes { bytes in
            buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: count)
        }
        start += count
        return count
    }
}
