/// A segment's sparse index: for some frames, their first position and byte offset.
///
/// The index is a hint kept beside the segment (`.idx`: pairs of little-endian `UInt64`
/// position and offset). It is checked against the segment when used and rebuilt by a
/// scan when it disagrees, so losing or damaging it costs time, never data.
package struct SegmentIndex: Sendable, Equatable {
    package private(set) var positions: [UInt64] = []
    package private(set) var offsets: [Int64] = []
    /// Bytes of segment between indexed frames.
    package let interval: Int64

    package init(interval: Int64) { self.interval = interval }

    /// Records a frame at `offset` if it is far enough from the last indexed one.
    /// - Returns: `true` when the entry was added.
    @discardableResult
    package mutating func note(position: UInt64, offset: Int64) -> Bool {
        if let last = offsets.last, offset - last < interval { return false }
        positions.append(position)
        offsets.append(offset)
        return true
    }

    /// The indexed frame at or before `position`, if any.
    package func entry(atOrBefore position: UInt64) -> (position: UInt64, offset: Int64)? {
        var low = 0
        var high = positions.count
        while low < high {
            let mid = (low + high) / 2
            if positions[mid] <= position { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : (positions[low - 1], offsets[low - 1])
    }

    /// The bytes of one entry.
    package static func encodeEntry(position: UInt64, offset: Int64) -> [UInt8] {
        withUnsafeBytes(of: (position.littleEndian, UInt64(offset).littleEndian)) { Array($0) }
    }

    /// The whole index as written to disk.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(positions.count * 16)
        for i in positions.indices {
            bytes += Self.encodeEntry(position: positions[i], offset: offsets[i])
        }
        return bytes
    }

    /// Decodes an index file, or returns `nil` when it cannot belong to a segment that starts at
    /// `firstPosition` and is `segmentLength` bytes long (torn, unordered, out of range).
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, firstPosition: UInt64, segmentLength: Int64, interval: Int64
    ) -> SegmentIndex? {
        guard bytes.count % 16 == 0 else { return nil }
        var index = SegmentIndex(interval: interval)
        var previous: (UInt64, Int64)? = nil
        for entry in 0..<(bytes.count / 16) {
            let position: UInt64 = bytes.load(at: entry * 16)
            let offset = Int64(bitPattern: bytes.load(at: entry * 16 + 8) as UInt64)
            guard position >= firstPosition, offset >= 0, offset + Int64(FrameHeader.size) <= segmentLength
            else { return nil }
            if let (p, o) = previous, position <= p || offset <= o { return nil }
            index.positions.append(position)
            index.offsets.append(offset)
            previous = (position, offset)
        }
        return index
    }
}
