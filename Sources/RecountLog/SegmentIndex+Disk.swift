extension SegmentIndex {
    /// Reads `segment`'s index file and checks it against the segment file.
    ///
    /// - Returns: the index, or `nil` when the file is missing, torn, out of order, or its last
    ///   entry does not point at a frame starting at that position (entries used for a seek are
    ///   checked again then).
    static func load(
        _ segment: Segment, segmentFile: any LogFile, fileSystem: any LogFileSystem, interval: Int64
    ) -> SegmentIndex? {
        guard let file = try? fileSystem.open(segment.indexPath, writable: false, create: false),
            let size = try? file.size(), size > 0, size <= 64 << 20
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = bytes.withUnsafeMutableBytes { (try? file.read(into: $0, at: 0)) ?? 0 }
        guard read == Int(size),
            let index = bytes.withUnsafeBytes({
                decode($0, firstPosition: segment.firstPosition, segmentLength: segment.length, interval: interval)
            }),
            let last = index.positions.indices.last,
            index.agrees(position: index.positions[last], offset: index.offsets[last], segmentFile: segmentFile)
        else { return nil }
        return index
    }

    /// Whether a frame holding `position` first starts at `offset` of the segment file.
    func agrees(position: UInt64, offset: Int64, segmentFile: any LogFile) -> Bool {
        var header = [UInt8](repeating: 0, count: FrameHeader.size)
        let read = header.withUnsafeMutableBytes { (try? segmentFile.read(into: $0, at: offset)) ?? 0 }
        guard read == FrameHeader.size, case .success(let decoded) = header.withUnsafeBytes({ FrameHeader.decode($0) })
        else { return false }
        return decoded.firstPosition == position
    }

    /// Builds the index of a committed `segment` (its committed extent) by scanning and
    /// checking its frames, which must end exactly at its length and end position.
    static func build(_ segment: Segment, file: any LogFile, interval: Int64) throws -> SegmentIndex {
        var index = SegmentIndex(interval: interval)
        let end = try SegmentScanner(segment: segment, file: file).scan { offset, header, _ in
            index.note(position: header.firstPosition, offset: offset)
            return true
        }
        guard end == segment.endPosition else {
            throw LogError.corruption(
                "the frames end at position \(end), but positions up to \(segment.endPosition) are committed",
                path: segment.path, offset: segment.length)
        }
        return index
    }
}
