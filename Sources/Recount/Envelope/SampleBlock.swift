/// The samples of one envelope in the binary record (see `docs/record-format.md`): three tables
/// of the strings samples repeat, then each sample.
///
/// The tables are plain strings (origins, devices, zones), type names with their metric codes,
/// and unit symbols with their unit codes, each in order of first use. A sample refers to table
/// entries by number, so decoding reads a type's metric and a unit's meaning from the codes and
/// never looks a name up in today's catalogue.
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
        /// The workout's activity (format 3).
        static let activity = Flags(rawValue: 1 << 10)
        /// The workout's distance total (format 3).
        static let distance = Flags(rawValue: 1 << 11)
        /// The workout's energy total (format 3).
        static let energy = Flags(rawValue: 1 << 12)

        /// Every flag a record of `version` may carry; a later format adds fields under higher bits.
        static func all(version: UInt8) -> UInt64 { version >= 3 ? (1 << 13) - 1 : (1 << 10) - 1 }
    }

    /// The tables a block's samples refer to.
    private struct Tables {
        var strings = StringTable()
        var types = StringTable()
        var units = StringTable()

        func write(_ out: inout RecordWriter) {
            out.varint(UInt64(strings.entries.count))
            for entry in strings.entries { out.string(entry.string) }
            func writeCoded(_ table: StringTable) {
                out.varint(UInt64(table.entries.count))
                for entry in table.entries {
                    out.byte(entry.code)
                    out.string(entry.string)
                }
            }
            writeCoded(types)
            writeCoded(units)
        }
    }

    static func write(_ samples: [Sample], _ out: inout RecordWriter) {
        // One pass numbers the repeated strings; the samples then refer to them by index.
        var tables = Tables()
        var references: [StringReferences] = []
        references.reserveCapacity(samples.count)
        // Samples are read in place through the buffer: binding one, or passing it to a function,
        // copies it and retains all its strings.
        samples.withUnsafeBufferPointer { samples in
            var previous = StringReferences()
            for index in samples.indices {
                previous = StringReferences(samples, index, in: &tables, hints: previous)
                references.append(previous)
            }
            tables.write(&out)
            out.varint(UInt64(samples.count))
            var previousStart: Int64 = 0
            for index in samples.indices {
                write(samples.baseAddress! + index, references[index], after: previousStart, &out)
                previousStart = samples[index].start.millis
            }
        }
    }

    /// A sample's repeated strings as table numbers (-1 when absent).
    private struct StringReferences {
        var type: Int32 = 0, origin: Int32 = 0, unit: Int32 = 0, zone: Int32 = 0, device: Int32 = 0
        /// The units of the workout totals.
        var distanceUnit: Int32 = -1, energyUnit: Int32 = -1

        init() {}

        /// Numbers the strings of `samples[index]` in `tables`, trying each field's number in
        /// `hints` (the previous sample's) first, since consecutive samples mostly repeat them.
        init(_ samples: UnsafeBufferPointer<Sample>, _ index: Int, in tables: inout Tables, hints: StringReferences) {
            func number(_ string: String?, _ hint: Int32) -> Int32 {
                string.map { tables.strings.index(adding: $0, hint: hint) } ?? -1
            }
            type = tables.types.index(
                adding: samples[index].type.name, code: samples[index].type.metric.rawValue, hint: hints.type)
            origin = tables.strings.index(adding: samples[index].origin, hint: hints.origin)
            func unitNumber(_ unit: UnitName?, _ hint: Int32) -> Int32 {
                unit.map { tables.units.index(adding: $0.symbol, code: $0.unit?.rawValue ?? 0, hint: hint) } ?? -1
            }
            unit = unitNumber(samples[index].unit, hints.unit)
            zone = number(samples[index].timeZone, hints.zone)
            device = number(samples[index].device, hints.device)
            if let workout = samples[index].workout {
                distanceUnit = unitNumber(workout.distance?.unit, hints.distanceUnit)
                energyUnit = unitNumber(workout.energy?.unit, hints.energyUnit)
            }
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
        // A value is written with its unit (ingest never accepts one without the other).
        if pointer.pointee.value != nil, references.unit >= 0 { flags.insert(.value) }
        if pointer.pointee.stage != nil { flags.insert(.stage) }
        if pointer.pointee.device != nil { flags.insert(.device) }
        if pointer.pointee.syncIdentifier != nil { flags.insert(.syncIdentifier) }
        if pointer.pointee.syncVersion != nil { flags.insert(.syncVersion) }
        if pointer.pointee.lastModified != nil { flags.insert(.lastModified) }
        let workout = pointer.pointee.workout
        if workout?.activity != nil { flags.insert(.activity) }
        if workout?.distance != nil { flags.insert(.distance) }
        if workout?.energy != nil { flags.insert(.energy) }
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
        if flags.contains(.value), let value = pointer.pointee.value {
            out.double(value)
            out.varint(UInt64(references.unit))
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
        if let activity = workout?.activity {
            out.byte(activity.activity.rawValue)
            out.string(activity.name)
        }
        // A total's unit is its units-table index + 1; 0 is a bare number in the canonical unit.
        if let distance = workout?.distance {
            out.double(distance.value)
            out.varint(UInt64(references.distanceUnit + 1))
        }
        if let energy = workout?.energy {
            out.double(energy.value)
            out.varint(UInt64(references.energyUnit + 1))
        }
    }

    /// The tables a block's samples refer to, as read.
    private struct ReadTables {
        var strings: [String] = []
        var types: [MetricName] = []
        var units: [UnitName] = []

        init(_ input: inout RecordReader) throws(EnvelopeCodecError) {
            for _ in 0..<(try input.count()) { strings.append(try input.string()) }
            for _ in 0..<(try input.count()) { types.append(try input.metricName()) }
            for _ in 0..<(try input.count()) {
                let code = try input.byte()
                let unit = MeasureUnit(rawValue: code)
                guard unit != nil || code == 0 else { throw input.malformed("unknown unit code \(code)") }
                units.append(UnitName(unit: unit, symbol: try input.string()))
            }
        }
    }

    static func read(_ input: inout RecordReader) throws(EnvelopeCodecError) -> [Sample] {
        let tables = try ReadTables(&input)
        let count = try input.count()
        // Every sample takes several bytes, so a count beyond the bytes left is damage.
        guard count <= input.bytes.count - input.offset else {
            throw input.malformed("\(count) samples in fewer bytes")
        }
        // Each sample is moved into place in the array as it is read: appending it copied it,
        // retaining and releasing each of its strings.
        var failure: EnvelopeCodecError?
        let samples = [Sample](unsafeUninitializedCapacity: count) {
            buffer, initialized in
            var previousStart: Int64 = 0
            do throws(EnvelopeCodecError) {
                for index in 0..<count {
                    (buffer.baseAddress! + index).initialize(to: try readSample(tables, after: &previousStart, &input))
                    initialized += 1
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return samples
    }

    /// Reads one sample; `previousStart` is the previous sample's start, which it becomes.
    private static func readSample(_ tables: ReadTables, after previousStart: inout Int64, _ input: inout RecordReader)
        throws(EnvelopeCodecError) -> Sample
    {
        func entry<Entry>(_ table: [Entry], _ input: inout RecordReader) throws(EnvelopeCodecError) -> Entry {
            let index = try input.count()
            guard index < table.count else { throw input.malformed("table index \(index) out of range") }
            return table[index]
        }
        let raw = try input.varint()
        guard raw & ~Flags.all(version: input.version) == 0 else { throw input.malformed("unknown sample flags") }
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
        let type = try entry(tables.types, &input)
        let startMillis = previousStart &+ (try input.signed())
        previousStart = startMillis
        let start = try input.instant(millis: startMillis)
        let end = flags.contains(.end) ? try input.instant(millis: startMillis &+ (try input.signed())) : nil
        let timeZone = flags.contains(.timeZone) ? try entry(tables.strings, &input) : nil
        var value: Double?
        var unit: UnitName?
        if flags.contains(.value) {
            value = try input.double()
            unit = try entry(tables.units, &input)
        }
        var stage: SleepStage?
        if flags.contains(.stage) {
            stage = SleepStage(rawValue: try input.byte())
            guard stage != nil else { throw input.malformed("unknown sleep stage") }
        }
        let origin = try entry(tables.strings, &input)
        let device = flags.contains(.device) ? try entry(tables.strings, &input) : nil
        let syncIdentifier = flags.contains(.syncIdentifier) ? try input.string() : nil
        let syncVersion = flags.contains(.syncVersion) ? try input.signed() : nil
        let lastModified =
            flags.contains(.lastModified) ? try input.instant(millis: startMillis &+ (try input.signed())) : nil
        let workout =
            flags.isDisjoint(with: [.activity, .distance, .energy]) ? nil : try readWorkout(flags, tables.units, &input)
        return Sample(
            id: id, type: type, start: start, end: end, timeZone: timeZone, value: value, unit: unit,
            stage: stage, origin: origin, device: device, syncIdentifier: syncIdentifier,
            syncVersion: syncVersion, lastModified: lastModified, workout: workout)
    }

    /// The workout fields of a format-3 sample (flags 10–12).
    private static func readWorkout(_ flags: Flags, _ units: [UnitName], _ input: inout RecordReader)
        throws(EnvelopeCodecError) -> WorkoutDetails?
    {
        var activity: ActivityName?
        if flags.contains(.activity) {
            let code = try input.byte()
            guard let known = WorkoutActivity(rawValue: code) else {
                throw input.malformed("unknown activity code \(code)")
            }
            activity = ActivityName(activity: known, name: try input.string())
        }
        func total(_ flag: Flags, _ input: inout RecordReader) throws(EnvelopeCodecError) -> WorkoutTotal? {
            guard flags.contains(flag) else { return nil }
            let value = try input.double()
            let unit = try input.count()
            guard unit <= units.count else { throw input.malformed("table index \(unit - 1) out of range") }
            return WorkoutTotal(value: value, unit: unit == 0 ? nil : units[unit - 1])
        }
        let distance = try total(.distance, &input)
        let energy = try total(.energy, &input)
        return WorkoutDetails.make(activity: activity, distance: distance, energy: energy)
    }
}
