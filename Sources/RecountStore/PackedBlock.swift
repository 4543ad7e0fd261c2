import RecountLog

/// A block of fixed-width records stored as one unit: constant byte columns once, the rest
/// byte-shuffled and LZ4-compressed.
///
/// Layout: the record count (UInt16, little-endian); a bitmap of `⌈width / 8⌉` bytes whose bit
/// `b` says byte `b` of every record is the same; that byte once for each such column, in
/// order; then one LZ4 block of the other columns, column after column (all their first bytes,
/// then all their second bytes, …), `varying × count` bytes uncompressed, absent when every
/// column is constant. Records of one cell share most of their bytes (user, metric, day, the
/// high bytes of times and versions), so a block of a few records keeps about their varying
/// bytes only, where LZ4 alone finds no matches; longer blocks still compress their runs.
package enum PackedBlock {
    /// The most records one block holds.
    package static let maximumCount = Int(UInt16.max)
    static let headerSize = 2

    /// Encodes `records`, a whole number (at most `maximumCount`) of `width`-byte records,
    /// replacing `block`.
    ///
    /// - Parameter scratch: a buffer reused between calls to spare an allocation.
    package static func encode(
        _ records: UnsafeRawBufferPointer, width: Int, into block: inout [UInt8], scratch: inout [UInt8]
    ) {
        precondition(width > 0 && records.count % width == 0, "a block holds whole records")
        let count = records.count / width
        precondition(count <= maximumCount && records.count <= LZ4Block.maximumInputSize, "a block this large")
        block.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: UInt16(count).littleEndian) { block.append(contentsOf: $0) }
        guard count > 0 else { return }
        let bitmapStart = block.count
        block.append(contentsOf: repeatElement(0, count: (width + 7) / 8))
        scratch.removeAll(keepingCapacity: true)
        for column in 0..<width {
            let first = records[column]
            var constant = true
            for record in 1..<count where records[record &* width &+ column] != first {
                constant = false
                break
            }
            if constant {
                block[bitmapStart + column / 8] |= 1 << (column % 8)
                block.append(first)
            } else {
                for record in 0..<count { scratch.append(records[record &* width &+ column]) }
            }
        }
        guard !scratch.isEmpty else { return }
        let bodyStart = block.count
        block.append(contentsOf: repeatElement(0, count: LZ4Block.compressBound(scratch.count)))
        let compressed = block.withUnsafeMutableBytes { out in
            scratch.withUnsafeBytes {
                LZ4Block.compress($0, into: UnsafeMutableRawBufferPointer(rebasing: out[bodyStart...]))
            }
        }
        precondition(compressed > 0, "LZ4 failed within its bound")
        block.removeLast(block.count - bodyStart - compressed)
    }

    /// The number of records `block` holds, or `nil` when it is too short to say.
    package static func count(_ block: UnsafeRawBufferPointer) -> Int? {
        guard block.count >= headerSize else { return nil }
        return Int(UInt16(littleEndian: block.loadUnaligned(as: UInt16.self)))
    }

    /// Decodes `block` into `records` (replacing them), `width` bytes a record.
    ///
    /// - Returns: the number of records, or `nil` when the block's lengths do not add up or
    ///   its LZ4 block is malformed (bytes from disk never trap).
    package static func decode(
        _ block: UnsafeRawBufferPointer, width: Int, into records: inout [UInt8], scratch: inout [UInt8]
    ) -> Int? {
        guard let count = count(block), width > 0, width <= LZ4Block.maximumInputSize / maximumCount else {
            return nil
        }
        records.removeAll(keepingCapacity: true)
        if count == 0 { return block.count == headerSize ? 0 : nil }
        let bitmapSize = (width + 7) / 8
        guard block.count >= headerSize + bitmapSize else { return nil }
        let bitmap = UnsafeRawBufferPointer(rebasing: block[headerSize..<headerSize + bitmapSize])
        func isConstant(_ column: Int) -> Bool { bitmap[column / 8] & (1 << (column % 8)) != 0 }
        let constants = (0..<width).count(where: isConstant)
        let constantsStart = headerSize + bitmapSize
        guard block.count >= constantsStart + constants else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: block[(constantsStart + constants)...])
        let varying = (width - constants) * count
        // LZ4 expands a byte to at most 255: a count no body could fill is damage, refused before allocating.
        guard varying <= body.count &* 255 else { return nil }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: repeatElement(0, count: varying))
        if varying == 0 {
            guard body.isEmpty else { return nil }
        } else {
            guard scratch.withUnsafeMutableBytes({ LZ4Block.decompress(body, into: $0) }) else { return nil }
        }
        records.append(contentsOf: repeatElement(0, count: width * count))
        records.withUnsafeMutableBytes { out in
            scratch.withUnsafeBytes { shuffled in
                var constant = constantsStart
                var column = 0
                for byte in 0..<width {
                    if isConstant(byte) {
                        for record in 0..<count { out[record &* width &+ byte] = block[constant] }
                        constant += 1
                    } else {
                        for record in 0..<count { out[record &* width &+ byte] = shuffled[column &* count &+ record] }
                        column += 1
                    }
                }
            }
        }
        return count
    }
}
