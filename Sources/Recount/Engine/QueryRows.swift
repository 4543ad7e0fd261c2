/// One day of one user's metric, as `RecountEngine.rollups` reports it (contract §4).
///
/// The figures are inside `reading`, so a caller cannot take a number without deciding what a
/// partial or unknown day means (an unknown day is never 0).
public struct RollupRow: Sendable, Equatable {
    /// Whether the day's value can be trusted (contract §3 rule 8).
    public enum State: String, Sendable {
        /// Every provider the user has for the metric checked in after the day ended.
        case known
        /// Data arrived, but the day is not known yet.
        case partial
        /// Nothing arrived for the day, and it is not known: it has no value.
        case unknown
    }

    /// Why a day is not known; codes a program can act on.
    public enum Reason: String, Sendable {
        /// No provider has delivered the metric or checked in naming it.
        case neverSynced = "never_synced"
        /// Some provider has not checked in since the day ended (in the user's latest offset).
        case noCheckinSinceDayEnd = "no_checkin_since_day_end"
        /// A changes token expired and the window holding the day has not been reconciled.
        case recoveryWindowOpen = "recovery_window_open"
        /// A changes token expired more than 30 days after the last read: the day cannot be read again.
        case unrecoverableGap = "unrecoverable_gap"
    }

    /// The day's figures, with the decision they need.
    public enum Reading: Sendable, Equatable {
        case known([Value])
        case partial([Value], Reason)
        case unknown(Reason)
    }

    /// One named figure of the row (`value`, or `count`, `min`, `max`, `mean`, `latest`).
    public struct Value: Sendable, Equatable {
        public var name: String
        public var value: Double
    }

    public var user: String
    public var metric: String
    /// `YYYY-MM-DD`.
    public var date: String
    public var reading: Reading
    /// The metric's canonical unit.
    public var unit: String
    /// The log position of the last event that changed the day's inputs (`nil` without data).
    public var version: UInt64?

    /// The state the reading is in.
    public var state: State {
        switch reading {
        case .known: .known
        case .partial: .partial
        case .unknown: .unknown
        }
    }
}

/// A live sample of one day, as `RecountEngine.samples` reports it.
public struct SampleRow: Sendable, Equatable {
    public var provider: String
    public var id: String
    /// RFC 3339 with the offset the sample was written with.
    public var start: String
    public var end: String
    /// In the metric's canonical unit, when the metric has values.
    public var value: Double?
    /// As written.
    public var originalValue: Double?
    public var originalUnit: String?
    public var stage: String?
    public var origin: String
    public var device: String?
    /// The log position that last wrote it.
    public var position: UInt64
}

/// A day whose inputs changed since it was last recomputed.
public struct DirtyDay: Sendable, Equatable {
    public var user: String
    public var provider: String
    public var metric: String
    public var date: String
    /// The log position of the last change.
    public var position: UInt64
}

/// A query the engine cannot answer as asked.
public struct QueryError: Error, CustomStringConvertible, Sendable {
    /// What was wrong; more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The metric is not in the catalogue.
        public static let unknownMetric = Code("unknownMetric")
        /// A date is not `YYYY-MM-DD`, or `from` is after `to`.
        public static let invalidDate = Code("invalidDate")
        /// The range asks for more days than a query returns.
        public static let rangeTooLong = Code("rangeTooLong")
    }

    public var code: Code
    public var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// One cell's current rollup and, for sums and sleep, each source's part in it: the answer
/// to "your numbers don't match the Health app".
public struct CellAudit: Sendable, Equatable {
    /// What one source (an origin and device) contributed and what the overlap merge held back.
    public struct SourceShare: Sendable, Equatable {
        public var origin: String
        public var device: String?
        /// Its samples with a part on the day.
        public var samples: Int
        /// The amount that counted (seconds for sleep), in the metric's unit.
        public var counted: Double
        public var countedSeconds: Double
        /// The amount a higher-priority source's overlapping samples suppressed.
        public var suppressed: Double
        public var suppressedSeconds: Double
        /// The device (else origin) that suppressed most of it.
        public var suppressedBy: String?
    }

    public var user: String
    public var metric: String
    public var date: String
    public var values: [RollupRow.Value]
    public var unit: String
    public var version: UInt64
    /// Per source, sorted by origin and device; empty for metrics that are not merged.
    public var sources: [SourceShare]
    /// One line for people, such as "3,400 from 2 samples; iPhone 3,000 counted, 3,000 suppressed by Apple Watch".
    public var summary: String
}
