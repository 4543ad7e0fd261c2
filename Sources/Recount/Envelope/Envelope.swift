internal import Glibc

/// One validated envelope as the log holds it (contract §1): who, when it was received, and what
/// it carries. Replay only ever sees this type, so `receivedAt` is always there.
package struct Envelope: Equatable, Sendable {
    /// The user, or `*` for a config default.
    package var user: String
    /// When the backend received it (the client's time, or the engine's stamp when it sent none).
    package var receivedAt: Instant
    package var body: Body

    package init(user: String, receivedAt: Instant, body: Body) {
        self.user = user
        self.receivedAt = receivedAt
        self.body = body
    }

    /// What an envelope carries, one case per kind.
    package enum Body: Equatable, Sendable {
        case healthKitDelivery(HealthKitDelivery)
        case healthConnectChanges(HealthConnectChanges)
        case samplesUpsert(provider: String, samples: [Sample])
        case samplesDelete(provider: String, ids: [String])
        case checkin(provider: String, metrics: [MetricName], at: Instant)
        case reconcile(Reconcile)
        case configSources(metric: MetricName, priority: [String])
        case configProvider(provider: String, expectedCheckinSeconds: Int64, cohort: String?)
        case configOwnOrigins(origins: [String])
    }

    /// The contract's `kind` string.
    package var kind: Kind { body.kind }

    /// Why `user` is not a user name the contract accepts (the name quoted, then the rule), or
    /// `nil` when it is one: what a query refuses it with, through the API and the CLI.
    package static func userNameProblem(_ user: String) -> String? {
        isValidUser(user) ? nil : "\(user.debugDescription) is not a user name (1–128 of A–Z a–z 0–9 . _ : @ -)"
    }

    /// Why `provider` is not a provider name an envelope can carry, or `nil` when it is one.
    package static func providerNameProblem(_ provider: String) -> String? {
        (try? StringRule.provider.check(.string(provider), path: "provider")) != nil
            ? nil : "\(provider.debugDescription) is not a provider name (1–64 of A–Z a–z 0–9 . _ -)"
    }

    /// Whether `user` is a user name the contract accepts (1–128 of `[A-Za-z0-9._:@-]`; the
    /// config default `*` is not a user).
    package static func isValidUser(_ user: String) -> Bool {
        (try? StringRule.user.check(.string(user), path: "user")) != nil
    }

    /// Samples this envelope upserts, in order.
    package var samples: [Sample] { body.samples }

    /// An envelope that holds nothing, put where one is moved out of an array.
    static let emptied = Envelope(
        user: "", receivedAt: Instant(millis: 0, offsetSeconds: 0),
        body: .checkin(
            provider: "", metrics: [], at: Instant(millis: 0, offsetSeconds: 0)))
}

extension Envelope.Body {
    /// Samples the envelope upserts, in order.
    package var samples: [Sample] {
        switch self {
        case .healthKitDelivery(let delivery): delivery.added
        case .healthConnectChanges(let page): page.upserted
        case .samplesUpsert(_, let samples): samples
        case .reconcile(let reconcile): reconcile.samples
        default: []
        }
    }
}

/// A validated envelope as a client sent it, before ingest stamps a missing `receivedAt`.
package struct EnvelopeInput: Equatable, Sendable {
    /// The user, or `*` for a config default.
    package var user: String
    /// When the backend received it, if the client said.
    package var receivedAt: Instant?
    package var body: Envelope.Body

    package init(user: String, receivedAt: Instant?, body: Envelope.Body) {
        self.user = user
        self.receivedAt = receivedAt
        self.body = body
    }

    /// The envelope to log: `receivedAt` as sent, else `now` (read only when it is missing).
    package func stamped(at now: @autoclosure () -> Instant) -> Envelope {
        Envelope(user: user, receivedAt: receivedAt ?? now(), body: body)
    }

    /// Samples this envelope upserts, in order.
    package var samples: [Sample] { body.samples }
}

/// The envelope kinds, with their contract names and stable codes in the log.
package enum Kind: UInt8, CaseIterable, Sendable {
    case healthKitDelivery = 1, healthConnectChanges, samplesUpsert, samplesDelete, checkin, reconcile
    case configSources, configProvider, configOwnOrigins

    package var name: String {
        switch self {
        case .healthKitDelivery: "healthkit.delivery"
        case .healthConnectChanges: "healthconnect.changes"
        case .samplesUpsert: "samples.upsert"
        case .samplesDelete: "samples.delete"
        case .checkin: "checkin"
        case .reconcile: "reconcile"
        case .configSources: "config.sources"
        case .configProvider: "config.provider"
        case .configOwnOrigins: "config.ownOrigins"
        }
    }

    /// The kind whose name is the UTF-8 text `name`.
    init?(name: UnsafeRawBufferPointer) {
        let kind = Self.allCases.first { kind in
            kind.name.withRawUTF8 {
                $0.count == name.count && memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0
            }
        }
        guard let kind else { return nil }
        self = kind
    }

    /// Config kinds may name the user `*` (the default for every user).
    package var isConfig: Bool { self == .configSources || self == .configProvider || self == .configOwnOrigins }
}

extension Envelope.Body {
    package var kind: Kind {
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

/// One result of an `HKAnchoredObjectQuery`.
package struct HealthKitDelivery: Equatable, Sendable {
    package var type: MetricName
    /// The anchor the query ran with (base64), `nil` for a full-history read.
    package var anchor: String?
    package var newAnchor: String
    package var added: [Sample]
    package var deleted: [HealthKitDeletion]
}

/// An `HKDeletedObject`: an id, and metadata kept as compact JSON text.
package struct HealthKitDeletion: Equatable, Sendable {
    package var uuid: String
    package var metadataJSON: String?
}

/// One page of Health Connect `getChanges`.
package struct HealthConnectChanges: Equatable, Sendable {
    package var recordTypes: [MetricName]
    package var token: String
    package var nextChangesToken: String
    package var hasMore: Bool
    package var changesTokenExpired: Bool
    /// The page's changes in order.
    package var changes: [Change]
    /// The upserted samples in page order: the n-th `.upsertion` of `changes` is `upserted[n]`.
    package var upserted: [Sample]

    package enum Change: Equatable, Sendable {
        /// The next sample of `upserted`.
        case upsertion
        case deletion(recordId: String)
    }

    /// Each change in page order: an upsertion as its sample's index in `upserted`, a deletion
    /// as its record id.
    package func forEachChange(_ body: (_ upserted: Int?, _ deletedId: String?) throws -> Void) rethrows {
        var next = 0
        for change in changes {
            switch change {
            case .upsertion:
                try body(next, nil)
                next += 1
            case .deletion(let recordId): try body(nil, recordId)
            }
        }
    }
}

/// An authoritative re-read of a window.
package struct Reconcile: Equatable, Sendable {
    package var provider: String
    package var metric: MetricName
    package var from: Instant
    package var to: Instant
    package var samples: [Sample]
}
