internal import Glibc
import Recount

/// One sample element of an Apple Health export as written: attributes and the metadata the
/// importer uses, before any validation.
///
/// Filled by `ExportReader` from a top-level `<Record>` or `<Workout>` and its direct
/// `<MetadataEntry>` and `<WorkoutStatistics>` children, then turned into a `Sample` by
/// `RecordConverter`. Every attribute kept is copied as bytes into one buffer that the reader
/// reuses from record to record, and the record holds only ranges in it, its type's index and
/// parsed timestamps: apart from the buffer nothing in it is reference-counted, so starting,
/// copying and dropping a record costs no retain or release per field.
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

    /// A timestamp attribute, parsed where it was read.
    enum Timestamp: Sendable {
        /// A valid timestamp.
        case valid(ExportTimestamp)
        /// An invalid one: its text's range in the record's bytes, for the rejection.
        case invalid(Range<Int>)
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

    /// The supported `<Record>` types and their kinds (contract §2, v1 catalogue). The names are
    /// string literals, which are never reference-counted: every sample's type shares them.
    static let supportedRecordTypes: [(name: String, kind: Kind)] = [
        ("HKQuantityTypeIdentifierStepCount", .quantity),
        ("HKQuantityTypeIdentifierDistanceWalkingRunning", .quantity),
        ("HKQuantityTypeIdentifierActiveEnergyBurned", .quantity),
        ("HKQuantityTypeIdentifierHeartRate", .quantity),
        ("HKQuantityTypeIdentifierBodyMass", .quantity),
        ("HKQuantityTypeIdentifierBloodGlucose", .quantity),
        ("HKCategoryTypeIdentifierSleepAnalysis", .sleep),
    ]

    /// The types a record can have, by index: `supportedRecordTypes` with their names and
    /// metrics, made once, then `<Workout>`s, which carry no `type` attribute and are reported as
    /// `HKWorkoutTypeIdentifier`.
    static let recordTypes =
        supportedRecordTypes.map { RecordType(kind: $0.kind, name: $0.name) }
        + [RecordType(kind: .workout, name: "HKWorkoutTypeIdentifier")]

    /// The index of `<Workout>`'s type in `recordTypes`.
    static let workoutType = supportedRecordTypes.count

    /// The index in `recordTypes` of the supported `<Record>` type of a `type` attribute's bytes;
    /// `nil` for every other type.
    static func supportedRecordType(_ type: UnsafeBufferPointer<UInt8>) -> Int? {
        for index in supportedRecordTypes.indices {
            let name = supportedRecordTypes[index].name.utf8
            guard name.count == type.count, let base = type.baseAddress else { continue }
            let same = name.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, base, $0.count) == 0 }
            if same ?? name.elementsEqual(type) { return index }
        }
        return nil
    }

    /// The record's type: its index in `recordTypes`.
    private(set) var typeIndex = 0
    /// The record's kind.
    private(set) var kind = Kind.quantity
    /// Line of the element in the file, as reported by the parser.
    private(set) var line = 0
    /// The bytes of the attributes kept, one after the other.
    private var bytes: [UInt8] = []
    /// `sourceName` attribute: its range in `bytes`.
    private(set) var sourceName: Range<Int>?
    /// `device` attribute: its range in `bytes`.
    private(set) var device: Range<Int>?
    /// `value` attribute: its range in `bytes`.
    private(set) var value: Range<Int>?
    /// `unit` attribute: its range in `bytes`.
    private(set) var unit: Range<Int>?
    /// `creationDate` attribute.
    private(set) var creationDate: Timestamp?
    /// `startDate` attribute.
    private(set) var startDate: Timestamp?
    /// `endDate` attribute.
    private(set) var endDate: Timestamp?
    /// `HKTimeZone` metadata (first entry wins): its range in `bytes`.
    private(set) var timeZone: Range<Int>?
    /// `HKMetadataKeySyncIdentifier` metadata: its range in `bytes`.
    private(set) var syncIdentifier: Range<Int>?
    /// `HKMetadataKeySyncVersion` metadata: its range in `bytes`.
    private(set) var syncVersion: Range<Int>?
    /// A workout's `workoutActivityType` attribute: its range in `bytes`.
    private(set) var activityType: Range<Int>?
    /// A workout's distance total and unit: its `totalDistance`/`totalDistanceUnit` attributes;
    /// ranges in `bytes`.
    private(set) var totalDistance: (value: Range<Int>, unit: Range<Int>)?
    /// Without those attributes (newer exports), the `sum` and `unit` of the workout's distance
    /// `<WorkoutStatistics>`, the first of each type: one for most workouts, one per sport for a
    /// multisport one (swimming, cycling, running); ranges in `bytes`.
    private(set) var distanceStatistics: [(type: String, value: Range<Int>, unit: Range<Int>)] = []
    /// A workout's energy total and unit, from `totalEnergyBurned`/`totalEnergyBurnedUnit` or
    /// its active-energy `<WorkoutStatistics>`; ranges in `bytes`.
    private(set) var totalEnergy: (value: Range<Int>, unit: Range<Int>)?

    /// Creates an empty record, to be filled by `start(_:tag:)`.
    init() {}

    /// The record's HealthKit type identifier.
    var type: String { Self.recordTypes[typeIndex].name }
    /// The record's type as a catalogue type name; `nil` if the catalogue did not know it.
    var metric: MetricName? { Self.recordTypes[typeIndex].metric }

    /// Forgets the previous record and captures the attributes of a `<Record>` or `<Workout>`
    /// element, keeping the byte buffer's capacity.
    ///
    /// - Parameters:
    ///   - type: the record's type, an index in `recordTypes`.
    ///   - tag: the element's start tag.
    mutating func start(_ type: Int, tag: XMLStartTag) {
        typeIndex = type
        kind = Self.recordTypes[type].kind
        line = tag.line
        bytes.removeAll(keepingCapacity: true)
        sourceName = nil
        device = nil
        value = nil
        unit = nil
        creationDate = nil
        startDate = nil
        endDate = nil
        timeZone = nil
        syncIdentifier = nil
        syncVersion = nil
        activityType = nil
        totalDistance = nil
        distanceStatistics.removeAll(keepingCapacity: true)
        totalEnergy = nil
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
                    startDate = timestamp(written)
                }
            case UInt8(ascii: "d") where named("device"): device = keep(written)
            case UInt8(ascii: "c") where named("creationDate"): creationDate = timestamp(written)
            case UInt8(ascii: "e") where named("endDate"): endDate = timestamp(written)
            case UInt8(ascii: "v") where kind != .workout && named("value"): value = keep(written)
            case UInt8(ascii: "u") where kind != .workout && named("unit"): unit = keep(written)
            case UInt8(ascii: "w") where kind == .workout && named("workoutActivityType"):
                activityType = keep(written)
            default: break
            }
        }
        if kind == .workout {
            totalDistance = total(tag, "totalDistance", "totalDistanceUnit")
            totalEnergy = total(tag, "totalEnergyBurned", "totalEnergyBurnedUnit")
        }
    }

    /// Copies an attribute value into `bytes`.
    /// - Returns: its range there.
    private mutating func keep(_ value: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: value)
        return start..<bytes.count
    }

    /// Parses a timestamp attribute; the text of an invalid one is kept for the rejection.
    private mutating func timestamp(_ written: UnsafeBufferPointer<UInt8>) -> Timestamp {
        if let timestamp = ExportTimestamp(parsing: written) { return .valid(timestamp) }
        return .invalid(keep(written))
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

    /// The text of a kept attribute.
    func text(of attribute: Range<Int>) -> String {
        withBytes(of: attribute) { String(decoding: $0, as: UTF8.self) }
    }

    /// A value attribute and its unit attribute, kept, when the tag has both.
    private mutating func total(_ tag: XMLStartTag, _ value: StaticString, _ unit: StaticString) -> (
        value: Range<Int>, unit: Range<Int>
    )? {
        guard let value = tag.attribute(value), let unit = tag.attribute(unit) else { return nil }
        return (keep(value), keep(unit))
    }

    /// Records a workout's direct `<WorkoutStatistics type=… sum=… unit=…>` child: the distance
    /// (`HKQuantityTypeIdentifierDistance…`, the first of each type) and the first active-energy
    /// sums stand in for the totals the `<Workout>` does not carry as attributes. Statistics
    /// nested deeper (per `<WorkoutActivity>`) are not read.
    ///
    /// - Parameter tag: the statistics' start tag.
    mutating func addStatistics(_ tag: XMLStartTag) {
        guard kind == .workout, let type = tag.string("type"), tag.attribute("sum") != nil,
            tag.attribute("unit") != nil
        else { return }
        if type.hasPrefix("HKQuantityTypeIdentifierDistance") {
            guard totalDistance == nil, !distanceStatistics.contains(where: { $0.type == type }),
                let sum = total(tag, "sum", "unit")
            else { return }
            distanceStatistics.append((type, sum.value, sum.unit))
        } else if type == "HKQuantityTypeIdentifierActiveEnergyBurned" {
            if totalEnergy == nil { totalEnergy = total(tag, "sum", "unit") }
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
            if timeZone == nil { timeZone = keep(value) }
        } else if matches("HKMetadataKeySyncIdentifier") {
            if syncIdentifier == nil { syncIdentifier = keep(value) }
        } else if matches("HKMetadataKeySyncVersion") {
            if syncVersion == nil { syncVersion = keep(value) }
        }
    }
}
