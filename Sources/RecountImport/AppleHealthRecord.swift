import Recount

/// One sample element of an Apple Health export as written: attributes and the metadata the
/// importer uses, before any validation.
///
/// Filled by `ExportReader` from a top-level `<Record>` or `<Workout>` and its direct
/// `<MetadataEntry>` children, then turned into a `Sample` by `RecordConverter`. The attributes
/// every record has (`sourceName`, `device`, `value`, `unit`) are kept as bytes in one buffer that
/// the reader reuses from record to record: no `String` is made for them.
struct AppleHealthRecord: Sendable {
    /// What the record carries besides its times.
    enum Kind: Sendable {
        /// `value` (a number) and `unit`.
        case quantity
        /// A sleep-analysis category `value`.
        case sleep
        /// A `<Workout>`: neither value nor unit.
        case workout
    }

    /// A timestamp attribute, parsed where it was read (no `String` for the valid ones).
    enum Timestamp: Sendable {
        /// A valid timestamp.
        case valid(ExportTimestamp)
        /// The text of an invalid one, for the rejection.
        case invalid(String)

        /// Parses an attribute value.
        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            if let timestamp = ExportTimestamp(parsing: bytes) {
                self = .valid(timestamp)
            } else {
                self = .invalid(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// A type the importer reads: its kind, its HealthKit identifier and the catalogue metric it
    /// stands for.
    struct RecordType: Sendable {
        /// What the record carries besides its times.
        var kind: Kind
        /// The HealthKit type identifier.
        var name: String
        /// The identifier as a catalogue type name; `nil` if the catalogue did not know it.
        var metric: MetricName?

        init(kind: Kind, name: String) {
            self.kind = kind
            self.name = name
            metric = MetricName(name)
        }
    }

    /// `<Workout>`s, which carry no `type` attribute: reported as `HKWorkoutTypeIdentifier`.
    static let workoutType = RecordType(kind: .workout, name: "HKWorkoutTypeIdentifier")

    /// The supported `<Record>` types and their kinds (contract §2, v1 catalogue).
    static let supportedRecordTypes: [(name: StaticString, kind: Kind)] = [
        ("HKQuantityTypeIdentifierStepCount", .quantity),
        ("HKQuantityTypeIdentifierDistanceWalkingRunning", .quantity),
        ("HKQuantityTypeIdentifierActiveEnergyBurned", .quantity),
        ("HKQuantityTypeIdentifierHeartRate", .quantity),
        ("HKQuantityTypeIdentifierBodyMass", .quantity),
        ("HKQuantityTypeIdentifierBloodGlucose", .quantity),
        ("HKCategoryTypeIdentifierSleepAnalysis", .sleep),
    ]

    /// `supportedRecordTypes` with their names and metrics, made once.
    private static let supportedRecordTypeValues = supportedRecordTypes.map {
        RecordType(kind: $0.kind, name: $0.name.description)
    }

    /// The supported `<Record>` type of a `type` attribute's bytes; `nil` for every other type.
    static func supportedRecordType(_ type: UnsafeBufferPointer<UInt8>) -> RecordType? {
        for (index, entry) in supportedRecordTypes.enumerated() where XMLStartTag.equal(type, entry.name) {
            return supportedRecordTypeValues[index]
        }
        return nil
    }

    /// The record's kind.
    var kind = Kind.quantity
    /// HealthKit type identifier.
    var type = ""
    /// The identifier as a catalogue type name.
    var metric: MetricName?
    /// Line of the element in the file, as reported by the parser.
    var line = 0
    /// The bytes of `sourceName`, `device`, `value` and `unit`, one after the other.
    private var bytes: [UInt8] = []
    /// `sourceName` attribute: its range in `bytes`.
    var sourceName: Range<Int>?
    /// `device` attribute: its range in `bytes`.
    var device: Range<Int>?
    /// `value` attribute: its range in `bytes`.
    var value: Range<Int>?
    /// `unit` attribute: its range in `bytes`.
    var unit: Range<Int>?
    /// `creationDate` attribute.
    var creationDate: Timestamp?
    /// `startDate` attribute.
    var startDate: Timestamp?
    /// `endDate` attribute.
    var endDate: Timestamp?
    /// `HKTimeZone` metadata (first entry wins).
    var timeZone: String?
    /// `HKMetadataKeySyncIdentifier` metadata.
    var syncIdentifier: String?
    /// `HKMetadataKeySyncVersion` metadata.
    var syncVersion: String?
    /// A workout's `workoutActivityType` attribute.
    var activityType: String?
    /// A workout's distance total and unit: its `totalDistance`/`totalDistanceUnit` attributes,
    /// else the `sum` of its first distance `<WorkoutStatistics>` (newer exports).
    var totalDistance: (value: String, unit: String)?
    /// A workout's energy total and unit, from `totalEnergyBurned`/`totalEnergyBurnedUnit` or
    /// its active-energy `<WorkoutStatistics>`.
    var totalEnergy: (value: String, unit: String)?

    /// Creates an empty record, to be filled by `start(kind:type:tag:)`.
    init() {}

    /// Forgets the previous record and captures the attributes of a `<Record>` or `<Workout>`
    /// element, keeping the byte buffer's capacity.
    ///
    /// - Parameters:
    ///   - type: the record's type.
    ///   - tag: the element's start tag.
    mutating func start(_ type: RecordType, tag: XMLStartTag) {
        var buffer: [UInt8] = []
        swap(&buffer, &bytes)
        buffer.removeAll(keepingCapacity: true)
        self = AppleHealthRecord(type: type, line: tag.line, bytes: buffer)
        for index in 0..<tag.attributeCount where !tag.attributePrefixed(index) {
            let name = tag.attributeName(index)
            let written = tag.attributeValue(index)
            func named(_ literal: StaticString) -> Bool { XMLStartTag.equal(name, literal) }
            // The first letter picks the candidates, so most attributes are compared once.
            switch name[0] {
            case UInt8(ascii: "s"):
                if named("sourceName") {
                    sourceName = keep(written)
                } else if named("startDate") {
                    startDate = Timestamp(written)
                }
            case UInt8(ascii: "d") where named("device"): device = keep(written)
            case UInt8(ascii: "c") where named("creationDate"): creationDate = Timestamp(written)
            case UInt8(ascii: "e") where named("endDate"): endDate = Timestamp(written)
            case UInt8(ascii: "v") where kind != .workout && named("value"): value = keep(written)
            case UInt8(ascii: "u") where kind != .workout && named("unit"): unit = keep(written)
            case UInt8(ascii: "w") where kind == .workout && named("workoutActivityType"):
                activityType = String(decoding: written, as: UTF8.self)
            default: break
            }
        }
        if kind == .workout {
            totalDistance = Self.total(tag, "totalDistance", "totalDistanceUnit")
            totalEnergy = Self.total(tag, "totalEnergyBurned", "totalEnergyBurnedUnit")
        }
    }

    /// A record with no attributes yet, reusing `bytes` (emptied).
    private init(type: RecordType, line: Int, bytes: [UInt8]) {
        kind = type.kind
        self.type = type.name
        metric = type.metric
        self.line = line
        self.bytes = bytes
    }

    /// Copies an attribute value into `bytes`.
    /// - Returns: its range there.
    private mutating func keep(_ value: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: value)
        return start..<bytes.count
    }

    /// Calls `body` with the bytes of a kept attribute (empty when the record has none).
    /// - Parameters:
    ///   - attribute: the attribute's range, such as `value`.
    ///   - body: reads the bytes, valid only during the call.
    func withBytes<Result>(
        of attribute: Range<Int>?, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { all in
            try body(
                attribute.map { UnsafeBufferPointer(rebasing: all[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0))
        }
    }

    /// The text of a kept attribute, for messages.
    func text(of attribute: Range<Int>?) -> String {
        withBytes(of: attribute) { String(decoding: $0, as: UTF8.self) }
    }

    /// A value attribute and its unit attribute, when the tag has both.
    private static func total(_ tag: XMLStartTag, _ value: StaticString, _ unit: StaticString) -> (String, String)? {
        guard let value = tag.string(value), let unit = tag.string(unit) else { return nil }
        return (value, unit)
    }

    /// Records a workout's direct `<WorkoutStatistics type=… sum=… unit=…>` child: the first
    /// distance (`HKQuantityTypeIdentifierDistance…`) and active-energy sums stand in for the
    /// totals the `<Workout>` does not carry as attributes. Statistics nested deeper (per
    /// `<WorkoutActivity>`) are not read.
    ///
    /// - Parameter tag: the statistics' start tag.
    mutating func addStatistics(_ tag: XMLStartTag) {
        guard kind == .workout, let type = tag.string("type"), let total = Self.total(tag, "sum", "unit") else {
            return
        }
        if type.hasPrefix("HKQuantityTypeIdentifierDistance") {
            if totalDistance == nil { totalDistance = total }
        } else if type == "HKQuantityTypeIdentifierActiveEnergyBurned" {
            if totalEnergy == nil { totalEnergy = total }
        }
    }

    /// Records a `<MetadataEntry key=… value=…>` child; only the keys the importer uses are kept,
    /// and the first entry of each key wins. An entry without both attributes is ignored.
    ///
    /// - Parameter tag: the entry's start tag.
    mutating func addMetadata(_ tag: XMLStartTag) {
        guard let key = tag.attribute("key"), let value = tag.attribute("value") else { return }
        func matches(_ name: StaticString) -> Bool { XMLStartTag.equal(key, name) }
        if matches("HKTimeZone") {
            if timeZone == nil { timeZone = String(decoding: value, as: UTF8.self) }
        } else if matches("HKMetadataKeySyncIdentifier") {
            if syncIdentifier == nil { syncIdentifier = String(decoding: value, as: UTF8.self) }
        } else if matches("HKMetadataKeySyncVersion") {
            if syncVersion == nil { syncVersion = String(decoding: value, as: UTF8.self) }
        }
    }
}
