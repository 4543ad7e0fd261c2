/// A metric of the v1 catalogue (contract §2).
///
/// The raw value is a stable code that may be stored in binary form: existing codes never change,
/// and new metrics take new codes.
package enum Metric: UInt8, CaseIterable, Sendable, Hashable, BitwiseCopyable {
    case steps = 0
    case distance = 1
    case activeEnergy = 2
    case heartRate = 3
    case weight = 4
    case bloodGlucose = 5
    case sleep = 6
    case workout = 7

    /// What a sample of a metric carries besides its times.
    package enum Kind: Sendable {
        /// A `value` with a `unit`, converted to the metric's canonical unit.
        case quantity
        /// A sleep `stage`, no value.
        case sleep
        /// Neither value nor stage: the interval itself is the datum.
        case workout
    }

    /// How a sample is placed on civil days (contract §2, "day of a sample").
    package enum DayRule: Sendable {
        /// Split across the local days the interval touches, in proportion to elapsed time.
        case splitByTime
        /// Entirely on the local date of its start.
        case startDay
        /// Entirely on the civil date of (local end + 6 hours).
        case sleepEndPlusSixHours
    }

    /// The catalogue name (`steps`, `active_energy`, ...), as written in envelopes and output.
    package var name: String {
        Metric.names[Int(rawValue)].contract.string
    }

    /// Creates the metric with the given catalogue name; aliases are not accepted here.
    /// - Parameter name: a catalogue name such as `heart_rate`.
    package init?(name: String) {
        guard
            let metric = name.withRawUTF8({ bytes in
                Metric.names.firstIndex { $0.contract.matches(bytes) }.flatMap {
                    Metric(rawValue: UInt8($0))
                }
            })
        else { return nil }
        self = metric
    }

    /// Resolves a type name: the catalogue name, the HealthKit identifier, or the Health Connect
    /// record name with or without its `Record` suffix. Exact and case-sensitive.
    /// - Parameter typeName: the `type` field of a sample or delivery.
    /// - Returns: the metric, or `nil` when the name is not in the catalogue.
    package static func resolve(typeName: String) -> Metric? {
        typeName.withRawUTF8 { resolve(typeNameBytes: $0) }
    }

    /// Resolves a type name given as raw UTF-8 bytes, without allocating.
    /// - Parameter bytes: the name's bytes (no quotes, no escapes).
    /// - Returns: the metric, or `nil` when the name is not in the catalogue.
    package static func resolve(typeNameBytes bytes: UnsafeRawBufferPointer) -> Metric? {
        for entry in lookup where entry.name.matches(bytes) {
            return entry.metric
        }
        return nil
    }

    /// Every type name `resolve(typeName:)` accepts, for error messages: the catalogue's names
    /// first, in catalogue order, then the other spellings sorted (a message cut short still
    /// names `steps` and `sleep`).
    package static var acceptedTypeNames: [String] {
        let catalogue = allCases.map(\.name)
        return catalogue + allCases.flatMap(\.typeNames).filter { !catalogue.contains($0) }.sorted()
    }

    /// The names this metric answers to: catalogue, HealthKit, Health Connect, and Health Connect
    /// with `Record`.
    package var typeNames: [String] {
        let entry = Metric.names[Int(rawValue)]
        return [
            entry.contract.string, entry.healthKit.string, entry.healthConnect.string,
            entry.healthConnectRecord.string,
        ]
    }

    /// The unit rollups are expressed in (`count`, `m`, `kcal`, `count/min`, `kg`, `mmol/L`, `s`).
    package var canonicalUnit: String {
        switch self {
        case .steps: "count"
        case .distance: "m"
        case .activeEnergy: "kcal"
        case .heartRate: "count/min"
        case .weight: "kg"
        case .bloodGlucose: "mmol/L"
        case .sleep, .workout: "s"
        }
    }

    /// The unit samples are converted to at ingest; `nil` for metrics without a value.
    package var canonicalMeasureUnit: MeasureUnit? {
        switch self {
        case .steps: .count
        case .distance: .meter
        case .activeEnergy: .kilocalorie
        case .heartRate: .countPerMinute
        case .weight: .kilogram
        case .bloodGlucose: .mmolPerL
        case .sleep, .workout: nil
        }
    }

    /// The physical dimension of the metric's values; `nil` for metrics without a value.
    package var dimension: MeasureUnit.Dimension? {
        switch self {
        case .steps: .count
        case .distance: .length
        case .activeEnergy: .energy
        case .heartRate: .frequency
        case .weight: .mass
        case .bloodGlucose: .bloodGlucoseConcentration
        case .sleep, .workout: nil
        }
    }

    /// What a sample of this metric must carry.
    package var kind: Kind {
        switch self {
        case .steps, .distance, .activeEnergy, .heartRate, .weight, .bloodGlucose: .quantity
        case .sleep: .sleep
        case .workout: .workout
        }
    }

    /// How a sample of this metric is placed on civil days.
    package var dayRule: DayRule {
        switch self {
        case .steps, .distance, .activeEnergy: .splitByTime
        case .heartRate, .weight, .bloodGlucose, .workout: .startDay
        case .sleep: .sleepEndPlusSixHours
        }
    }

    /// Whether the metric rolls up as a sum (steps, distance, active energy).
    package var isCumulative: Bool {
        switch self {
        case .steps, .distance, .activeEnergy: true
        case .heartRate, .weight, .bloodGlucose, .sleep, .workout: false
        }
    }

    /// Whether a day's rollup merges overlapping sources (contract §3 rule 5): the sums, and
    /// sleep.
    package var mergesOverlaps: Bool { isCumulative || self == .sleep }

    /// The four names of one metric.
    private struct Names: Sendable {
        let contract: ASCIIName
        let healthKit: ASCIIName
        let healthConnect: ASCIIName
        let healthConnectRecord: ASCIIName
    }

    /// Every accepted name with its metric, flattened for `resolve(typeNameBytes:)`.
    private static let lookup: [(name: ASCIIName, metric: Metric)] = {
        var entries: [(name: ASCIIName, metric: Metric)] = []
        for (metric, entry) in zip(Metric.allCases, names) {
            for name in [
                entry.contract, entry.healthKit, entry.healthConnect, entry.healthConnectRecord,
            ] {
                entries.append((name, metric))
            }
        }
        return entries
    }()

    /// Names indexed by raw value (contract §2 table).
    private static let names: [Names] = [
        Names(
            contract: ASCIIName("steps"),
            healthKit: ASCIIName("HKQuantityTypeIdentifierStepCount"),
            healthConnect: ASCIIName("Steps"),
            healthConnectRecord: ASCIIName("StepsRecord")),
        Names(
            contract: ASCIIName("distance"),
            healthKit: ASCIIName("HKQuantityTypeIdentifierDistanceWalkingRunning"),
            healthConnect: ASCIIName("Distance"),
            healthConnectRecord: ASCIIName("DistanceRecord")),
        Names(
            contract: ASCIIName("active_energy"),
            healthKit: ASCIIName("HKQuantityTypeIdentifierActiveEnergyBurned"),
            healthConnect: ASCIIName("ActiveCaloriesBurned"),
            healthConnectRecord: ASCIIName("ActiveCaloriesBurnedRecord")),
        Names(
            contract: ASCIIName("heart_rate"),
            healthKit: ASCIIName("HKQuantityTypeIdentifierHeartRate"),
            healthConnect: ASCIIName("HeartRate"),
            healthConnectRecord: ASCIIName("HeartRateRecord")),
        Names(
            contract: ASCIIName("weight"),
            healthKit: ASCIIName("HKQuantityTypeIdentifierBodyMass"),
            healthConnect: ASCIIName("Weight"),
            healthConnectRecord: ASCIIName("WeightRecord")),
        Names(
            contract: ASCIIName("blood_glucose"),
            healthKit: ASCIIName("HKQuantityTypeIdentifierBloodGlucose"),
            healthConnect: ASCIIName("BloodGlucose"),
            healthConnectRecord: ASCIIName("BloodGlucoseRecord")),
        Names(
            contract: ASCIIName("sleep"),
            healthKit: ASCIIName("HKCategoryTypeIdentifierSleepAnalysis"),
            healthConnect: ASCIIName("SleepSession"),
            healthConnectRecord: ASCIIName("SleepSessionRecord")),
        Names(
            contract: ASCIIName("workout"),
            healthKit: ASCIIName("HKWorkoutTypeIdentifier"),
            healthConnect: ASCIIName("ExerciseSession"),
            healthConnectRecord: ASCIIName("ExerciseSessionRecord")),
    ]
}
