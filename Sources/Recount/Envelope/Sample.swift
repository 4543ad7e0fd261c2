/// One health sample as validated at ingest: the contract's sample object, normalised.
///
/// Values and units are kept as written; `canonicalValue` converts to the metric's unit.
package struct Sample: Equatable, Sendable {
    /// The provider's identity of the sample.
    package var id: SampleID
    /// The metric and the type name the client used for it.
    package var type: MetricName
    package var start: Instant
    /// The end, or `nil` for an instantaneous sample (`end = start`).
    package var end: Instant?
    /// The IANA zone that decides the civil date, when given.
    package var timeZone: String?
    /// The quantity as written (quantity metrics only).
    package var value: Double?
    /// The unit as written, with its catalogue unit (quantity metrics only).
    package var unit: UnitName?
    /// The sleep stage (sleep only).
    package var stage: SleepStage?
    /// The app that wrote the sample.
    package var origin: String
    package var device: String?
    package var syncIdentifier: String?
    package var syncVersion: Int64?
    package var lastModified: Instant?
    /// Activity, distance and energy (workouts only; `nil` when the sample gave none).
    package var workout: WorkoutDetails?

    package init(
        id: SampleID, type: MetricName, start: Instant, end: Instant? = nil, timeZone: String? = nil,
        value: Double? = nil, unit: UnitName? = nil, stage: SleepStage? = nil, origin: String,
        device: String? = nil, syncIdentifier: String? = nil, syncVersion: Int64? = nil, lastModified: Instant? = nil,
        workout: WorkoutDetails? = nil
    ) {
        self.id = id
        self.type = type
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.value = value
        self.unit = unit
        self.stage = stage
        self.origin = origin
        self.device = device
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
        self.lastModified = lastModified
        self.workout = workout
    }

    /// The end instant: `end`, or `start` for an instantaneous sample.
    package var effectiveEnd: Instant { end ?? start }

    /// The workout's activity: as written, else `other` (workouts only).
    package var activity: WorkoutActivity? {
        type.metric == .workout ? workout?.activity?.activity ?? .other : nil
    }

    /// The value in the metric's canonical unit.
    package var canonicalValue: Double? {
        guard let value, let measure = unit?.unit else { return nil }
        return measure.toCanonical(value)
    }
}

/// A catalogue metric and the type name a client wrote for it (`steps`, `StepsRecord`, ...).
package struct MetricName: Equatable, Hashable, Sendable {
    package var metric: Metric
    package var name: String

    /// Resolves a type name; `nil` when it names no catalogue metric.
    package init?(_ name: String) {
        guard let metric = Metric.resolve(typeName: name) else { return nil }
        self.metric = metric
        self.name = name
    }

    /// A type name with the metric it stood for when it was written (as a log record keeps
    /// them); the name is not looked up, so a renamed alias keeps its meaning.
    package init(metric: Metric, name: String) {
        self.metric = metric
        self.name = name
    }
}

/// Sleep stages of the contract.
package enum SleepStage: UInt8, CaseIterable, Sendable, BitwiseCopyable {
    case inBed = 0, asleep, awake, core, deep, rem

    package var name: String {
        switch self {
        case .inBed: "inBed"
        case .asleep: "asleep"
        case .awake: "awake"
        case .core: "core"
        case .deep: "deep"
        case .rem: "rem"
        }
    }

    package init?(name: String) {
        guard let stage = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = stage
    }
}
