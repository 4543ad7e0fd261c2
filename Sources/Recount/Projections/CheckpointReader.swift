/// Reads what `CanonicalBytes` wrote, checking every length: a checkpoint from disk never traps.
///
/// The bytes come whole, or a chunk at a time from `nextChunk` (a checkpoint file's chunks,
/// inflated as they are reached, so the payload is never held whole). A writer streaming into
/// chunks closes a chunk only between fields, so a read that runs past its chunk is damage,
/// unless the chunk is used up and the read is the next chunk's first.
package struct CheckpointReader {
    /// The bytes at hand: all of them, or the current chunk.
    private var bytes: [UInt8]
    /// Where the bytes at hand are read up to.
    private var offset = 0
    /// The bytes of the chunks before the current one.
    private var earlierChunks = 0
    /// Replaces its argument with the next chunk; returns `false` after the last one.
    private let nextChunk: ((inout [UInt8]) throws(Malformed) -> Bool)?
    /// The bytes of all the chunks together.
    private let totalBytes: Int

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        nextChunk = nil
        totalBytes = bytes.count
    }

    /// A reader of the chunks `nextChunk` hands over one after another, `totalBytes` in all.
    package init(totalBytes: Int, chunks nextChunk: @escaping (inout [UInt8]) throws(Malformed) -> Bool) {
        bytes = []
        self.nextChunk = nextChunk
        self.totalBytes = totalBytes
    }

    /// The bytes not read yet: a bound on what a count read from them can claim, checked
    /// before anything that size is allocated.
    package var remainingBytes: Int { totalBytes - position }

    /// Whether every byte was read (the next chunk, if any, is taken to tell).
    package mutating func isAtEnd() throws(Malformed) -> Bool {
        try available(1) == false
    }

    /// Whether `count` bytes are at hand, taking the next chunk when the current one is used up.
    private mutating func available(_ count: Int) throws(Malformed) -> Bool {
        while offset == bytes.count, let nextChunk {
            earlierChunks += bytes.count
            offset = 0
            guard try nextChunk(&bytes) else {
                bytes = []
                return false
            }
        }
        return bytes.count - offset >= count
    }

    /// How many bytes have been read, over every chunk.
    package var position: Int { earlierChunks + offset }

    /// A damaged or foreign checkpoint.
    package struct Malformed: Error {
        /// The tz data version of a checkpoint folded with other zone data than this process
        /// has (it is whole, but its days may differ); `nil` for damage.
        package var otherZoneData: String? = nil
    }

    package mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) throws(Malformed) -> T {
        let size = MemoryLayout<T>.size
        guard try available(size) else { throw Malformed() }
        defer { offset += size }
        return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }

    /// A count or counter written as a `UInt64`, refused when it does not fit an `Int` (a
    /// conversion would trap).
    package mutating func int() throws(Malformed) -> Int {
        guard let value = Int(exactly: try integer(UInt64.self)) else { throw Malformed() }
        return value
    }

    package mutating func double() throws(Malformed) -> Double { Double(bitPattern: try integer()) }

    package mutating func bool() throws(Malformed) -> Bool {
        switch try integer(UInt8.self) {
        case 0: false
        case 1: true
        default: throw Malformed()
        }
    }

    package mutating func string() throws(Malformed) -> String {
        let count = Int(try integer(UInt32.self))
        guard bytes.count - offset >= count else { throw Malformed() }
        defer { offset += count }
        return String(decoding: bytes[offset..<(offset + count)], as: UTF8.self)
    }

    /// A sample id written as a string, read without building the text of a UUID.
    package mutating func sampleID() throws(Malformed) -> SampleID {
        let count = Int(try integer(UInt32.self))
        guard bytes.count - offset >= count else { throw Malformed() }
        defer { offset += count }
        return bytes.withUnsafeBytes { SampleID(utf8: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
    }

    /// Reads a block of `count` bytes of fixed-size fields with `read`, checking the length once.
    package mutating func block<T>(
        count: Int, _ read: (inout BlockReader) throws(Malformed) -> T
    ) throws(Malformed) -> T {
        guard count >= 0, try available(count) else { throw Malformed() }
        defer { offset += count }
        // `withUnsafeBytes` rethrows untyped errors: the typed one comes out as a `Result`.
        return try bytes.withUnsafeBytes { raw in
            var reader = BlockReader(raw: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
            return Result { () throws(Malformed) in try read(&reader) }
        }.get()
    }

    /// Reads `rows` entries of `entrySize` bytes stored by column, as `CanonicalBytes.appendColumns`
    /// wrote them, handing `read` one row at a time; checks the length once.
    package mutating func columns(
        rows: Int, entrySize: Int, _ read: (inout ColumnReader, _ row: Int) throws(Malformed) -> Void
    ) throws(Malformed) {
        let (count, overflow) = rows.multipliedReportingOverflow(by: entrySize)
        guard rows >= 0, !overflow, try available(count) else { throw Malformed() }
        defer { offset += count }
        try bytes.withUnsafeBytes { raw in
            var reader = ColumnReader(
                raw: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]), place: ColumnPlace(rows: rows))
            return Result { () throws(Malformed) in
                for row in 0..<rows {
                    reader.place.start(row: row)
                    try read(&reader, row)
                    precondition(reader.place.end == count, "a row read other than its \(entrySize) bytes")
                }
            }
        }.get()
    }

    /// Reads one row's fields from the columns of a block `columns` checked.
    package struct ColumnReader {
        fileprivate let raw: UnsafeRawBufferPointer
        fileprivate var place: ColumnPlace

        @inline(__always)
        package mutating func take<T: FixedWidthInteger>(_: T.Type = T.self) -> T {
            let offset = place.next(size: MemoryLayout<T>.size)
            precondition(raw.count - offset >= MemoryLayout<T>.size)
            return T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
    }

    /// Reads little-endian fields from a block whose length `block` checked.
    package struct BlockReader {
        fileprivate let raw: UnsafeRawBufferPointer
        fileprivate var offset = 0

        @inline(__always)
        package mutating func take<T: FixedWidthInteger>(_: T.Type = T.self) -> T {
            precondition(raw.count - offset >= MemoryLayout<T>.size)
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
    }

    /// Ranges as `CanonicalBytes` writes them, which must be ascending and disjoint.
    package mutating func ranges() throws(Malformed) -> [Range<Int64>] {
        var ranges: [Range<Int64>] = []
        for _ in 0..<(try integer(UInt64.self)) {
            let from: Int64 = try integer()
            let to: Int64 = try integer()
            guard from <= to, from >= ranges.last?.upperBound ?? .min else { throw Malformed() }
            ranges.append(from..<to)
        }
        return ranges
    }

    /// A present flag, then the value.
    package mutating func optional<T>(_ read: (inout CheckpointReader) throws(Malformed) -> T) throws(Malformed) -> T? {
        try bool() ? try read(&self) : nil
    }

    /// Expects `text` (a section name).
    package mutating func expect(_ text: String) throws(Malformed) {
        guard try string() == text else { throw Malformed() }
    }
}
