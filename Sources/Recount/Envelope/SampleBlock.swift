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
        var references: [StringReferences] = []
        references.reserveCapacity(samples.count)
        // Samples are read in place through the buffer: binding one, or passing it to a function,
        // copies it and retains all its strings.
        samples.withUnsafeBufferPointer { samples in
            var previous = StringReferences(type: 0, origin: 0, unit: 0, zone: 0, device: 0)
            for index in samples.indices {
                previous = StringReferences(samples, index, in: &table, hints: previous)
                references.append(previous)
            }
            out.varint(UInt64(table.strings.count))
            for string in table.strings { out.string(string) }
            out.varint(UInt64(samples.count))
            var previousStart: Int64 = 0
            for index in samples.indices {
                write(samples.baseAddress! + index, references[index], after: previousStart, &out)
                previousStart = samples[index].start.millis
            }
        }
    }

    /// A sample's repeated strings as string-table numbers (-1 when absent).
    private struct StringReferences {
        var type, origin, unit, zone, device: Int32

        init(type: Int32, origin: Int32, unit: Int32, zone: Int32, device: Int32) {
            (self.type, self.origin, self.unit, self.zone, self.device) = (type, origin, unit, zone, device)
        }

        /// Numbers the strings of `samples[index]` in `table`, trying each field's number in
        /// `hints` (the previous sample's) first, since consecutive samples mostly repeat them.
        init(_ samples: UnsafeBufferPointer<Sample>, _ index: Int, in table: inout StringTable, hints: StringReferences)
        {
            func number(_ string: String?, _ hint: Int32) -> Int32 {
                string.map { table.index(adding: $0, hint: hint) } ?? -1
            }
            type = table.index(adding: samples[index].type.name, hint: hints.type)
            origin = table.index(adding: samples[index].origin, hint: hints.origin)
            unit = number(samples[index].unit, hints.unit)
            zone = number(samples[index].timeZone, hints.zone)
            device = number(samples[index].device, hints.device)
        }
    }

    /// Writes one sample, read in place through `pointer` (see `StringReferences.init`).
    private static func write(
        _ pointer: UnsafePointer<Sample>, _ references: StringReferences, after previousStart: Int64,
        _ out: inout RecordWriter
    ) {
        var flags: Flags = []
        if pointer.pointee.end != nil { flags.insert(.end) }
        if pointer.pointee.timeZone != nil { flags.insert(.timeZone) }
        if pointer.pointee.value != nil { flags.insert(.value) }
        if pointer.pointee.stage != nil { flags.insert(.stage) }
        if pointer.pointee.device != nil { flags.insert(.device) }
        if pointer.pointee.syncIdentifier != nil { flags.insert(.syncIdentifier) }
        if pointer.pointee.syncVersion != nil { flags.insert(.syncVersion) }
        if pointer.pointee.lastModified != nil { flags.insert(.lastModified) }
        let uuid = pointer.pointee.id.uuid
        if let uuid { flags.insert(uuid.lowercase ? .lowercaseUUID : .uppercaseUUID) }
        out.varint(flags.rawValue)
        if let uuid {
            withUnsafeBytes(of: (uuid.high.bigEndian, uuid.low.bigEndian)) { out.bytes.append(contentsOf: $0) }
        } else {
            out.string(pointer.pointee.id.text)
        }
        out.varint(UInt64(references.type))
        out.signed(pointer.pointee.start.millis &- previousStart)
        out.offset(of: pointer.pointee.start)
        if let end = pointer.pointee.end {
            out.signed(end.millis &- pointer.pointee.start.millis)
            out.offset(of: end)
        }
        if references.zone >= 0 { out.varint(UInt64(references.zone)) }
        if let value = pointer.pointee.value {
            out.double(value)
            out.varint(UInt64(max(references.unit, 0)))
        }
        if let stage = pointer.pointee.stage { out.byte(stage.rawValue) }
        out.varint(UInt64(references.origin))
        if references.device >= 0 { out.varint(UInt64(references.device)) }
        if let syncIdentifier = pointer.pointee.syncIdentifier { out.string(syncIdentifier) }
        if let syncVersion = pointer.pointee.syncVersion { out.signed(syncVersion) }
        if let lastModified = pointer.pointee.lastModified {
            out.signed(lastModified.millis &- pointer.pointee.start.millis)
            out.offset(of: lastModified)
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
            let id: SampleID
            if flags.contains(.lowercaseUUID) || flags.contains(.uppercaseUUID) {
                guard input.bytes.count - input.offset >= 16 else { throw input.malformed("record ends early") }
                let high = UInt64(bigEndian: input.bytes.loadUnaligned(fromByteOffset: input.offset, as: UInt64.self))
                let low = UInt64(
                    bigEndian: input.bytes.loadUnaligned(fromByteOffset: input.offset + 8, as: UInt64.self))
                id = SampleID(uuid: high, low, lowercase: flags.contains(.lowercaseUUID))
                input.offset += 16
            } else {
                id = SampleID(try input.string())
            }
            let typeText = try entry(&input)
            guard let type = MetricName(typeText) else { throw input.malformed("unknown type name \(typeText)") }
            let startMillis = previousStart &+ (try input.signed())
            previousStart = startMillis
            let start = try input.instant(millis: startMillis)
            var sample = Sample(id: id, type: type, start: start, origin: "")
            if flags.contains(.end) {
                let millis = startMillis &+ (try input.signed())
                sample.end = try input.instant(millis: millis)
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
                sample.lastModified = try input.instant(millis: millis)
            }
            samples.append(sample)
        }
        return samples
    }
}
