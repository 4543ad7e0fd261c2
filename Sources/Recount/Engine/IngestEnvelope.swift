/// An envelope of the contract (§1) built in code, for a service whose uploads arrive in another
/// form than NDJSON, or that decoded them already: `RecountEngine.ingest(_:source:)` takes an
/// array of them.
///
/// Its fields are the contract's, as written (instants are RFC 3339 text with the offset they
/// were recorded in, which decides a sample's day). Nothing is checked here: the engine writes
/// each envelope as its NDJSON line (`ndjsonLine`) and ingests that, so an envelope is
/// validated, rejected and stored exactly as its line would be.
public struct IngestEnvelope: Sendable, Equatable {
    /// The user, or `*` for a config default.
    public var user: String
    /// When the backend received it (RFC 3339); `nil`: the engine stamps the time it appends it.
    public var receivedAt: String?
    public var body: Body

    public init(user: String, receivedAt: String? = nil, _ body: Body) {
        self.user = user
        self.receivedAt = receivedAt
        self.body = body
    }

    /// What an envelope carries, one case per kind, with the kind's fields.
    public enum Body: Sendable, Equatable {
        /// `healthkit.delivery`: one result of an anchored query (`anchor` `nil`: a nil anchor, the
        /// full history); `deleted` holds the deleted objects' UUIDs.
        case healthKitDelivery(
            type: String, anchor: String?, newAnchor: String, added: [IngestSample], deleted: [String])
        /// `healthconnect.changes`: one page of `getChanges`.
        case healthConnectChanges(
            recordTypes: [String], token: String, nextChangesToken: String, hasMore: Bool,
            changesTokenExpired: Bool, changes: [HealthConnectChange])
        /// `samples.upsert`: samples of any other provider.
        case samplesUpsert(provider: String, samples: [IngestSample])
        /// `samples.delete`.
        case samplesDelete(provider: String, ids: [String])
        /// `checkin`: a device synced and reported in at `at`.
        case checkin(provider: String, metrics: [String], at: String)
        /// `reconcile`: an authoritative re-read of the samples starting in `from`...`to`.
        case reconcile(provider: String, metric: String, from: String, to: String, samples: [IngestSample])
        /// `config.sources`: origins by priority, highest first.
        case configSources(metric: String, priority: [String])
        /// `config.provider`.
        case configProvider(provider: String, expectedCheckinSeconds: Int64, cohort: String? = nil)
        /// `config.ownOrigins`.
        case configOwnOrigins(origins: [String])
    }

    /// One change of a Health Connect page.
    public enum HealthConnectChange: Sendable, Equatable {
        case upsertion(IngestSample)
        case deletion(recordId: String)
    }

