/// The samples of one envelope as the binary record holds them (see `docs/record-format.md`):
/// three tables of the strings samples repeat, then each sample, which refers to table entries
/// by number.
///
/// The tables are plain strings (origins, devices, zones), type names with their metric codes,
/// and unit symbols with their unit codes, each in order of first use. Decoding reads a type's
/// metric and a unit's meaning from the codes and never looks a name up in today's catalogue.
///
/// The fold reads samples in this form (`Projections.apply(_:samples:at:)`): an entry's fields
/// are plain values and its strings are numbers, so folding it retains no string, and a table's
/// string is interned once per envelope rather than once per sample.
package struct SampleBlock: Sendable {
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

    /// One sample, its repeated strings as numbers in the block's tables (-1: absent). Every
    /// field is a plain value (its rare strings and workout are numbers in `texts` and
    /// `workouts`), so entries are copied and cleared without retaining or releasing anything.
    package struct Entry: Sendable {
        /// How the id is held: a UUID's halves in `idHigh` and `idLow`, or text in `texts`.
        enum IdForm: UInt8 { case lowercaseUUID, uppercaseUUID, text }

        /// The UUID's halves (big-endian); for a text id, `idLow` is its number in `texts`.
        var idHigh: UInt64
        var idLow: UInt64
        var idForm: IdForm
        /// The type, in `types`.
        package var type: Int32
        package var start: Instant
        package var end: Instant?
        /// The zone, origin and device, in `strings`.
        package var zone: Int32 = -1
        package var origin: Int32
        package var device: Int32 = -1
        package var value: Double?
        /// The value's unit, in `units` (present with the value).
        package var unit: Int32 = -1
        package var stage: SleepStage?
        /// The sync identifier, in `texts`.
        var syncIdentifier: Int32 = -1
        package var syncVersion: Int64?
        package var lastModified: Instant?
        /// The workout's details, in `workouts`.
        var workout: Int32 = -1
        /// The units of the workout's totals, in `units` (-1: a bare number in the canonical unit).
        var distanceUnit: Int32 = -1
        var energyUnit: Int32 = -1

        /// The id's UUID halves and letter case, when it is a UUID.
        var uuid: (high: UInt64, low: UInt64, lowercase: Bool)? {
            idForm == .text ? nil : (idHigh, idLow, idForm == .lowercaseUUID)
        }
    }

    /// Origins, devices and zones.
    package private(set) var strings: [String] = []
    /// Type names with the metric each stood for when written.
    package private(set) var types: [MetricName] = []
    /// Unit symbols with the unit each stood for when written.
    package private(set) var units: [UnitName] = []
    /// The samples, in order.
    package private(set) var entries: [Entry] = []
    /// The ids that are not UUIDs and the sync identifiers, in order of use.
    private var texts: [String] = []
    /// The workouts' details, in order.
    private var workouts: [WorkoutDetails] = []

    /// The block of `samples`, its tables numbered in order of first use.
    package init(_ samples: [Sample]) {
        fill(with: samples)
    }

    /// Fills this empty block (`removeAll()` empties one, keeping its arrays' room) with
    /// `samples`, as `init(_:)` does: a block refilled for each envelope allocates nothing once
    /// its arrays have grown.
    package mutating func fill(with samples: [Sample]) {
        precondition(entries.isEmpty && strings.isEmpty && types.isEmpty && units.isEmpty, "fill an empty block")
        var numbering = Numbering()
        entries.reserveCapacity(samples.count)
        // Samples are read in place through the buffer: binding one, or passing it to a function,
        // copies it and retains all its strings.
        samples.withUnsafeBufferPointer { samples in
            var hints = Hints()
            for index in samples.indices {
                let entry = Entry(samples.baseAddress! + index, numbering: &numbering, into: &self, hints: hints)
                hints = Hints(
                    type: entry.type, origin: entry.origin, zone: entry.zone, device: entry.device, unit: entry.unit,
                    distanceUnit: entry.distanceUnit, energyUnit: entry.energyUnit)
                entries.append(entry)
            }
        }
    }

    /// The samples as values of their own.
    package var samples: [Sample] {
        entries.map { entry in
            Sample(
                id: id(of: entry), type: types[Int(entry.type)], start: entry.start, end: entry.end,
                timeZone: string(entry.zone), value: entry.value, unit: entry.unit < 0 ? nil : units[Int(entry.unit)],
                stage: entry.stage, origin: strings[Int(entry.origin)], device: string(entry.device),
                syncIdentifier: text(entry.syncIdentifier), syncVersion: entry.syncVersion,
                lastModified: entry.lastModified, workout: workout(of: entry))
        }
    }

    /// The id of entry `number`.
    package func id(of number: Int) -> SampleID { id(of: entries[number]) }

    private func id(of entry: Entry) -> SampleID {
        entry.uuid.map { SampleID(uuid: $0.high, $0.low, lowercase: $0.lowercase) } ?? SampleID(texts[Int(entry.idLow)])
    }

    /// The sync identifier of entry `number`, if any.
    package func syncIdentifier(of number: Int) -> String? { text(entries[number].syncIdentifier) }

    /// The workout details of entry `number`, if any.
    package func workout(of number: Int) -> WorkoutDetails? { workout(of: entries[number]) }

    private func workout(of entry: Entry) -> WorkoutDetails? { entry.workout < 0 ? nil : workouts[Int(entry.workout)] }

    private func text(_ number: Int32) -> String? { number < 0 ? nil : texts[Int(number)] }

    /// Keeps `text` (an id that is no UUID, a sync identifier) for an entry; returns its number.
    fileprivate mutating func keep(text: String) -> Int32 {
        texts.append(text)
        return Int32(texts.count - 1)
    }

    /// Keeps `workout` for an entry; returns its number.
    fileprivate mutating func keep(workout: WorkoutDetails) -> Int32 {
        workouts.append(workout)
        return Int32(workouts.count - 1)
    }

    /// The entry of `strings` numbered `number`, if any.
    package func string(_ number: Int32) -> String? { number < 0 ? nil : strings[Int(number)] }

    /// The metric of entry `number`.
    package func metric(of number: Int) -> Metric { types[Int(entries[number].type)].metric }

    /// The value of entry `number` in its metric's canonical unit.
    package func canonicalValue(of number: Int) -> Double? {
        let unit = entries[number].unit
        guard let value = entries[number].value, unit >= 0, let measure = units[Int(unit)].unit else { return nil }
        return measure.toCanonical(value)
    }

    // MARK: Numbering the tables of new samples

    /// The table numbers of the previous sample, which the next one tries first (consecutive
    /// samples mostly repeat them). Plain numbers: passing the previous entry itself copied it.
    fileprivate struct Hints {
        var type: Int32 = 0, origin: Int32 = 0, zone: Int32 = 0, device: Int32 = 0, unit: Int32 = 0
        var distanceUnit: Int32 = 0, energyUnit: Int32 = 0
    }

    /// The numberings of the tables so far.
    fileprivate struct Numbering {
        var strings = TableNumbering()
        var types = TableNumbering()
        var units = TableNumbering()
    }

    /// The number of `string` in `strings`, added when new; `hint` is the number to try first.
    fileprivate mutating func number(_ string: String, hint: Int32, _ numbering: inout Numbering) -> Int32 {
        numbering.strings.number(of: string, in: &strings, hint: hint, text: { $0 }) { $0.hasSameUTF8(as: string) }
    }

    fileprivate mutating func number(_ type: MetricName, hint: Int32, _ numbering: inout Numbering) -> Int32 {
        numbering.types.number(of: type, in: &types, hint: hint, text: \.name) {
            $0.metric == type.metric && $0.name.hasSameUTF8(as: type.name)
        }
    }

    fileprivate mutating func number(_ unit: UnitName, hint: Int32, _ numbering: inout Numbering) -> Int32 {
        numbering.units.number(of: unit, in: &units, hint: hint, text: \.symbol) {
            $0.unit == unit.unit && $0.symbol.hasSameUTF8(as: unit.symbol)
        }
    }

    // MARK: Writing

    /// Writes the block in the record format.
    func write(_ out: inout RecordWriter) {
        out.varint(UInt64(strings.count))
        for string in strings { out.string(string) }
        out.varint(UInt64(types.count))
        for type in types { out.metricName(type) }
        out.varint(UInt64(units.count))
        for unit in units {
            out.byte(unit.unit?.rawValue ?? 0)
            out.string(unit.symbol)
        }
        out.varint(UInt64(entries.count))
        var previousStart: Int64 = 0
        for entry in entries {
            write(entry, after: previousStart, &out)
            previousStart = entry.start.millis
        }
    }

    /// Writes one sample. Its fields are staged and appended at once; the rare strings (an id
    /// that is no UUID, a sync identifier, an activity's name) are appended between stages. A
    /// stage holds at most 128 bytes: flags 2, id 16, type 5, start 13, end 13, zone 5, value 13,
    /// stage 1, origin 5, device 5, sync version 10, last modified 13, activity 1, totals 26.
    private func write(_ entry: Entry, after previousStart: Int64, _ out: inout RecordWriter) {
        var flags: Flags = []
        if entry.end != nil { flags.insert(.end) }
        if entry.zone >= 0 { flags.insert(.timeZone) }
        // A value is written with its unit (ingest never accepts one without the other).
        if entry.value != nil, entry.unit >= 0 { flags.insert(.value) }
        if entry.stage != nil { flags.insert(.stage) }
        if entry.device >= 0 { flags.insert(.device) }
        if entry.syncIdentifier >= 0 { flags.insert(.syncIdentifier) }
        if entry.syncVersion != nil { flags.insert(.syncVersion) }
        if entry.lastModified != nil { flags.insert(.lastModified) }
        let workout = workout(of: entry)
        if workout?.activity != nil { flags.insert(.activity) }
        if workout?.distance != nil { flags.insert(.distance) }
        if workout?.energy != nil { flags.insert(.energy) }
        let uuid = entry.uuid
        if let uuid { flags.insert(uuid.lowercase ? .lowercaseUUID : .uppercaseUUID) }
        var stage = StagedBytes()
        stage.varint(flags.rawValue)
        if let uuid {
            withUnsafeBytes(of: (uuid.high.bigEndian, uuid.low.bigEndian)) { stage.append($0) }
        } else {
            out.append(&stage)
            out.string(texts[Int(entry.idLow)])
        }
        stage.varint(UInt64(entry.type))
        stage.signed(entry.start.millis &- previousStart)
        stage.offset(of: entry.start)
        if let end = entry.end {
            stage.signed(end.millis &- entry.start.millis)
            stage.offset(of: end)
        }
        if entry.zone >= 0 { stage.varint(UInt64(entry.zone)) }
        if flags.contains(.value), let value = entry.value {
            stage.double(value)
            stage.varint(UInt64(entry.unit))
        }
        if let sleepStage = entry.stage { stage.byte(sleepStage.rawValue) }
        stage.varint(UInt64(entry.origin))
        if entry.device >= 0 { stage.varint(UInt64(entry.device)) }
        if let syncIdentifier = text(entry.syncIdentifier) {
            out.append(&stage)
            out.string(syncIdentifier)
        }
        if let syncVersion = entry.syncVersion { stage.signed(syncVersion) }
        if let lastModified = entry.lastModified {
            stage.signed(lastModified.millis &- entry.start.millis)
            stage.offset(of: lastModified)
        }
        if let activity = workout?.activity {
            stage.byte(activity.activity.rawValue)
            out.append(&stage)
            out.string(activity.name)
        }
        // A total's unit is its units-table index + 1; 0 is a bare number in the canonical unit.
        if let distance = workout?.distance {
            stage.double(distance.value)
            stage.varint(UInt64(entry.distanceUnit + 1))
        }
        if let energy = workout?.energy {
            stage.double(energy.value)
            stage.varint(UInt64(entry.energyUnit + 1))
        }
        out.append(&stage)
    }

    // MARK: Reading

    /// Reads the samples of a block written by `write(_:)`.
    static func read(_ input: inout RecordReader) throws(EnvelopeCodecError) -> [Sample] {
        try SampleBlock(reading: &input).samples
    }

    /// Reads a block written by `write(_:)`.
    init(reading input: inout RecordReader) throws(EnvelopeCodecError) {
        try read(&input)
    }

    /// Reads a block written by `write(_:)` into this one, which must be empty (`removeAll()`).
    mutating func read(_ input: inout RecordReader) throws(EnvelopeCodecError) {
        try Self.readTable(&input, into: &strings) { input throws(EnvelopeCodecError) in try input.repeatedString() }
        try Self.readTable(&input, into: &types) { input throws(EnvelopeCodecError) in try input.metricName() }
        try Self.readTable(&input, into: &units) { input throws(EnvelopeCodecError) in
            let code = try input.byte()
            let unit = MeasureUnit(rawValue: code)
            guard unit != nil || code == 0 else { throw input.malformed("unknown unit code \(code)") }
            return UnitName(unit: unit, symbol: try input.repeatedString())
        }
        let count = try Self.count(&input)
        entries.reserveCapacity(count)
        var previousStart: Int64 = 0
        for _ in 0..<count {
            try readEntry(after: previousStart, &input)
            previousStart = entries[entries.count - 1].start.millis
        }
    }

    /// Removes every sample and table entry, keeping the arrays' room: a replay reads every
    /// record into one block rather than allocating four arrays per record.
    package mutating func removeAll() {
        Self.empty(&strings)
        Self.empty(&types)
        Self.empty(&units)
        Self.empty(&entries)
        Self.empty(&texts)
        Self.empty(&workouts)
    }

    /// Empties `array`, keeping its room. `removeAll(keepingCapacity:)` goes through a generic
    /// `replaceSubrange` (about 150 instructions an array, empty or not); removing the last
    /// element while there is one costs a few for each of the few a block's arrays hold.
    @inline(__always)
    private static func empty<Element>(_ array: inout [Element]) {
        while !array.isEmpty { array.removeLast() }
    }

    /// A count of table elements or samples. Each takes a byte or more, so a count beyond the
    /// bytes left is damage (and is not reserved).
    private static func count(_ input: inout RecordReader) throws(EnvelopeCodecError) -> Int {
        let count = try input.count()
        guard count <= input.bytes.count - input.offset else { throw input.malformed("\(count) items in fewer bytes") }
        return count
    }

    /// A table: its count, then each element, their space reserved at once.
    private static func readTable<Element>(
        _ input: inout RecordReader, into table: inout [Element],
        _ element: (inout RecordReader) throws(EnvelopeCodecError) -> Element
    ) throws(EnvelopeCodecError) {
        let count = try count(&input)
        table.reserveCapacity(count)
        for _ in 0..<count { table.append(try element(&input)) }
    }

    /// Reads one sample and appends it; `previousStart` is the previous sample's start. (The
    /// entry is appended first and filled in place, its optional fields as they come.)
    private mutating func readEntry(after previousStart: Int64, _ input: inout RecordReader)
        throws(EnvelopeCodecError)
    {
        @inline(__always)
        func number(in count: Int, _ input: inout RecordReader) throws(EnvelopeCodecError) -> Int32 {
            let index = try input.count()
            guard index < count else { throw input.malformed("table index \(index) out of range") }
            return Int32(index)
        }
        let raw = try input.varint()
        guard raw & ~Flags.all(version: input.version) == 0 else { throw input.malformed("unknown sample flags") }
        let flags = Flags(rawValue: raw)
        let (high, low, form): (UInt64, UInt64, Entry.IdForm)
        if flags.contains(.lowercaseUUID) || flags.contains(.uppercaseUUID) {
            guard input.bytes.count - input.offset >= 16 else { throw input.malformed("record ends early") }
            high = UInt64(bigEndian: input.bytes.loadUnaligned(fromByteOffset: input.offset, as: UInt64.self))
            low = UInt64(bigEndian: input.bytes.loadUnaligned(fromByteOffset: input.offset + 8, as: UInt64.self))
            form = flags.contains(.lowercaseUUID) ? .lowercaseUUID : .uppercaseUUID
            input.offset += 16
        } else {
            (high, low, form) = (0, UInt64(keep(text: try input.string())), .text)
        }
        let type = try number(in: types.count, &input)
        let startMillis = previousStart &+ (try input.signed())
        let start = try input.instant(millis: startMillis)
        let end = flags.contains(.end) ? try input.instant(millis: startMillis &+ (try input.signed())) : nil
        let zone = flags.contains(.timeZone) ? try number(in: strings.count, &input) : -1
        // Filled as a local and appended once: each field set through `entries[last]` checked the
        // array's uniqueness and bounds again (about 2% of a replay's instructions).
        var entry = Entry(
            idHigh: high, idLow: low, idForm: form, type: type, start: start, end: end, zone: zone, origin: 0)
        if flags.contains(.value) {
            entry.value = try input.double()
            entry.unit = try number(in: units.count, &input)
        }
        if flags.contains(.stage) {
            guard let stage = SleepStage(rawValue: try input.byte()) else {
                throw input.malformed("unknown sleep stage")
            }
            entry.stage = stage
        }
        entry.origin = try number(in: strings.count, &input)
        if flags.contains(.device) { entry.device = try number(in: strings.count, &input) }
        if flags.contains(.syncIdentifier) {
            entry.syncIdentifier = keep(text: try input.string())
        }
        if flags.contains(.syncVersion) { entry.syncVersion = try input.signed() }
        if flags.contains(.lastModified) {
            entry.lastModified = try input.instant(millis: startMillis &+ (try input.signed()))
        }
        if !flags.isDisjoint(with: [.activity, .distance, .energy]) {
            let workout = try Self.readWorkout(flags, units: units, into: &entry, &input)
            if let workout { entry.workout = keep(workout: workout) }
        }
        entries.append(entry)
    }

    /// The workout fields of a format-3 sample (flags 10–12); the totals' unit numbers go in `entry`.
    private static func readWorkout(
        _ flags: Flags, units: [UnitName], into entry: inout Entry, _ input: inout RecordReader
    )
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
        func total(_ flag: Flags, _ unitNumber: inout Int32, _ input: inout RecordReader)
            throws(EnvelopeCodecError) -> WorkoutTotal?
        {
            guard flags.contains(flag) else { return nil }
            let value = try input.double()
            let unit = try input.count()
            guard unit <= units.count else { throw input.malformed("table index \(unit - 1) out of range") }
            unitNumber = Int32(unit) - 1
            return WorkoutTotal(value: value, unit: unit == 0 ? nil : units[unit - 1])
        }
        let distance = try total(.distance, &entry.distanceUnit, &input)
        let energy = try total(.energy, &entry.energyUnit, &input)
        return WorkoutDetails.make(activity: activity, distance: distance, energy: energy)
    }
}

