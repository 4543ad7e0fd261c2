/// Where the primitives of the binary record format are written: a record's bytes
/// (`RecordWriter`), or one sample's fields staged before they join it (`StagedBytes`).
protocol RecordSink {
    mutating func byte(_ value: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension RecordSink {
    /// LEB128.
    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            byte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        byte(UInt8(value))
    }

    /// Zig-zag LEB128, for signed values near zero.
    @inline(__always)
    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { append($0) }
    }

    mutating func bool(_ value: Bool) { byte(value ? 1 : 0) }

    /// An instant's offset: zig-zag LEB128 of twice its seconds, plus 1 for `-00:00` (unknown).
    mutating func offset(of instant: Instant) {
        signed(Int64(instant.offsetSeconds) &* 2 | (instant.offsetIsUnknown ? 1 : 0))
    }
}

/// Appends the primitives of the binary record format to a byte buffer.
struct RecordWriter: RecordSink {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func append(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// Appends the staged bytes and empties the stage.
    mutating func append(_ staged: inout StagedBytes) {
        staged.withBytes { bytes.append(contentsOf: $0) }
        staged.removeAll()
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A type name: its metric's code, then the name as written.
    mutating func metricName(_ name: MetricName) {
        byte(name.metric.rawValue)
        string(name.name)
    }
}

/// A sample's fixed-size fields, written to a buffer on the stack and then appended to the
/// record at once: appending each byte to the record's array checked its uniqueness and
/// capacity every time (its varints were 2.5% of an ingest's instructions).
struct StagedBytes: RecordSink {
    /// Room for the most a sample writes between two strings (128 bytes: see `SampleBlock.write`).
    private var storage = InlineArray<160, UInt8>(repeating: 0)
    private var count = 0

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        storage[count] = value
        count &+= 1
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { self.byte(byte) }
    }

    /// Forgets the bytes staged (their room is written over, not cleared: a new stage zeroed
    /// its 160 bytes each time).
    mutating func removeAll() { count = 0 }

    /// The bytes staged so far.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.span.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }
}

/// Reads the primitives of the binary record format, bounds-checked: malformed bytes throw.
struct RecordReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    /// The record's format version, once its first byte is read (layouts differ by version).
    var version: UInt8 = 0
    /// Where `repeatedString()` finds strings earlier records made (`nil`: it makes each).
    let repeated: RepeatedStrings?

    init(_ bytes: UnsafeRawBufferPointer, repeated: RepeatedStrings? = nil) {
        self.bytes = bytes
        self.repeated = repeated
    }

    var isAtEnd: Bool { offset == bytes.count }

    func malformed(_ what: String, code: EnvelopeCodecError.Code = .malformed) -> EnvelopeCodecError {
        EnvelopeCodecError(code: code, offset: offset, reason: what)
    }

