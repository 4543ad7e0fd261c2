/// A read buffer over a file: hands out byte ranges, reading ahead in large chunks.
final class FileWindow {
    private let file: any LogFile
    private var buffer: UnsafeMutableRawBufferPointer
    private var start: Int64 = 0
    private var filled = 0
    private static let chunk = 1 << 20

    init(file: any LogFile) {
        self.file = file
        buffer = .allocate(byteCount: Self.chunk, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The `count` bytes at `offset`, valid until the next call; the caller has checked they exist.
    func bytes(at offset: Int64, count: Int, path: String) throws(LogError) -> UnsafeRawBufferPointer {
        if offset < start || offset + Int64(count) > start + Int64(filled) {
            if count > buffer.count {
                buffer.deallocate()
                buffer = .allocate(byteCount: count, alignment: 16)
            }
            start = offset
            filled = try file.read(into: buffer, at: offset)
            guard filled >= count else {
                filled = 0
                throw LogError(.io, "the file ended before a frame it holds", path: path, offset: offset)
            }
        }
        let from = Int(offset - start)
        return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[from..<(from + count)])
    }
}
