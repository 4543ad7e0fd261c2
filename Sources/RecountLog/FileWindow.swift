/// Hands out byte ranges of a file's first `length` bytes: from a memory mapping when the file
/// can be mapped and `map` allows it (no copy), else from a buffer read ahead in large chunks.
///
/// Map only bytes that nobody will truncate while the window lives (committed frames): a
/// mapped page past the end of a file faults. Bytes that a writer may still cut (an
/// uncommitted tail) are read with `pread`.
final class FileWindow {
    private let file: any LogFile
    private let mapped: MappedFile?
    private var buffer: UnsafeMutableRawBufferPointer
    private var start: Int64 = 0
    private var filled = 0
    private static let chunk = 1 << 20

    init(file: any LogFile, length: Int64, map: Bool = true) {
        self.file = file
        mapped = map ? file.map(length: Int(length)) : nil
        buffer = .allocate(byteCount: mapped == nil ? Self.chunk : 0, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The `count` bytes at `offset`, valid until the next call; the caller has checked they
    /// exist within the window's length.
    func bytes(at offset: Int64, count: Int, path: String) throws(LogError) -> UnsafeRawBufferPointer {
        if let mapped, offset >= 0, offset + Int64(count) <= Int64(mapped.bytes.count) {
            return UnsafeRawBufferPointer(rebasing: mapped.bytes[Int(offset)..<(Int(offset) + count)])
        }
        if offset < start || offset + Int64(count) > start + Int64(filled) {
            if count > buffer.count {
                buffer.deallocate()
                buffer = .allocate(byteCount: max(count, Self.chunk), alignment: 16)
            }
            start = offset
            filled = try file.read(into: buffer, at: offset)
            guard filled >= count else {
                filled = 0
                throw LogError(.corruptSegment, "the file ended before a frame it holds", path: path, offset: offset)
            }
        }
        let from = Int(offset - start)
        return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[from..<(from + count)])
    }
}
