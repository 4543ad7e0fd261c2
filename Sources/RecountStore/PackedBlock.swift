import RecountLog

/// A block of fixed-width records stored as one unit: byte-shuffled, then LZ4-compressed.
///
/// Layout: the record count (UInt32, little-endian), then one LZ4 block of the records with
/// byte `b` of every record gathered together (all first bytes, then all second bytes, …), so
/// the fields that change little from record to record (times of one day, flags, versions)
/// become long runs LZ4 finds. The uncompressed length is `count × width`.
package enum PackedBlock {
    /// The bytes before the compressed records.
    package static let headerSize = 4

    /// Encodes `records`, a whole number of `width`-byte records, replacing `block`.
    ///
    /// - Parameter scratch: a buffer reused between calls to spare an allocation.
    package static func encode(
        _ records: UnsafeRawBufferPointer, width: Int, into block: inout [UInt8], scratch: inout [UInt8]
    ) {
        precondition(width > 0 && records.count % width == 0, "a block holds whole records")
        let count = records.count / width
        precondition(records.count <= LZ4Block.maximumInputSize, "a block of \(records.count) bytes is too large")
        block.removeAll(keepingCapacity: true)
        if count == 0 {
            // No records, no LZ4 block: the header alone.
            block.append(contentsOf: repeatElement(0, count: headerSize))
            return
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: repeatElement(0, count: records.count))
        scratch.withUnsafeMutableBytes { shuffled in
            for record in 0..<count {
                for byte in 0..<width { shuffled[byte &* count &+ record] = records[record &* width &+ byte] }
            }
        }
        block.append(contentsOf: repeatElement(0, count: headerSize + LZ4Block.compressBound(records.count)))
        let compressed = block.withUnsafeMutableBytes { out in
            out.storeBytes(of: UInt32(count).littleEndian, as: UInt32.self)
            return scratch.withUnsafeBytes {
                LZ4Block.compress($0, into: UnsafeMutableRawBufferPointer(rebasing: out[headerSize...]))
            }
        }
        precondition(compressed > 0, "LZ4 failed within its bound")
        block.removeLast(block.count - headerSize - compressed)
    }

    /// The number of records `block` holds, or `nil` when it is too short to say.
    package static func count(_ block: UnsafeRawBufferPointer) -> Int? {
        guard block.count >= headerSize else { return nil }
        return Int(UInt32(littleEndian: block.loadUnaligned(as: UInt32.self)))
    }

    /// Decodes `block` into `records` (replacing them), `width` bytes a record.
    ///
    /// - Returns: the number of records, or `nil` when the block is damaged (bytes from disk never trap).
    package static func decode(
        _ block: UnsafeRawBufferPointer, width: Int, into records: inout [UInt8], scratch: inout [UInt8]
    ) -> Int? {
        guard let count = count(block), width > 0 else { return nil }
        let (length, overflow) = count.multipliedReportingOverflow(by: width)
        guard !overflow, length <= LZ4Block.maximumInputSize else { return nil }
        records.removeAll(keepingCapacity: true)
        if count == 0 { return block.count == headerSize ? 0 : nil }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: repeatElement(0, count: length))
        let body = UnsafeRawBufferPointer(rebasing: block[headerSize...])
        guard scratch.withUnsafeMutableBytes({ LZ4Block.decompress(body, into: $0) }) else { return nil }
        records.append(contentsOf: repeatElement(0, count: length))
        records.withUnsafeMutableBytes { out in
            scratch.withUnsafeBytes { shuffled in
                for byte in 0..<width {
                    for record in 0..<count { out[record &* width &+ byte] = shuffled[byte &* count &+ record] }
                }
            }
        }
        return count
    }
}
