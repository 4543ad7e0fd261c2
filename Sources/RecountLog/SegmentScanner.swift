/// Walks the frames of one segment file, checking each before anything trusts it.
///
/// `scan` reads committed bytes: every frame there must be whole and valid, or it is a
/// `corruptFrame` error naming the file and byte offset. `scanTail` reads what follows the
/// committed bytes of the last segment, where a crash may have left a frame half written, and
/// tells such a torn write from damage by the zero-sector rule (see `TailEnd`).
struct SegmentScanner {
    /// How the bytes after the last valid frame of an uncommitted tail end.
    enum TailEnd: Equatable {
        /// The valid frames reach the end of the file.
        case clean
        /// Only zeros follow: space the writer preallocated.
        case preallocated
        /// A frame a crash left half written: the file ends inside it, or some sector of it is
        /// all zeros (a sector that never reached the disk). Safe to cut: it was never committed.
        case torn(String)
        /// A whole frame that fails its checks with no sign of a torn write: damage.
        case corrupt(String)
    }

    /// Where a tail scan stopped: the offset and position after the last valid frame, and why.
    struct Tail: Equatable {
        var offset: Int64
        var position: UInt64
        var end: TailEnd
    }

    /// The smallest unit a disk writes whole: a crash tears a write at sector boundaries
    /// (or at page boundaries, eight sectors, when the page cache writes back).
    static let sector: Int64 = 512

    let segment: Segment
    let file: any LogFile
    private let window: FileWindow

    /// A scanner over the first `segment.length` bytes (mapped when `map`: only for bytes
    /// nobody truncates while the scanner lives).
    init(segment: Segment, file: any LogFile, map: Bool = true) {
        self.segment = segment
        self.file = file
        window = FileWindow(file: file, length: segment.length, map: map)
    }

