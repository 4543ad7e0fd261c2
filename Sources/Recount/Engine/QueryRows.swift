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

        public init(name: String, value: Double) {
            self.name = name
            self.value = value
        }
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

    public init(user: String, metric: String, date: String, reading: Reading, unit: String, version: UInt64?) {
        self.user = user
        self.metric = metric
        self.date = date
        self.reading = reading
        self.unit = unit
        self.version = version
    }

    /// The state the reading is in.
    public var state: State { reading.state }
}

extension RollupRow.Reading {
    /// Known, partial or unknown.
    public var state: RollupRow.State {
        switch self {
        case .known: .known
        case .partial: .partial
        case .unknown: .unknown
        }
    }

    /// Why the day is not known, when it is not.
    public var reason: RollupRow.Reason? {
        switch self {
        case .known: nil
        case .partial(_, let reason), .unknown(let reason): reason
        }
    }
}

/// A live sample of one day, as `RecountEngine.samples` reports it.
public struct SampleRow: Sendable, Equatable {
    public var provider: String
    public var id: String
    /// RFC 3339 in local time: at the offset of the sample's `timeZone` then, when it named
    /// one (the zone that decides its days), else at the offset it was written with.
    public var start: String
    public var end: String
    /// The IANA zone the sample named, if any.
    public var timeZone: String?
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
    /// For a workout: its activity (`other` when none was written), and its distance (m) and
    /// energy (kcal) totals when given.
    public var activity: String?
    public var distance: Double?
    public var energy: Double?

    public init(
        provider: String, id: String, start: String, end: String, timeZone: String?, value: Double?,
        originalValue: Double?, originalUnit: String?, stage: String?, origin: String, device: String?,
        position: UInt64, activity: String?, distance: Double?, energy: Double?
    ) {
        self.provider = provider
        self.id = id
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.value = value
        self.originalValue = originalValue
        self.originalUnit = originalUnit
        self.stage = stage
        self.origin = origin
        self.device = device
        self.position = position
        self.activity = activity
        self.distance = distance
        self.energy = energy
    }
}

/// A day whose inputs changed since it was last recomputed.
public struct DirtyDay: Sendable, Equatable {
    public var user: String
    public var provider: String
    public var metric: String
    public var date: String
    /// The log position of the last change.
    public var position: UInt64

    public init(user: String, provider: String, metric: String, date: String, position: UInt64) {
        self.user = user
        self.provider = provider
        self.metric = metric
        self.date = date
        self.position = position
    }
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
        /// The user name is not one an envelope can carry.
        public static let invalidUser = Code("invalidUser")
        /// The engine was opened for another user's queries only.
        public static let otherUser = Code("otherUser")
        /// The provider name is not one an envelope can carry.
        public static let invalidProvider = Code("invalidProvider")
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
        /// The source that suppressed most of it, for people: its device (else origin), as
        /// `summary` names it, followed by its origin in parentheses when another source of the
        /// cell has that device (`iPhone (phoneapp)`). Its shape depends on the cell's other
        /// sources: a program reads `suppressedByOrigin` and `suppressedByDevice`.
        public var suppressedBy: String?
        /// The origin and device of the source that suppressed most of it.
        public var suppressedByOrigin: String?
        public var suppressedByDevice: String?

