/// One sample element of an Apple Health export as written: attributes and the metadata the
/// importer uses, before any validation.
///
/// Filled by `ExportReader` from a top-level `<Record>` or `<Workout>` and its direct
/// `<MetadataEntry>` children, then turned into a `Sample` by `RecordConverter`.
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

    /// The HealthKit type identifier reported for workouts, which carry no `type` attribute.
    static let workoutType = "HKWorkoutTypeIdentifier"

    /// The supported `<Record>` types and their kinds (contract §2, v1 catalogue).
    static let supportedRecordTypes: [String: Kind] = [
        "HKQuantityTypeIdentifierStepCount": .quantity,
        "HKQuantityTypeIdentifierDistanceWalkingRunning": .quantity,
        "HKQuantityTypeIdentifierActiveEnergyBurned": .quantity,
        "HKQuantityTypeIdentifierHeartRate": .quantity,
        "HKQuantityTypeIdentifierBodyMass": .quantity,
        "HKQuantityTypeIdentifierBloodGlucose": .quantity,
        "HKCategoryTypeIdentifierSleepAnalysis": .sleep,
    ]

    /// The record's kind.
    var kind: Kind
    /// HealthKit type identifier.
    var type: String
    /// Line of the element in the file, as reported by the parser.
    var line: Int
    /// `sourceName` attribute.
    var sourceName: String?
    /// `device` attribute.
    var device: String?
    /// `value` attribute.
    var value: String?
    /// `unit` attribute.
    var unit: String?
    /// `creationDate` attribute.
    var creationDate: String?
    /// `startDate` attribute.
    var startDate: String?
    /// `endDate` attribute.
    var endDate: String?
    /// `HKTimeZone` metadata (first entry wins).
    var timeZone: String?
    /// `HKMetadataKeySyncIdentifier` metadata.
    var syncIdentifier: String?
    /// `HKMetadataKeySyncVersion` metadata.
    var syncVersion: String?

    /// Captures the attributes of a `<Record>` or `<Workout>` element.
    ///
    /// - Parameters:
    ///   - kind: the kind for `type`.
    ///   - type: the HealthKit type identifier.
    ///   - line: the element's line.
    ///   - attributes: the element's attributes.
    init(kind: Kind, type: String, line: Int, attributes: [String: String]) {
        self.kind = kind
        self.type = type
        self.line = line
        sourceName = attributes["sourceName"]
        device = attributes["device"]
        creationDate = attributes["creationDate"]
        startDate = attributes["startDate"]
        endDate = attributes["endDate"]
        if kind != .workout {
            value = attributes["value"]
            unit = attributes["unit"]
        }
    }

    /// Records a `<MetadataEntry key=… value=…>` child; only the keys the importer uses are kept,
    /// and the first entry of each key wins.
    ///
    /// - Parameters:
    ///   - key: the entry's key.
    ///   - value: the entry's value.
    mutating func addMetadata(key: String, value: String) {
        switch key {
        case "HKTimeZone" where timeZone == nil: timeZone = value
        case "HKMetadataKeySyncIdentifier" where syncIdentifier == nil: syncIdentifier = value
        case "HKMetadataKeySyncVersion" where syncVersion == nil: syncVersion = value
        default: break
        }
    }
}