    mutating func byte() throws(EnvelopeCodecError) -> UInt8 {
        guard offset < bytes.count else { throw malformed("record ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An unsigned LEB128 varint. One byte (flags, table numbers, small deltas) and up to eight
    /// with eight bytes left (times, offsets) are read inline; the rest in `longVarint`.
    @inline(__always)
    mutating func varint() throws(EnvelopeCodecError) -> UInt64 {
        if offset < bytes.count, bytes[offset] < 0x80 {
            offset += 1
            return UInt64(bytes[offset - 1])
        }
        // Up to eight bytes (the record's times are mostly six or seven) from one load: the first
        // byte without its high bit ends the varint. Its 7-bit groups are kept by one mask (every
        // bit up to that byte's high bit, without the high bits), then closed up in three steps:
        // pairs of groups, pairs of pairs, the two halves.
        if bytes.count &- offset >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let ends = ~word & 0x8080_8080_8080_8080
            if ends != 0 {
                offset &+= ends.trailingZeroBitCount &>> 3 &+ 1
                var groups = word & (ends ^ (ends &- 1)) & 0x7F7F_7F7F_7F7F_7F7F
                groups = groups & 0x007F_007F_007F_007F | (groups & 0x7F00_7F00_7F00_7F00) &>> 1
                groups = groups & 0x0000_3FFF_0000_3FFF | (groups & 0x3FFF_0000_3FFF_0000) &>> 2
                return groups & 0x0FFF_FFFF | (groups & 0x0FFF_FFFF_0000_0000) &>> 4
            }
        }
        return try longVarint()
    }

    /// A varint of nine or ten bytes, or one within eight bytes of the record's end.
    private mutating func longVarint() throws(EnvelopeCodecError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var position = offset
        while position < bytes.count {
            let next = bytes[position]
            position += 1
            guard shift < 63 || next <= 1 else {
                offset = position
                throw malformed("varint overflows")
            }
            result |= UInt64(next & 0x7F) << shift
            if next < 0x80 {
                offset = position
                return result
            }
            shift += 7
        }
        offset = position
        throw malformed("record ends early")
    }

    @inline(__always)
    mutating func signed() throws(EnvelopeCodecError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    @inline(__always)
    mutating func count(limit: Int = 1 << 24) throws(EnvelopeCodecError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw malformed("count \(value) is out of range") }
        return Int(value)
    }

    @inline(__always)
    mutating func double() throws(EnvelopeCodecError) -> Double {
        guard bytes.count - offset >= 8 else { throw malformed("record ends early") }
        defer { offset += 8 }
        return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    mutating func string() throws(EnvelopeCodecError) -> String {
        try text(of: try stringBytes())
    }

    /// A string records repeat (a user, a type name, a block's table entry): from `repeated`
    /// when it holds one of the same bytes.
    mutating func repeatedString() throws(EnvelopeCodecError) -> String {
        let slice = try stringBytes()
        guard let repeated else { return try text(of: slice) }
        if let held = repeated.string(slice) { return held }
        let text = try text(of: slice)
        repeated.hold(text, bytes: slice)
        return text
    }

    /// The string of `slice`, which the reader has just read.
    private func text(of slice: UnsafeRawBufferPointer) throws(EnvelopeCodecError) -> String {
        // ASCII (ids, origins, units, zones) cannot be invalid: decoding it needs no validation,
        // and `String(validating:)` cost a generic metadata lookup per string.
        if Self.isASCII(slice) { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else {
            var error = malformed("string is not UTF-8")
            error.offset -= slice.count
            throw error
        }
        return text
    }

    /// A string's bytes, not checked to be UTF-8.
    mutating func stringBytes() throws(EnvelopeCodecError) -> UnsafeRawBufferPointer {
        let length = try count()
        guard bytes.count - offset >= length else { throw malformed("string runs past the record") }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    /// Whether every byte is below 0x80, tested eight bytes at a time.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var highBits: UInt64 = 0
        var offset = 0
        while bytes.count - offset >= 8 {
            highBits |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            highBits |= UInt64(bytes[offset])
            offset += 1
        }
        return highBits & 0x8080_8080_8080_8080 == 0
    }

    /// A type name as `RecordWriter.metricName(_:)` wrote it: the metric comes from the code,
    /// and the name is not looked up in the catalogue.
    mutating func metricName() throws(EnvelopeCodecError) -> MetricName {
        let code = try byte()
        guard let metric = Metric(rawValue: code) else { throw malformed("unknown metric code \(code)") }
        return MetricName(metric: metric, name: try repeatedString())
    }

    /// The instant at `millis` with the offset `RecordWriter.offset(of:)` wrote; an offset of a
    /// day or more, or an unknown one other than 0, is malformed.
    @inline(__always)
    mutating func instant(millis: Int64) throws(EnvelopeCodecError) -> Instant {
        let raw = try signed()
        let seconds = raw >> 1
        let unknown = raw & 1 == 1
        guard seconds > -86_400, seconds < 86_400, !unknown || seconds == 0 else {
            throw malformed("offset out of range")
        }
        return Instant(millis: millis, offsetSeconds: Int32(seconds), offsetIsUnknown: unknown)
    }

    mutating func bool() throws(EnvelopeCodecError) -> Bool {
        switch try byte() {
        case 0: false
        case 1: true
        default: throw malformed("boolean is neither 0 nor 1")
        }
    }
}

/// A log record that does not decode as an envelope.
package struct EnvelopeCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; more codes may be added.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        package var description: String { name }

        /// The record's format version is not one this code reads (a newer Recount wrote it).
        package static let unknownFormat = Code("unknownFormat")
        /// The record is damaged: truncated, an unknown code or flag, an index out of range.
        package static let malformed = Code("malformed")
    }

    /// What kind of failure this is.
    package var code: Code
    /// The byte offset in the record.
    package var offset: Int
    package var reason: String
    package var description: String { "envelope record malformed at byte \(offset): \(reason)" }
}