        public init(
            origin: String, device: String?, samples: Int, counted: Double, countedSeconds: Double,
            suppressed: Double, suppressedSeconds: Double, suppressedBy: String?, suppressedByOrigin: String?,
            suppressedByDevice: String?
        ) {
            self.origin = origin
            self.device = device
            self.samples = samples
            self.counted = counted
            self.countedSeconds = countedSeconds
            self.suppressed = suppressed
            self.suppressedSeconds = suppressedSeconds
            self.suppressedBy = suppressedBy
            self.suppressedByOrigin = suppressedByOrigin
            self.suppressedByDevice = suppressedByDevice
        }
    }

    /// One version of the cell and the log event that made it.
    public struct Version: Sendable, Equatable {
        /// The log position of the event (the cell's version from then on).
        public var version: UInt64
        /// The envelope's kind.
        public var kind: String
        /// The envelope's `receivedAt`, as written.
        public var receivedAt: String
        public var values: [RollupRow.Value]
        /// Ids of samples that entered and left the cell with this event.
        public var added: [String]
        public var removed: [String]
        /// The cell in one line, with the per-source explanation.
        public var summary: String

        public init(
            version: UInt64, kind: String, receivedAt: String, values: [RollupRow.Value], added: [String],
            removed: [String], summary: String
        ) {
            self.version = version
            self.kind = kind
            self.receivedAt = receivedAt
            self.values = values
            self.added = added
            self.removed = removed
            self.summary = summary
        }
    }

    public var user: String
    public var metric: String
    public var date: String
    /// The cell's figures as computed from its samples. Read `state` first, as `rollups` does:
    /// an unknown day's cell holds no sample, and its 0 is not the day's value (contract §3
    /// rule 8).
    public var values: [RollupRow.Value]
    /// How `rollups` reads the day now: known, partial or unknown.
    public var state: RollupRow.State
    /// Why the day is not known, when it is not.
    public var reason: RollupRow.Reason?
    public var unit: String
    public var version: UInt64
    /// Per source, sorted by origin and device; empty for metrics that are not merged.
    public var sources: [SourceShare]
    /// One line for people, such as "3,400 from 2 samples; iPhone 3,000 counted, 3,000 suppressed by Apple Watch".
    public var summary: String
    /// Every version the cell has had, oldest first (empty unless asked for).
    public var history: [Version] = []

    public init(
        user: String, metric: String, date: String, values: [RollupRow.Value], state: RollupRow.State,
        reason: RollupRow.Reason?, unit: String, version: UInt64, sources: [SourceShare], summary: String,
        history: [Version] = []
    ) {
        self.user = user
        self.metric = metric
        self.date = date
        self.values = values
        self.state = state
        self.reason = reason
        self.unit = unit
        self.version = version
        self.sources = sources
        self.summary = summary
        self.history = history
    }
}

/// A stretch of time `[from, to)`, its ends as RFC 3339 instants in UTC.
public struct TimeWindow: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// A sync channel's stored cursor and state, as `RecountEngine.cursor` reports it.
public struct CursorRow: Sendable, Equatable {
    public var user: String
    public var provider: String
    public var metric: String
    /// The newest HealthKit anchor (base64) or Health Connect changes token.
    public var cursor: String?
    /// `healthkit.anchor` or `healthconnect.token`.
    public var kind: String?
    /// `ok`, or `needs_recovery` while a window must be read again.
    public var state: String
    /// The windows to read again, each with a `reconcile` covering it (ascending; one per
    /// expired token with a successful read between them). Empty when the state is `ok`.
    public var recoveryWindows: [TimeWindow]
    /// What the client can no longer read (a token expired more than 30 days after the last
    /// read), ascending.
    public var unrecoverable: [TimeWindow]
    public var lastCheckinAt: String?
    public var lastSampleAt: String?
    /// Full re-deliveries (nil anchors) seen, and how many samples of the last were new and known.
    public var fullRedeliveries: Int
    public var lastFullRedelivery: (new: Int, known: Int)?
    /// The client keeps re-sending the same all-known delivery with the same anchor.
    public var stuck: Bool

    public init(
        user: String, provider: String, metric: String, cursor: String?, kind: String?, state: String,
        recoveryWindows: [TimeWindow], unrecoverable: [TimeWindow], lastCheckinAt: String?, lastSampleAt: String?,
        fullRedeliveries: Int, lastFullRedelivery: (new: Int, known: Int)?, stuck: Bool
    ) {
        self.user = user
        self.provider = provider
        self.metric = metric
        self.cursor = cursor
        self.kind = kind
        self.state = state
        self.recoveryWindows = recoveryWindows
        self.unrecoverable = unrecoverable
        self.lastCheckinAt = lastCheckinAt
        self.lastSampleAt = lastSampleAt
        self.fullRedeliveries = fullRedeliveries
        self.lastFullRedelivery = lastFullRedelivery
        self.stuck = stuck
    }