    /// The envelope as one line of NDJSON (no line break), members in contract order.
    public var ndjsonLine: String {
        var out = JSONObjectText()
        out.string("kind", body.kind.name)
        out.string("user", user)
        if let receivedAt { out.string("receivedAt", receivedAt) }
        switch body {
        case .healthKitDelivery(let type, let anchor, let newAnchor, let added, let deleted):
            out.string("type", type)
            out.raw("anchor", anchor.map(EnvelopeJSON.quote) ?? "null")
            out.string("newAnchor", newAnchor)
            out.raw("added", EnvelopeJSON.array(added.map(\.json)))
            out.raw("deleted", EnvelopeJSON.array(deleted.map { #"{"uuid":"# + EnvelopeJSON.quote($0) + "}" }))
        case .healthConnectChanges(let recordTypes, let token, let next, let hasMore, let expired, let changes):
            out.raw("recordTypes", EnvelopeJSON.array(recordTypes.map(EnvelopeJSON.quote)))
            out.string("token", token)
            out.string("nextChangesToken", next)
            out.raw("hasMore", String(hasMore))
            out.raw("changesTokenExpired", String(expired))
            out.raw(
                "changes",
                EnvelopeJSON.array(
                    changes.map { change in
                        switch change {
                        case .upsertion(let sample): #"{"upsertion":"# + sample.json + "}"
                        case .deletion(let id): #"{"deletion":{"recordId":"# + EnvelopeJSON.quote(id) + "}}"
                        }
                    }))
        case .samplesUpsert(let provider, let samples):
            out.string("provider", provider)
            out.raw("samples", EnvelopeJSON.array(samples.map(\.json)))
        case .samplesDelete(let provider, let ids):
            out.string("provider", provider)
            out.raw("ids", EnvelopeJSON.array(ids.map(EnvelopeJSON.quote)))
        case .checkin(let provider, let metrics, let at):
            out.string("provider", provider)
            out.raw("metrics", EnvelopeJSON.array(metrics.map(EnvelopeJSON.quote)))
            out.string("at", at)
        case .reconcile(let provider, let metric, let from, let to, let samples):
            out.string("provider", provider)
            out.string("metric", metric)
            var window = JSONObjectText()
            window.string("from", from)
            window.string("to", to)
            out.raw("window", window.text)
            out.raw("samples", EnvelopeJSON.array(samples.map(\.json)))
        case .configSources(let metric, let priority):
            out.string("metric", metric)
            out.raw("priority", EnvelopeJSON.array(priority.map(EnvelopeJSON.quote)))
        case .configProvider(let provider, let seconds, let cohort):
            out.string("provider", provider)
            out.raw("expectedCheckinSeconds", String(seconds))
            if let cohort { out.string("cohort", cohort) }
        case .configOwnOrigins(let origins):
            out.raw("origins", EnvelopeJSON.array(origins.map(EnvelopeJSON.quote)))
        }
        return out.text
    }

    /// Envelopes as NDJSON, one line each, in order (line N is envelope N, counted from 1).
    static func ndjson(_ envelopes: [IngestEnvelope]) -> [UInt8] {
        var bytes: [UInt8] = []
        for envelope in envelopes {
            bytes.append(contentsOf: envelope.ndjsonLine.utf8)
            bytes.append(0x0A)
        }
        return bytes
    }
}

extension IngestEnvelope.Body {
    /// The contract's kind of this body.
    var kind: Kind {
        switch self {
        case .healthKitDelivery: .healthKitDelivery
        case .healthConnectChanges: .healthConnectChanges
        case .samplesUpsert: .samplesUpsert
        case .samplesDelete: .samplesDelete
        case .checkin: .checkin
        case .reconcile: .reconcile
        case .configSources: .configSources
        case .configProvider: .configProvider
        case .configOwnOrigins: .configOwnOrigins
        }
    }
}

/// A sample of an `IngestEnvelope`: the contract's sample object (§1 "Samples"), fields as
/// written.
public struct IngestSample: Sendable, Equatable {
    /// The provider's identity of the sample.
    public var id: String
    /// A catalogue metric, or a HealthKit or Health Connect type name that maps to one.
    public var type: String
    /// RFC 3339 with the offset of the zone where it was recorded.
    public var start: String
    /// `nil`: instantaneous.
    public var end: String?
    /// An IANA zone that decides the civil date, when given.
    public var timeZone: String?
    /// Quantities: the value in `unit`. A value that is not finite is written as a number too
    /// large to be one, so the engine rejects it as not finite.
    public var value: Double?
    public var unit: String?
    /// Sleep: `inBed`, `asleep`, `awake`, `core`, `deep` or `rem`.
    public var stage: String?
    /// The app that wrote it.
    public var origin: String
    public var device: String?
    /// HealthKit sync identity.
    public var syncIdentifier: String?
    public var syncVersion: Int64?
    /// Health Connect `metadata.lastModifiedTime` (RFC 3339).
    public var lastModified: String?
    /// Workouts: the activity, and the distance and energy totals.
    public var activity: String?
    public var distance: Total?
    public var energy: Total?

    /// A workout total: a number in `unit`, or in the canonical unit (m, kcal) when `unit` is `nil`.
    public struct Total: Sendable, Equatable {
        public var value: Double
        public var unit: String?

        public init(_ value: Double, unit: String? = nil) {
            self.value = value
            self.unit = unit
        }
    }

    public init(
        id: String, type: String, start: String, end: String? = nil, timeZone: String? = nil, value: Double? = nil,
        unit: String? = nil, stage: String? = nil, origin: String, device: String? = nil,
        syncIdentifier: String? = nil, syncVersion: Int64? = nil, lastModified: String? = nil,
        activity: String? = nil, distance: Total? = nil, energy: Total? = nil
    ) {
        (self.id, self.type, self.start, self.end, self.timeZone) = (id, type, start, end, timeZone)
        (self.value, self.unit, self.stage, self.origin, self.device) = (value, unit, stage, origin, device)
        (self.syncIdentifier, self.syncVersion, self.lastModified) = (syncIdentifier, syncVersion, lastModified)
        (self.activity, self.distance, self.energy) = (activity, distance, energy)
    }

    /// The sample object's text, members in contract order.
    var json: String {
        var out = JSONObjectText()
        out.string("id", id)
        out.string("type", type)
        out.string("start", start)
        if let end { out.string("end", end) }
        if let timeZone { out.string("timeZone", timeZone) }
        if let value { out.raw("value", Self.number(value)) }
        if let unit { out.string("unit", unit) }
        if let stage { out.string("stage", stage) }
        out.string("origin", origin)
        if let device { out.string("device", device) }
        if let syncIdentifier { out.string("syncIdentifier", syncIdentifier) }
        if let syncVersion { out.raw("syncVersion", String(syncVersion)) }
        if let lastModified { out.string("lastModified", lastModified) }
        if let activity { out.string("activity", activity) }
        func total(_ key: String, _ total: Total?) {
            guard let total else { return }
            guard let unit = total.unit else { return out.raw(key, Self.number(total.value)) }
            var object = JSONObjectText()
            object.raw("value", Self.number(total.value))
            object.string("unit", unit)
            out.raw(key, object.text)
        }
        total("distance", distance)
        total("energy", energy)
        return out.text
    }

    /// A number's JSON text; one that is not finite (which JSON cannot write) as a literal
    /// beyond `Double`'s range, which reads back as infinite.
    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return value < 0 ? "-1e999" : "1e999" }
        return EnvelopeJSON.number(value)
    }
}