extension SampleBlock.Entry {
    /// The entry of the sample at `pointer`, numbering its strings in `block`'s tables; each
    /// field tries the previous sample's number (`hints`) first.
    // Inlined into the block's init, with the table numbering: called, it cost 40 M
    // instructions in an ingest of 40,000 envelopes.
    @inline(__always)
    fileprivate init(
        _ pointer: UnsafePointer<Sample>, numbering: inout SampleBlock.Numbering, into block: inout SampleBlock,
        hints: SampleBlock.Hints
    ) {
        let sample = pointer
        if let uuid = sample.pointee.id.uuid {
            (idHigh, idLow, idForm) = (uuid.high, uuid.low, uuid.lowercase ? .lowercaseUUID : .uppercaseUUID)
        } else {
            (idHigh, idLow, idForm) = (0, UInt64(block.keep(text: sample.pointee.id.text)), .text)
        }
        type = block.number(sample.pointee.type, hint: hints.type, &numbering)
        start = sample.pointee.start
        end = sample.pointee.end
        origin = block.number(sample.pointee.origin, hint: hints.origin, &numbering)
        if let zone = sample.pointee.timeZone { self.zone = block.number(zone, hint: hints.zone, &numbering) }
        if let device = sample.pointee.device {
            self.device = block.number(device, hint: hints.device, &numbering)
        }
        value = sample.pointee.value
        if let unit = sample.pointee.unit { self.unit = block.number(unit, hint: hints.unit, &numbering) }
        stage = sample.pointee.stage
        if let syncIdentifier = sample.pointee.syncIdentifier {
            self.syncIdentifier = block.keep(text: syncIdentifier)
        }
        syncVersion = sample.pointee.syncVersion
        lastModified = sample.pointee.lastModified
        if let workout = sample.pointee.workout {
            self.workout = block.keep(workout: workout)
            if let unit = workout.distance?.unit {
                distanceUnit = block.number(unit, hint: hints.distanceUnit, &numbering)
            }
            if let unit = workout.energy?.unit {
                energyUnit = block.number(unit, hint: hints.energyUnit, &numbering)
            }
        }
    }
}
