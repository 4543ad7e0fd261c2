/// Walks the frames of one segment file, checking each before anything trusts it.
///
/// A segment other than the last must hold whole, valid frames to its end: anything else is a
/// `corruptFrame` error naming the file and byte offset. In the last segment a crash may have
/// left a torn tail; the scanner reports where the valid frames end and why the rest is not one.
struct SegmentScanner {
    /// What is known about the bytes after the last valid frame of a last segment.
    struct TornTail: Equatable, Sendable {
        /// Where the valid frames end.
        var offset: Int64
        /// The position the next frame would have started with.
        var position: UInt64
        /// How many bytes follow the valid frames.
        var bytes: Int64
        /// Why they are not a frame.
        var reason: String
        /// The bytes are all zero: space the writer preallocated, not a lost frame.
        var isPreallocated = false
    }

    let segment: Segment
    let file: any LogFile
    private let window: FileWindow

    init(segment: Segment, file: any LogFile) {
        self.segment = segment
        self.file = file
        window = FileWindow(file: file, length: segment.length)
    }

    /// Scans frames from `offset` (where a frame with `position` starts) to `segment.length`.
    ///
    /// - Parameters:
    ///   - isLast: tolerate a torn tail (the last segment of a log); otherwise it is an error.
    ///   - body: called with each valid frame's offset, header and stored payload; return
    ///     `false` to stop.
    /// - Returns: the torn tail when one was found (only when `isLast`).
    /// - Throws: `LogError.corruptFrame` for damage before the tail.
    @discardableResult
    func scan(
        from offset: Int64 = 0, position: UInt64? = nil, isLast: Bool,
        _ body: (Int64, FrameHeader, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> TornTail? {
        var offset = offset
        var expected = position ?? segment.firstPosition
        let end = segment.length
        func torn(_ reason: String) throws -> TornTail {
            guard isLast else { throw corrupt(reason, at: offset) }
            return TornTail(offset: offset, position: expected, bytes: end - offset, reason: reason)
        }
        while offset < end {
            guard end - offset >= Int64(FrameHeader.size) else {
                return try torn("\(end - offset) bytes are too few for a frame header")
            }
            let headerBytes = try window.bytes(at: offset, count: FrameHeader.size, path: segment.path)
            let header: FrameHeader
            switch FrameHeader.decode(headerBytes) {
            case .success(let decoded): header = decoded
            case .failure(.damaged):
                if isLast, try isZero(from: offset) {
                    var tail = try torn("preallocated zeros")
                    tail.isPreallocated = true
                    return tail
                }
                throw corrupt("frame header check failed", at: offset)
            case .failure(.unsupported(let why)):
                throw corrupt("frame header is unsupported: \(why)", at: offset)
            }
            guard header.firstPosition == expected else {
                throw corrupt("frame starts at position \(header.firstPosition), expected \(expected)", at: offset)
            }
            guard Int64(header.frameLength) <= end - offset else {
                return try torn("frame of \(header.frameLength) bytes runs past the end of the file")
            }
            let frame = try window.bytes(at: offset, count: header.frameLength, path: segment.path)
            let payload = UnsafeRawBufferPointer(rebasing: frame[FrameHeader.size...])
            guard FrameHeader.checksum(header: frame, payload: payload) == header.checksum else {
                // Frames are written one at a time, so a crash can only damage the last one:
                // a bad frame followed by nothing but zeros (or the end of the file) is torn.
                if isLast, try isZero(from: offset + Int64(header.frameLength)) {
                    return try torn("the last frame's checksum does not match (unwritten pages)")
                }
                throw corrupt("frame checksum does not match", at: offset)
            }
            guard try body(offset, header, payload) else { return nil }
            offset += Int64(header.frameLength)
            expected = header.endPosition
        }
        return nil
    }

    private func isZero(from offset: Int64) throws -> Bool {
        var at = offset
        while at < segment.length {
            let count = Int(min(Int64(1 << 20), segment.length - at))
            let bytes = try window.bytes(at: at, count: count, path: segment.path)
            guard bytes.allSatisfy({ $0 == 0 }) else { return false }
            at += Int64(count)
        }
        return true
    }

    func corrupt(_ reason: String, at offset: Int64) -> LogError {
        LogError(.corruptFrame, "log corrupted: \(reason)", path: segment.path, offset: offset)
    }
}