    public static func == (a: CursorRow, b: CursorRow) -> Bool {
        a.user == b.user && a.provider == b.provider && a.metric == b.metric && a.cursor == b.cursor && a.kind == b.kind
            && a.state == b.state && a.recoveryWindows == b.recoveryWindows && a.unrecoverable == b.unrecoverable
            && a.lastCheckinAt == b.lastCheckinAt
            && a.lastSampleAt == b.lastSampleAt && a.fullRedeliveries == b.fullRedeliveries
            && a.lastFullRedelivery?.new == b.lastFullRedelivery?.new
            && a.lastFullRedelivery?.known == b.lastFullRedelivery?.known && a.stuck == b.stuck
    }
}

/// Who is stale at an instant (contract §3 rule 10), as `RecountEngine.stale` reports it.
public struct StaleReport: Sendable, Equatable {
    /// A (user, provider, metric) channel whose last check-in is older than its provider's
    /// expected interval (or that never checked in).
    public struct Row: Sendable, Equatable {
        public var user: String
        public var provider: String
        public var metric: String
        public var cohort: String?
        public var lastCheckinAt: String?
        /// Seconds since the last check-in, rounded up (`nil`: never).
        public var silenceSeconds: Int64?
        public var expectedSeconds: Int64

        public init(
            user: String, provider: String, metric: String, cohort: String?, lastCheckinAt: String?,
            silenceSeconds: Int64?, expectedSeconds: Int64
        ) {
            self.user = user
            self.provider = provider
            self.metric = metric
            self.cohort = cohort
            self.lastCheckinAt = lastCheckinAt
            self.silenceSeconds = silenceSeconds
            self.expectedSeconds = expectedSeconds
        }
    }

    /// Per provider and cohort: users with a stale channel among those who have the provider.
    public struct Fraction: Sendable, Equatable {
        public var provider: String
        public var cohort: String?
        public var users: Int
        public var staleUsers: Int
        public var fraction: Double { users == 0 ? 0 : Double(staleUsers) / Double(users) }

        public init(provider: String, cohort: String?, users: Int, staleUsers: Int) {
            self.provider = provider
            self.cohort = cohort
            self.users = users
            self.staleUsers = staleUsers
        }
    }

    /// The instant it was evaluated at (RFC 3339, UTC).
    public var asOf: String
    public var rows: [Row]
    public var fractions: [Fraction]

    public init(asOf: String, rows: [Row], fractions: [Fraction]) {
        self.asOf = asOf
        self.rows = rows
        self.fractions = fractions
    }
}

/// A cell whose version moved after a given version, as `RecountEngine.changes` reports it.
public struct CellChangeRow: Sendable, Equatable {
    public var user: String
    public var metric: String
    public var date: String
    /// The cell's version now.
    public var version: UInt64
    /// The day at the given version, as `rollups` read it then: figures only when it was known
    /// or partial (a known day without a rollup then, a known 0; a user unknown then,
    /// `never_synced`).
    public var old: RollupRow.Reading
    /// The day now, as `rollups` reads it: figures only when it is known or partial (an
    /// unknown day is never a zero a follower could push, contract §3 rule 8).
    public var new: RollupRow.Reading

    public init(
        user: String, metric: String, date: String, version: UInt64, old: RollupRow.Reading, new: RollupRow.Reading
    ) {
        self.user = user
        self.metric = metric
        self.date = date
        self.version = version
        self.old = old
        self.new = new
    }
}

