/// The samples of one envelope in the binary record: a string table, then each sample.
enum SampleBlock {
    /// Which optional fields a sample carries, and how its id is stored.
    struct Flags: OptionSet {
        let rawValue: UInt64
        static let end = Flags(rawValue: 1 << 0)
        static let timeZone = Flags(rawValue: 1 << 1)
        static let value = Flags(rawValue: 1 << 2)
        static let stage = Flags(rawValue: 1 << 3)
        static let device = Flags(rawValue: 1 << 4)
        static let syncIdentifier = Flags(rawValue: 1 << 5)
        static let syncVersion = Flags(rawValue: 1 << 6)
        static let lastModified = Flags(rawValue: 1 << 7)
        /// The id is a lowercase UUID, stored as 16 bytes.
        static let lowercaseUUID = Flags(rawValue: 1 << 8)
        /// The id is an uppercase UUID, stored as 16 bytes.
        static let uppercaseUUID = Flags(rawValue: 1 << 9)
        static let all: UInt64 = (1 << 10) - 1
    }

    static func write(_ samples: [Sample], _ out: inout RecordWriter) {
        // One pass numbers the repeated strings; the samples then refer to them by index.
        var table = StringTable()
        var references: [Int32] = []
        references.reserveCapacity(samples.count * 5)
        // Each field's previous entry is tried first: consecutive samples mostly repeat them.
        var last: [Int32] = [0, 0, 0, 0, 0]
        func reference(_ string: String?, _ field: Int) -> Int32 {
            guard let string else { return -1 }
            last[field] = table.index(adding: string, hint: last[field])
            return last[field]
        }
        for sample in samples {
            references.append(reference(sample.type.name, 0))
            references.append(reference(sample.origin, 1))
            references.append(reference(sample.unit, 2))
            references.append(reference(sample.timeZone, 3))
            references.append(reference(sample.device, 4))
        }
        out.varint(UInt64(table.strings.count))
        for string in table.strings { out.string(string) }
        out.varint(UInt64(samples.count))
        var previousStart: Int64 = 0
        for (number, sample) in samples.enumerated() {
            let type = references[number * 5]
            let origin = references[number * 5 + 1]
            let unit = references[number * 5 + 2]
            let zone = references[number * 5 + 3]
            let device = references[number * 5 + 4]
            var flags: Flags = []
            if sample.end != nil { flags.insert(.end) }
            if sample.timeZone != nil { flags.insert(.timeZone) }
            if sample.value != nil { flags.insert(.value) }
            if sample.stage != nil { flags.insert(.stage) }
            if sample.device != nil { flags.insert(.device) }
            if sample.syncIdentifier != nil { flags.insert(.syncIdentifier) }
            if sample.syncVersion != nil { flags.insert(.syncVersion) }
            if sample.lastModified != nil { flags.insert(.lastModified) }
            let uuid = UUIDText.bytes(of: sample.id)
            if let uuid { flags.insert(uuid.lowercase ? .lowercaseUUID : .uppercaseUUID) }
            out.varint(flags.rawValue)
            if let uuid {
                withUnsafeBytes(of: (uuid.bytes.0.bigEndian, uuid.bytes.1.bigEndian)) {
                    out.bytes.append(contentsOf: $0)
                }
            } else {
                out.string(sample.id)
            }
            out.varint(UInt64(type))
            out.signed(sample.start.millis &- previousStart)
            out.signed(Int64(sample.start.offsetSeconds))
            previousStart = sample.start.millis
            if let end = sample.end {
                out.signed(end.millis &- sample.start.millis)
                out.signed(Int64(end.offsetSeconds))
            }
            if zone >= 0 { out.varint(UInt64(zone)) }
            if let value = sample.value {
                out.double(value)
                out.varint(UInt64(max(unit, 0)))
            }
            if let stage = sample.stage { out.byte(stage.rawValue) }
            out.varint(UInt64(origin))
            if device >= 0 { out.varint(UInt64(device)) }
            if let syncIdentifier = sample.syncIdentifier { out.string(syncIdentifier) }
            if let syncVersion = sample.syncVersion { out.signed(syncVersion) }
            if let lastModified = sample.lastModified {
                out.signed(lastModified.millis &- sample.start.millis)
                out.signed(Int64(lastModified.offsetSeconds))
            }
        }
    }

