/// Bytes in the digest's canonical form: little-endian integers, doubles as their IEEE 754 bit
/// patterns, strings as a length and their UTF-8 bytes, absent values as a 0 flag.
package struct CanonicalBytes {
    package private(set) var bytes: [UInt8] = []
    /// Where full pieces go, when the bytes stream out (a checkpoint's chunks).
    private let spill: (threshold: Int, sink: (inout [UInt8]) -> Void)?

    /// Bytes gathered whole.
    package init() { spill = nil }

    /// Bytes that stream out: once `threshold` bytes are held, the next append first hands
    /// them to `sink`, which consumes them. `finish()` hands over the rest.
    package init(threshold: Int, sink: @escaping (inout [UInt8]) -> Void) {
        spill = (threshold, sink)
        bytes.reserveCapacity(threshold)
    }

    /// Hands what is held to the sink (streaming bytes only).
    package mutating func finish() {
        guard let spill, !bytes.isEmpty else { return }
        spill.sink(&bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private mutating func spillIfFull() {
        if let spill, bytes.count >= spill.threshold { finish() }
    }

    package mutating func append<T: FixedWidthInteger>(_ value: T) {
        spillIfFull()
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ value: Double) { append(value.bitPattern) }

    package mutating func append(_ value: Bool) { append(UInt8(value ? 1 : 0)) }

    package mutating func append(_ string: String) {
        spillIfFull()
        append(UInt32(string.utf8.count))
        bytes.append(contentsOf: string.utf8)
    }

    /// Raw bytes, as they are (their length written before them by the caller).
    package mutating func appendBytes(_ raw: [UInt8]) {
        spillIfFull()
        bytes.append(contentsOf: raw)
    }

    /// A count, then each range's bounds.
    package mutating func append(_ ranges: [Range<Int64>]) {
        append(UInt64(ranges.count))
        for range in ranges {
            append(range.lowerBound)
            append(range.upperBound)
        }
    }

    /// A present flag, then the value.
    package mutating func append<T>(_ value: T?, _ write: (inout CanonicalBytes, T) -> Void) {
        append(value != nil)
        if let value { write(&self, value) }
    }

    /// Appends `count` bytes that `fill` writes in place: a block of fixed-size fields, written
    /// without a capacity check per field. `fill` must write exactly `count` bytes.
    package mutating func appendBlock(count: Int, _ fill: (inout BlockWriter) -> Void) {
        spillIfFull()
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { raw in
            var writer = BlockWriter(raw: UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
            fill(&writer)
            precondition(writer.offset == count, "a block wrote \(writer.offset) of its \(count) bytes")
        }
    }

    /// Appends `rows` entries of `entrySize` bytes of fixed-size fields, which `fill` puts one
    /// row at a time, stored by column: a field's values for every row, then the next field's.
    /// Columns of like values (one user's ids, fields most rows leave 0) compress to a fraction
    /// of the rows' bytes, and faster. Each row must put the same fields, `entrySize` bytes.
    package mutating func appendColumns(rows: Int, entrySize: Int, _ fill: (inout ColumnWriter, _ row: Int) -> Void) {
        spillIfFull()
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: rows * entrySize))
        bytes.withUnsafeMutableBytes { raw in
            var writer = ColumnWriter(
                raw: UnsafeMutableRawBufferPointer(rebasing: raw[start...]), place: ColumnPlace(rows: rows))
            for row in 0..<rows {
                writer.place.start(row: row)
                fill(&writer, row)
                precondition(writer.place.end == rows * entrySize, "a row wrote other than its \(entrySize) bytes")
            }
        }
    }

    /// Writes one row's fields into the columns of a block `appendColumns` sized.
    package struct ColumnWriter {
        fileprivate let raw: UnsafeMutableRawBufferPointer
        fileprivate var place: ColumnPlace

        @inline(__always)
        package mutating func put<T: FixedWidthInteger>(_ value: T) {
            let offset = place.next(size: MemoryLayout<T>.size)
            precondition(raw.count - offset >= MemoryLayout<T>.size)
            raw.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
        }
    }

    /// Writes little-endian fields into a block `appendBlock` sized.
    package struct BlockWriter {
        fileprivate let raw: UnsafeMutableRawBufferPointer
        fileprivate private(set) var offset = 0

        @inline(__always)
        package mutating func put<T: FixedWidthInteger>(_ value: T) {
            precondition(raw.count - offset >= MemoryLayout<T>.size)
            raw.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
            offset += MemoryLayout<T>.size
        }

        /// A string as `CanonicalBytes.append(_: String)` writes it: its UTF-8 length, then its bytes.
        package mutating func put(_ string: String) {
            var string = string
            string.withUTF8 { utf8 in
                put(UInt32(utf8.count))
                precondition(raw.count - offset >= utf8.count)
                UnsafeMutableRawBufferPointer(rebasing: raw[offset...]).copyMemory(from: UnsafeRawBufferPointer(utf8))
                offset += utf8.count
            }
        }

        /// A sample id's text, as `put(id.text)` writes it, without building the text of a UUID.
        package mutating func put(_ id: SampleID) {
            guard let uuid = id.uuid else { return put(id.text) }
            put(UInt32(36))
            precondition(raw.count - offset >= 36)
            let text = (raw.baseAddress! + offset).assumingMemoryBound(to: UInt8.self)
            SampleID.writeUUIDText(uuid.high, uuid.low, lowercase: uuid.lowercase, to: text)
            offset += 36
        }
    }

    /// Counts the bytes a block's fields take, so that one function lists them both to size the
    /// block and to write it (`appendFields`).
    package struct BlockSize: BlockFieldSink {
        package private(set) var count = 0

        package mutating func put<T: FixedWidthInteger>(_ value: T) { count += MemoryLayout<T>.size }
        package mutating func put(_ string: String) { count += 4 + string.utf8.count }
        package mutating func put(_ id: SampleID) {
            if id.uuid == nil { put(id.text) } else { count += 40 }
        }
    }

    /// Appends the block `fields` writes: once to size it, once to write it.
    package mutating func appendFields(_ fields: some CanonicalFields) {
        var size = BlockSize()
        fields.write(to: &size)
        appendBlock(count: size.count) { fields.write(to: &$0) }
    }

    /// Hands the bytes so far to `sink` and starts empty, so a large digest streams.
    package mutating func flush(into sink: (inout [UInt8]) -> Void) {
        sink(&bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Where a block's fields go: `BlockWriter` writes them, `BlockSize` counts their bytes.
package protocol BlockFieldSink {
    mutating func put<T: FixedWidthInteger>(_ value: T)
    mutating func put(_ string: String)
    mutating func put(_ id: SampleID)
}

extension BlockFieldSink {
    /// An optional as `CanonicalBytes.append(_:_:)` writes it: a presence byte, then the value.
    package mutating func put<T: FixedWidthInteger>(_ value: T?) {
        put(UInt8(value == nil ? 0 : 1))
        if let value { put(value) }
    }

    package mutating func put(_ value: Double?) { put(value?.bitPattern) }

    package mutating func put(_ string: String?) {
        put(UInt8(string == nil ? 0 : 1))
        if let string { put(string) }
    }
}

extension CanonicalBytes.BlockWriter: BlockFieldSink {}

/// Fixed-size fields and strings that `CanonicalBytes.appendFields` writes as one block.
package protocol CanonicalFields {
    func write<Sink: BlockFieldSink>(to sink: inout Sink)
}

/// Where one row's next field lies in a block stored by column (`CanonicalBytes.appendColumns`,
/// `CheckpointReader.columns`): each field's column holds every row's value of it.
package struct ColumnPlace {
    private let rows: Int
    private var row = 0
    /// Where the next field's column starts: once the row is done, the block's length.
    private(set) var end = 0

    init(rows: Int) { self.rows = rows }

    /// Starts on `row`'s first field.
    mutating func start(row: Int) {
        self.row = row
        end = 0
    }

    /// The offset of the row's next field, `size` bytes wide; moves on to the next column.
    @inline(__always)
    mutating func next(size: Int) -> Int {
        defer { end += rows * size }
        return end + row * size
    }
}