/// What the projections hold, and per provider how its channels sync: the operator's summary
/// (`recount stats`). A replay storm (clients re-sending their whole history) shows as many
/// full re-deliveries whose samples were already known.
public struct EngineStats: Sendable, Equatable {
    /// One provider's channels (user, metric) and their health.
    public struct ProviderStats: Sendable, Equatable {
        public var provider: String
        public var channels = 0
        public var users = 0
        /// Channels with a recovery window open (an expired Health Connect token).
        public var needsRecovery = 0
        /// Channels with a window the client can no longer read.
        public var unrecoverable = 0
        /// Channels whose client keeps re-sending the same all-known delivery.
        public var stuck = 0
        /// Full re-deliveries (nil anchors), and their samples that were new and already known.
        public var fullRedeliveries = 0
        public var redeliveredNew = 0
        public var redeliveredKnown = 0

        public init(provider: String) { self.provider = provider }
    }

    /// The last log position folded.
    public var position: UInt64
    /// The users the folded envelopes name (`*`, the config defaults' user, is not one).
    public var users: Int
    public var liveSamples: Int
    /// Ids deleted (tombstones).
    public var deletedIds: Int
    public var rollups: Int
    public var dirtyDays: Int
    /// By provider name.
    public var providers: [ProviderStats]

    public init(
        position: UInt64, users: Int, liveSamples: Int, deletedIds: Int, rollups: Int, dirtyDays: Int,
        providers: [ProviderStats]
    ) {
        self.position = position
        self.users = users
        self.liveSamples = liveSamples
        self.deletedIds = deletedIds
        self.rollups = rollups
        self.dirtyDays = dirtyDays
        self.providers = providers
    }
}

extension EngineStats {
    /// The stats of projections held as ranges of users, from each range's: counts add up
    /// (the ranges' users are disjoint), providers' rows by name.
    init(joining parts: [EngineStats]) {
        var providers: [String: ProviderStats] = [:]
        for row in parts.flatMap(\.providers) {
            var joined = providers[row.provider] ?? ProviderStats(provider: row.provider)
            joined.channels += row.channels
            joined.users += row.users
            joined.needsRecovery += row.needsRecovery
            joined.unrecoverable += row.unrecoverable
            joined.stuck += row.stuck
            joined.fullRedeliveries += row.fullRedeliveries
            joined.redeliveredNew += row.redeliveredNew
            joined.redeliveredKnown += row.redeliveredKnown
            providers[row.provider] = joined
        }
        self.init(
            position: parts.map(\.position).max() ?? 0, users: parts.reduce(0) { $0 + $1.users },
            liveSamples: parts.reduce(0) { $0 + $1.liveSamples }, deletedIds: parts.reduce(0) { $0 + $1.deletedIds },
            rollups: parts.reduce(0) { $0 + $1.rollups }, dirtyDays: parts.reduce(0) { $0 + $1.dirtyDays },
            providers: providers.values.sorted { $0.provider < $1.provider })
    }
}

extension StaleReport {
    /// The report of projections held as ranges of users, from each range's (in range order):
    /// rows joined, fractions added up by provider and cohort (the ranges' users are disjoint).
    init(joining parts: [StaleReport], asOf: Int64) {
        var fractions: [String: Fraction] = [:]
        for fraction in parts.flatMap(\.fractions) {
            let key = fraction.provider + "\u{0}" + (fraction.cohort ?? "")
            var joined =
                fractions[key]
                ?? Fraction(provider: fraction.provider, cohort: fraction.cohort, users: 0, staleUsers: 0)
            joined.users += fraction.users
            joined.staleUsers += fraction.staleUsers
            fractions[key] = joined
        }
        self.init(
            asOf: RFC3339.format(millis: asOf, offsetSeconds: 0), rows: parts.flatMap(\.rows),
            fractions: fractions.values.sorted { ($0.provider, $0.cohort ?? "") < ($1.provider, $1.cohort ?? "") })
    }
}