    static func read(_ input: inout RecordReader) throws(EnvelopeCodecError) -> [Sample] {
        var table: [String] = []
        for _ in 0..<(try input.count()) { table.append(try input.string()) }
        func entry(_ input: inout RecordReader) throws(EnvelopeCodecError) -> String {
            let index = try input.count()
            guard index < table.count else { throw input.malformed("string table index \(index) out of range") }
            return table[index]
        }
        var samples: [Sample] = []
        var previousStart: Int64 = 0
        for _ in 0..<(try input.count()) {
            let raw = try input.varint()
            guard raw & ~Flags.all == 0 else { throw input.malformed("unknown sample flags") }
            let flags = Flags(rawValue: raw)
            let id: String
            if flags.contains(.lowercaseUUID) || flags.contains(.uppercaseUUID) {
                guard input.bytes.count - input.offset >= 16 else { throw input.malformed("record ends early") }
                id = UUIDText.text(
                    of: UnsafeRawBufferPointer(rebasing: input.bytes[input.offset..<(input.offset + 16)]),
                    lowercase: flags.contains(.lowercaseUUID))
                input.offset += 16
            } else {
                id = try input.string()
            }
            let typeText = try entry(&input)
            guard let type = MetricName(typeText) else { throw input.malformed("unknown type name \(typeText)") }
            let startMillis = previousStart &+ (try input.signed())
            previousStart = startMillis
            let start = Instant(millis: startMillis, offsetSeconds: try offset(&input))
            var sample = Sample(id: id, type: type, start: start, origin: "")
            if flags.contains(.end) {
                let millis = startMillis &+ (try input.signed())
                sample.end = Instant(millis: millis, offsetSeconds: try offset(&input))
            }
            if flags.contains(.timeZone) { sample.timeZone = try entry(&input) }
            if flags.contains(.value) {
                sample.value = try input.double()
                sample.unit = try entry(&input)
            }
            if flags.contains(.stage) {
                guard let stage = SleepStage(rawValue: try input.byte()) else {
                    throw input.malformed("unknown sleep stage")
                }
                sample.stage = stage
            }
            sample.origin = try entry(&input)
            if flags.contains(.device) { sample.device = try entry(&input) }
            if flags.contains(.syncIdentifier) { sample.syncIdentifier = try input.string() }
            if flags.contains(.syncVersion) { sample.syncVersion = try input.signed() }
            if flags.contains(.lastModified) {
                let millis = startMillis &+ (try input.signed())
                sample.lastModified = Instant(millis: millis, offsetSeconds: try offset(&input))
            }
            samples.append(sample)
        }
        return samples
    }

    private static func offset(_ input: inout RecordReader) throws(EnvelopeCodecError) -> Int32 {
        let value = try input.signed()
        guard let offset = Int32(exactly: value), abs(offset) < 86_400 else {
            throw input.malformed("offset out of range")
        }
        return offset
    }
}

/// Strings numbered in order of first use; the order is the input's, never a hash table's.
///
/// Envelopes repeat a handful of strings, so small tables are searched linearly (cheaper than
/// hashing), starting with the caller's hint; a hash index keyed by exact bytes takes over past
/// `linearLimit` entries.
struct StringTable {
    private(set) var strings: [String] = []
    private var indices: [[UInt8]: Int32] = [:]
    private static let linearLimit = 16

    /// The number of `string`, added when new; `hint` is the entry to try first.
    mutating func index(adding string: String, hint: Int32 = 0) -> Int32 {
        if hint >= 0, Int(hint) < strings.count, strings[Int(hint)].hasSameUTF8(as: string) { return hint }
        for index in strings.indices.prefix(Self.linearLimit) where strings[index].hasSameUTF8(as: string) {
            return Int32(index)
        }
        if strings.count > Self.linearLimit, let index = indices[Array(string.utf8)] { return index }
        let index = Int32(strings.count)
        if strings.count >= Self.linearLimit { indices[Array(string.utf8)] = index }
        strings.append(string)
        return index
    }
}

/// The 16 bytes of a canonical UUID string (`8-4-4-4-12` hex, one letter case), and back.
enum UUIDText {
    /// The UUID's 16 bytes (big-endian halves) and its letter case, or `nil` when `text` is not one.
    static func bytes(of text: String) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        guard text.utf8.count == 36 else { return nil }
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> (bytes: (UInt64, UInt64), lowercase: Bool)? {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        var sawLower = false
        var sawUpper = false
        for index in 0..<utf8.count {
            let char = utf8[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard char == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = char - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                nibble = char - UInt8(ascii: "a") + 10
                sawLower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                nibble = char - UInt8(ascii: "A") + 10
                sawUpper = true
            default: return nil
            }
            if nibbles < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
            nibbles += 1
        }
        guard !(sawLower && sawUpper) else { return nil }
        return ((high, low), !sawUpper)
    }

    static func text(of bytes: UnsafeRawBufferPointer, lowercase: Bool) -> String {
        let digits = Array((lowercase ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