    /// Scans committed frames from `offset` (where a frame holding `position` first starts) to
    /// `segment.length`, which must be a frame boundary.
    ///
    /// - Parameter body: called with each frame's offset, header and stored payload; return
    ///   `false` to stop.
    /// - Returns: the position after the last frame scanned.
    /// - Throws: `LogError.corruptFrame` for any frame that is not whole and valid.
    @discardableResult
    func scan(
        from offset: Int64 = 0, position: UInt64? = nil,
        _ body: (Int64, FrameHeader, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> UInt64 {
        var offset = offset
        var expected = position ?? segment.firstPosition
        while offset < segment.length {
            let header: FrameHeader
            switch try frame(at: offset, position: expected, end: segment.length) {
            case .valid(let valid, let payload):
                guard try body(offset, valid, payload) else { return valid.endPosition }
                header = valid
            case .short(let reason), .unreadable(let reason), .mismatch(let reason):
                throw LogError.corruption(reason, path: segment.path, offset: offset)
            }
            offset += Int64(header.frameLength)
            expected = header.endPosition
        }
        return expected
    }

    /// Scans the frames after the committed ones, from `offset` (where a frame with `position`
    /// would start) to `fileLength`, and says how they end.
    ///
    /// - Parameter body: called with each valid frame's offset and header.
    func scanTail(
        from offset: Int64, position: UInt64, fileLength: Int64, _ body: (Int64, FrameHeader) throws -> Void
    ) throws -> Tail {
        var offset = offset
        var expected = position
        while offset < fileLength {
            switch try frame(at: offset, position: expected, end: fileLength) {
            case .valid(let header, _):
                try body(offset, header)
                offset += Int64(header.frameLength)
                expected = header.endPosition
                continue
            case .short(let reason):
                let end: TailEnd =
                    try isZero(from: offset, to: fileLength) ? .preallocated : .torn(reason)
                return Tail(offset: offset, position: expected, end: end)
            case .unreadable(let reason):
                let end: TailEnd =
                    try isZero(from: offset, to: fileLength)
                    ? .preallocated
                    : try isTornHeader(at: offset, fileLength: fileLength) ? .torn(reason) : .corrupt(reason)
                return Tail(offset: offset, position: expected, end: end)
            case .mismatch(let reason):
                let header = try window.bytes(at: offset, count: FrameHeader.size, path: segment.path)
                let length = FrameHeader.size + Int(header.load(at: 24) as UInt32)
                let torn = try hasZeroSector(from: offset, to: offset + Int64(length))
                return Tail(offset: offset, position: expected, end: torn ? .torn(reason) : .corrupt(reason))
            }
        }
        return Tail(offset: offset, position: expected, end: .clean)
    }

    /// What stands at `offset`.
    private enum Frame {
        /// A whole frame that passes every check.
        case valid(FrameHeader, UnsafeRawBufferPointer)
        /// The bytes end before the frame does.
        case short(String)
        /// No header to trust: it fails its check or describes what this log never writes.
        case unreadable(String)
        /// A whole frame whose header is intact but whose position or checksum is wrong.
        case mismatch(String)
    }

    private func frame(at offset: Int64, position: UInt64, end: Int64) throws -> Frame {
        guard end - offset >= Int64(FrameHeader.size) else {
            return .short("\(end - offset) bytes are too few for a frame header")
        }
        let headerBytes = try window.bytes(at: offset, count: FrameHeader.size, path: segment.path)
        let header: FrameHeader
        switch FrameHeader.decode(headerBytes) {
        case .success(let decoded): header = decoded
        case .failure(.damaged): return .unreadable("frame header check failed")
        case .failure(.unsupported(let why)): return .unreadable("frame header is unsupported: \(why)")
        }
        guard Int64(header.frameLength) <= end - offset else {
            return .short("frame of \(header.frameLength) bytes runs past the end of the file")
        }
        guard header.firstPosition == position else {
            return .mismatch("frame starts at position \(header.firstPosition), expected \(position)")
        }
        let frame = try window.bytes(at: offset, count: header.frameLength, path: segment.path)
        let payload = UnsafeRawBufferPointer(rebasing: frame[FrameHeader.size...])
        guard FrameHeader.checksum(header: frame, payload: payload) == header.checksum else {
            return .mismatch("frame checksum does not match")
        }
        return .valid(header, payload)
    }

    /// Whether a header that fails its check at `offset` (so no length to trust) was torn by a
    /// crash: the file is zeros from inside the header to its end (the write stopped there), or
    /// the header's part of some sector is all zeros (that sector never reached the disk, later
    /// ones may have). A zero sector further on says nothing about the header: a flipped bit in
    /// it, with the writer's preallocated zeros after the frames, was cut as torn, and whole
    /// valid frames behind it with it (an attack run).
    private func isTornHeader(at offset: Int64, fileLength: Int64) throws -> Bool {
        let headerEnd = min(fileLength, offset + Int64(FrameHeader.size))
        let header = try window.bytes(at: offset, count: Int(headerEnd - offset), path: segment.path)
        let written = Int64(header.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)
        return try (written < header.count && isZero(from: offset + written, to: fileLength))
            || hasZeroSector(from: offset, to: headerEnd)
    }

    /// Whether bytes `from..<to` are all zero.
    private func isZero(from: Int64, to: Int64) throws -> Bool {
        var at = from
        while at < to {
            let count = Int(min(Int64(1 << 20), to - at))
            guard try window.bytes(at: at, count: count, path: segment.path).allSatisfy({ $0 == 0 }) else {
                return false
            }
            at += Int64(count)
        }
        return true
    }

    /// Whether the part of `from..<to` in some disk sector is all zeros: the mark of a sector
    /// that never reached the disk (the writer writes frames only over zeros). A frame damaged
    /// after it was written has none (its sectors hold compressed data), so the rule tells a
    /// torn write from a flipped bit.
    private func hasZeroSector(from: Int64, to: Int64) throws -> Bool {
        var at = from
        while at < to {
            let sectorEnd = min(to, (at / Self.sector + 1) * Self.sector)
            if try isZero(from: at, to: sectorEnd) { return true }
            at = sectorEnd
        }
        return false
    }
}
