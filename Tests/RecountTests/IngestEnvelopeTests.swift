import Recount
import TestSupport
import Testing

/// Envelopes built in code (`IngestEnvelope`), as a service whose uploads arrive in another form
/// hands them to the engine.
@Suite struct IngestEnvelopeTests {
    static let walk = IngestSample(
        id: "w1", type: "steps", start: "2026-07-14T23:30:00-07:00", end: "2026-07-15T00:30:00-07:00",
        value: 1200, unit: "count", origin: "com.apple.health", device: "Apple Watch")

    /// Every kind and every sample field, each with the line the contract's NDJSON would hold.
    static let cases: [(IngestEnvelope, String)] = [
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:00:00Z",
                .healthKitDelivery(
                    type: "HKQuantityTypeIdentifierStepCount", anchor: nil, newAnchor: "YQ==", added: [walk],
                    deleted: ["3F2504E0-4F89-11D3-9A0C-0305E82C3301"])),
            #"{"kind":"healthkit.delivery","user":"u1","receivedAt":"2026-07-16T08:00:00Z","type":"HKQuantityTypeIdentifierStepCount","anchor":null,"newAnchor":"YQ==","added":[{"id":"w1","type":"steps","start":"2026-07-14T23:30:00-07:00","end":"2026-07-15T00:30:00-07:00","value":1200,"unit":"count","origin":"com.apple.health","device":"Apple Watch"}],"deleted":[{"uuid":"3F2504E0-4F89-11D3-9A0C-0305E82C3301"}]}"#
        ),
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:01:00Z",
                .healthConnectChanges(
                    recordTypes: ["Weight"], token: "t1", nextChangesToken: "t2", hasMore: false,
                    changesTokenExpired: false,
                    changes: [
                        .upsertion(
                            IngestSample(
                                id: "hc-1", type: "WeightRecord", start: "2026-07-15T07:00:00+02:00",
                                timeZone: "Europe/Berlin",
                                value: 154.5, unit: "lb", origin: "com.withings", lastModified: "2026-07-15T05:01:00Z")),
                        .deletion(recordId: "hc-0"),
                    ])),
            #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-16T08:01:00Z","recordTypes":["Weight"],"token":"t1","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"hc-1","type":"WeightRecord","start":"2026-07-15T07:00:00+02:00","timeZone":"Europe/Berlin","value":154.5,"unit":"lb","origin":"com.withings","lastModified":"2026-07-15T05:01:00Z"}},{"deletion":{"recordId":"hc-0"}}]}"#
        ),
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:02:00Z",
                .samplesUpsert(
                    provider: "oura",
                    samples: [
                        IngestSample(
                            id: "s1", type: "sleep", start: "2026-07-14T23:00:00-07:00",
                            end: "2026-07-15T06:00:00-07:00",
                            stage: "asleep", origin: "com.ouraring", syncIdentifier: "night-1", syncVersion: 3),
                        IngestSample(
                            id: "k1", type: "workout", start: "2026-07-15T18:00:00-07:00",
                            end: "2026-07-15T18:45:00-07:00",
                            origin: "com.strava", activity: "running", distance: .init(5.2, unit: "km"),
                            energy: .init(410)),
                    ])),
            #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-16T08:02:00Z","provider":"oura","samples":[{"id":"s1","type":"sleep","start":"2026-07-14T23:00:00-07:00","end":"2026-07-15T06:00:00-07:00","stage":"asleep","origin":"com.ouraring","syncIdentifier":"night-1","syncVersion":3},{"id":"k1","type":"workout","start":"2026-07-15T18:00:00-07:00","end":"2026-07-15T18:45:00-07:00","origin":"com.strava","activity":"running","distance":{"value":5.2,"unit":"km"},"energy":410}]}"#
        ),
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:03:00Z", .samplesDelete(provider: "oura", ids: ["s0"])),
            #"{"kind":"samples.delete","user":"u1","receivedAt":"2026-07-16T08:03:00Z","provider":"oura","ids":["s0"]}"#
        ),
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:04:00Z",
                .checkin(provider: "oura", metrics: ["sleep", "workout"], at: "2026-07-16T08:00:00Z")),
            #"{"kind":"checkin","user":"u1","receivedAt":"2026-07-16T08:04:00Z","provider":"oura","metrics":["sleep","workout"],"at":"2026-07-16T08:00:00Z"}"#
        ),
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:05:00Z",
                .reconcile(
                    provider: "health_connect", metric: "weight", from: "2026-06-01T00:00:00Z",
                    to: "2026-06-30T00:00:00Z",
                    samples: [])),
            #"{"kind":"reconcile","user":"u1","receivedAt":"2026-07-16T08:05:00Z","provider":"health_connect","metric":"weight","window":{"from":"2026-06-01T00:00:00Z","to":"2026-06-30T00:00:00Z"},"samples":[]}"#
        ),
        (
            IngestEnvelope(user: "*", .configSources(metric: "steps", priority: ["com.apple.health"])),
            #"{"kind":"config.sources","user":"*","metric":"steps","priority":["com.apple.health"]}"#
        ),
        (
            IngestEnvelope(
                user: "*", receivedAt: "2026-07-01T00:00:00Z",
                .configProvider(provider: "oura", expectedCheckinSeconds: 86_400, cohort: "beta")),
            #"{"kind":"config.provider","user":"*","receivedAt":"2026-07-01T00:00:00Z","provider":"oura","expectedCheckinSeconds":86400,"cohort":"beta"}"#
        ),
        (
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-01T00:00:00Z", .configOwnOrigins(origins: ["com.example.app"])),
            #"{"kind":"config.ownOrigins","user":"u1","receivedAt":"2026-07-01T00:00:00Z","origins":["com.example.app"]}"#
        ),
    ]

    @Test func eachKindIsWrittenAsTheContractsLine() {
        for (envelope, line) in Self.cases { #expect(envelope.ndjsonLine == line) }
    }

    /// The envelopes and their lines give the same log and projections (those the engine does
    /// not stamp with the time it appends them).
    @Test func envelopesIngestAsTheirLinesDo() throws {
        let stamped = Self.cases.filter { $0.0.receivedAt != nil }
        try withTemporaryDirectory { directory in
            let built = try RecountEngine(directory: directory + "/built")
            let report = try built.ingest(stamped.map(\.0))
            #expect(report.appended == stamped.count)
            #expect(report.rejected.isEmpty)
            let written = try RecountEngine(directory: directory + "/written")
            let lines = stamped.map(\.1).joined(separator: "\n")
            #expect(try written.ingest(ndjson: Array(lines.utf8), source: "lines").appended == stamped.count)
            #expect(try built.digest() == written.digest())
            // The walk splits across midnight (contract rule 3); the weight was converted.
            let steps = try built.rollups(user: "u1", metric: "steps", from: "2026-07-14", to: "2026-07-15")
            let values = steps.map { row -> Double? in
                switch row.reading {
                case .known(let values), .partial(let values, _): values.first?.value
                case .unknown: nil
                }
            }
            #expect(values == [600, 600])
            let weights = try built.samples(user: "u1", metric: "weight", day: "2026-07-15")
            #expect(weights.map(\.originalUnit) == ["lb"])
            try built.close()
            try written.close()
        }
    }

    /// A rejection names the envelope by its place, and the envelopes around it go in.
    @Test func aRejectedEnvelopeIsNamedByItsPlace() throws {
        var backwards = Self.walk
        backwards.id = "w2"
        backwards.end = "2026-07-14T22:00:00-07:00"
        var infinite = Self.walk
        infinite.id = "w3"
        infinite.value = .infinity
        var notANumber = Self.walk
        notANumber.id = "w4"
        notANumber.value = .nan
        func upsert(_ sample: IngestSample) -> IngestEnvelope {
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:00:00Z", .samplesUpsert(provider: "p", samples: [sample]))
        }
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let report = try engine.ingest(
                [upsert(Self.walk), upsert(backwards), upsert(infinite), upsert(notANumber)], source: "upload-7")
            #expect(report.appended == 1)
            #expect(
                report.rejected.map(\.description) == [
                    "upload-7: line 2: samples[0].end is before start",
                    "upload-7: line 3: samples[0].value is out of range (not a finite number)",
                    "upload-7: line 4: samples[0].value is out of range (not a finite number)",
                ])
            try engine.close()
        }
    }

    /// Strings are written as JSON strings, whatever they hold: they read back as given, or are
    /// rejected as their line would be.
    @Test func stringsComeBackAsGivenOrAreRejectedAsInALine() throws {
        var sample = Self.walk
        sample.origin = "com.example.\"quoted\"\\slash"
        sample.device = "Pixel \"Watch\" 2 \u{1F3C3}"
        sample.id = "id \"1\""
        var controlled = Self.walk
        controlled.device = "Pixel\nWatch"
        func upsert(_ sample: IngestSample) -> IngestEnvelope {
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:00:00Z", .samplesUpsert(provider: "p", samples: [sample]))
        }
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let report = try engine.ingest([upsert(sample), upsert(controlled)])
            #expect(report.appended == 1)
            #expect(
                report.rejected.map(\.description) == [
                    "envelopes: line 2: samples[0].device must not contain control characters"
                ])
            let rows = try engine.samples(user: "u1", metric: "steps", day: "2026-07-14")
            #expect(rows.map(\.origin) == [sample.origin])
            #expect(rows.map(\.device) == [sample.device])
            #expect(rows.map(\.id) == [sample.id])
            try engine.close()
        }
    }
}
