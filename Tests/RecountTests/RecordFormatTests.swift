import Foundation
import Recount
import Testing

/// The log record format is frozen (`docs/record-format.md`): the golden records of every format
/// decode to the same envelopes in every later version, and decoding reads metric and unit codes,
/// never today's catalogue names.
///
/// `Fixtures/records/vN/` holds, for format N, the NDJSON the records came from
/// (`records.ndjson`), each line's record (`NN.bin`, line NN, lines without `receivedAt` stamped
/// with `clock`) and the envelope each record decodes to, written back as JSON
/// (`records.expected.ndjson`). `RECOUNT_WRITE_RECORD_FIXTURES=1 swift test --filter
/// RecordFormatTests` writes them for the current format; fixtures of an older format are never
/// rewritten.
@Suite struct RecordFormatTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/records")
    /// Stamps the fixture lines that have no `receivedAt`.
    static let clock = Instant(millis: 1_784_030_400_000, offsetSeconds: 0)
    /// Every format with golden records; a new format adds its own directory.
    static let versions: [UInt8] = [2, 3]

    struct Fixture {
        var number: Int
        var line: [UInt8]
        var record: [UInt8]
        var expected: String
    }

    static func folder(_ version: UInt8) -> URL { directory.appendingPathComponent("v\(version)") }

    static func recordURL(_ version: UInt8, _ number: Int) -> URL {
        folder(version).appendingPathComponent(number < 10 ? "0\(number).bin" : "\(number).bin")
    }

    static func lines(_ url: URL) throws -> [[UInt8]] {
        try Data(contentsOf: url).split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    static func fixtures(_ version: UInt8) throws -> [Fixture] {
        let source = try lines(folder(version).appendingPathComponent("records.ndjson"))
        let expected = try lines(folder(version).appendingPathComponent("records.expected.ndjson"))
        try #require(source.count == expected.count)
        return try source.indices.map { index in
            Fixture(
                number: index + 1, line: source[index],
                record: Array(try Data(contentsOf: recordURL(version, index + 1))),
                expected: String(decoding: expected[index], as: UTF8.self))
        }
    }

    /// The envelope a fixture line stands for, as ingest would log it.
    static func envelope(_ line: [UInt8]) throws -> Envelope {
        try line.withUnsafeBytes { try EnvelopeDecoder().decode(line: $0, number: 1) }.stamped(at: clock)
    }

    static func decode(_ record: [UInt8]) throws -> Envelope {
        try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
    }

    static func encode(_ envelope: Envelope) -> [UInt8] {
        var record: [UInt8] = []
        EnvelopeCodec.encode(envelope, into: &record)
        return record
    }

    @Test(arguments: versions)
    func goldenRecordsDecodeToTheirEnvelopes(version: UInt8) throws {
        for fixture in try Self.fixtures(version) {
            let decoded = try Self.decode(fixture.record)
            #expect(EnvelopeJSON.string(decoded) == fixture.expected, "v\(version) record \(fixture.number)")
            #expect(decoded == (try Self.envelope(fixture.line)), "v\(version) record \(fixture.number)")
        }
    }

    /// Today's encoder writes exactly the golden bytes of today's format: a change to them is a
    /// new format version (with its own fixtures), never an edit of this one.
    @Test func theEncoderWritesTheGoldenRecordsOfItsFormat() throws {
        #expect(Self.versions.last == EnvelopeCodec.formatVersion)
        for fixture in try Self.fixtures(EnvelopeCodec.formatVersion) {
            #expect(Self.encode(try Self.envelope(fixture.line)) == fixture.record, "record \(fixture.number)")
            #expect(fixture.record.first == EnvelopeCodec.formatVersion)
        }
    }

    /// The fixtures exercise every code and every optional field both ways, so none of them can
    /// drift unnoticed.
    @Test func theGoldenRecordsCoverTheFormat() throws {
        let fixtures = try Self.fixtures(EnvelopeCodec.formatVersion)
        let envelopes = try fixtures.map { try Self.decode($0.record) }
        #expect(Set(envelopes.map(\.kind)) == Set(Kind.allCases))
        #expect(fixtures.contains { fixture in !fixture.line.containsSubsequence(Array("receivedAt".utf8)) })
        let samples = envelopes.flatMap(\.samples)
        #expect(Set(samples.map(\.type.metric)) == Set(Metric.allCases))
        var names = Set(samples.map(\.type.name))
        for envelope in envelopes {
            switch envelope.body {
            case .healthKitDelivery(let delivery):
                names.insert(delivery.type.name)
            case .healthConnectChanges(let page): names.formUnion(page.recordTypes.map(\.name))
            case .checkin(_, let metrics, _): names.formUnion(metrics.map(\.name))
            case .reconcile(let reconcile): names.insert(reconcile.metric.name)
            case .configSources(let metric, _): names.insert(metric.name)
            default: break
            }
        }
        #expect(names.isSuperset(of: Metric.allCases.map(\.name)))
        let units = samples.compactMap(\.unit)
        #expect(Set(units.compactMap(\.unit)) == Set(MeasureUnit.allCases))
        #expect(units.contains { $0.symbol.hasPrefix("mmol<") })
        #expect(Set(samples.compactMap(\.stage)) == Set(SleepStage.allCases))
        #expect(samples.contains { $0.id.uuid?.lowercase == true })
        #expect(samples.contains { $0.id.uuid?.lowercase == false })
        #expect(samples.contains { $0.id.uuid == nil })
        #expect(Set(samples.compactMap(\.workout?.activity?.activity)) == Set(WorkoutActivity.allCases))
        let totals = samples.flatMap { [$0.workout?.distance, $0.workout?.energy] }.compactMap { $0 }
        #expect(totals.contains { $0.unit == nil } && totals.contains { $0.unit != nil })
        let optionals: [(String, (Sample) -> Bool)] = [
            ("end", { $0.end != nil }), ("timeZone", { $0.timeZone != nil }), ("value", { $0.value != nil }),
            ("stage", { $0.stage != nil }), ("device", { $0.device != nil }),
            ("syncIdentifier", { $0.syncIdentifier != nil }), ("syncVersion", { $0.syncVersion != nil }),
            ("lastModified", { $0.lastModified != nil }), ("activity", { $0.workout?.activity != nil }),
            ("distance", { $0.workout?.distance != nil }), ("energy", { $0.workout?.energy != nil }),
        ]
        for (field, present) in optionals {
            #expect(samples.contains(where: present) && !samples.allSatisfy(present), "\(field) present and absent")
        }
        let instants = envelopes.map(\.receivedAt) + samples.flatMap { [$0.start, $0.end, $0.lastModified] }
        #expect(instants.contains { $0?.offsetIsUnknown == true })
        var sawDeletion = false
        var sawNilAnchor = false
        var sawMetadata = false
        var cohorts = Set<Bool>()
        for envelope in envelopes {
            switch envelope.body {
            case .healthConnectChanges(let page):
                sawDeletion = sawDeletion || page.changes.contains { $0 != .upsertion }
            case .healthKitDelivery(let delivery):
                sawNilAnchor = sawNilAnchor || delivery.anchor == nil
                sawMetadata = sawMetadata || delivery.deleted.contains { $0.metadataJSON != nil }
            case .configProvider(_, _, let cohort): cohorts.insert(cohort != nil)
            default: break
            }
        }
        #expect(sawDeletion && sawNilAnchor && sawMetadata && cohorts == [true, false])
    }

    /// A type name and a unit symbol that today's catalogue does not know (an alias renamed
    /// after the record was written) still decode to their metric and unit, from the codes.
    @Test func decodingReadsCodesNotTheCatalogue() throws {
        let renamed = MetricName(metric: .heartRate, name: "HKQuantityTypeIdentifierHeartRateBeforeRename")
        let unit = UnitName(unit: .beatsPerMinute, symbol: "beats/min (old)")
        #expect(MetricName(renamed.name) == nil)
        #expect(MeasureUnit.parse(unit.symbol) == nil)
        let sample = Sample(
            id: "r-1", type: renamed, start: Self.clock, value: 61, unit: unit, origin: "com.example")
        let bodies: [Envelope.Body] = [
            .samplesUpsert(provider: "p", samples: [sample]),
            .checkin(provider: "p", metrics: [renamed], at: Self.clock),
            .configSources(metric: renamed, priority: []),
        ]
        for body in bodies {
            let envelope = Envelope(user: "u1", receivedAt: Self.clock, body: body)
            let decoded = try Self.decode(Self.encode(envelope))
            #expect(decoded == envelope)
            for sample in decoded.samples {
                #expect(sample.type.metric == .heartRate)
                #expect(sample.unit?.unit == .beatsPerMinute)
                #expect(sample.canonicalValue == 61)
            }
        }
        // The same in a golden record's bytes: whatever the alias text says, the code decides.
        let golden = try #require(try Self.fixtures(EnvelopeCodec.formatVersion).first).record
        let alias = Array("HKQuantityTypeIdentifierStepCount".utf8)
        let patched = golden.replacingSubsequences(alias, with: Array("HKQuantityTypeIdentifierStepCouXX".utf8))
        #expect(patched != golden)
        let decoded = try Self.decode(patched)
        guard case .healthKitDelivery(let delivery) = decoded.body else {
            Issue.record("not a delivery")
            return
        }
        #expect(delivery.type == MetricName(metric: .steps, name: "HKQuantityTypeIdentifierStepCouXX"))
        #expect(delivery.added.map(\.type.metric) == [.steps, .steps])
    }

    /// The codes written into records are frozen: these are the values of
    /// `docs/record-format.md`, and a code never changes meaning.
    @Test func codeTablesAreFrozen() {
        let metrics: [(Metric, UInt8, String)] = [
            (.steps, 0, "steps"), (.distance, 1, "distance"), (.activeEnergy, 2, "active_energy"),
            (.heartRate, 3, "heart_rate"), (.weight, 4, "weight"), (.bloodGlucose, 5, "blood_glucose"),
            (.sleep, 6, "sleep"), (.workout, 7, "workout"),
        ]
        #expect(metrics.count == Metric.allCases.count)
        for (metric, code, name) in metrics {
            #expect(metric.rawValue == code && metric.name == name)
        }
        let units = [
            "count", "m", "km", "mi", "ft", "kcal", "Cal", "kJ", "count/min", "bpm", "kg", "g", "lb", "st", "mmol/L",
            "mg/dL", "cm", "mm", "in", "yd", "J", "oz", "count/s",
        ]
        #expect(units.count == MeasureUnit.allCases.count)
        for (index, symbol) in units.enumerated() {
            #expect(MeasureUnit(rawValue: UInt8(index + 1))?.symbol == symbol)
        }
        let kinds = [
            "healthkit.delivery", "healthconnect.changes", "samples.upsert", "samples.delete", "checkin", "reconcile",
            "config.sources", "config.provider", "config.ownOrigins",
        ]
        #expect(kinds.count == Kind.allCases.count)
        for (index, name) in kinds.enumerated() {
            #expect(Kind(rawValue: UInt8(index + 1))?.name == name)
        }
        let activities = [
            "other", "walking", "running", "cycling", "swimming", "strength_training", "yoga", "hiking", "elliptical",
            "rowing", "hiit",
        ]
        #expect(activities.count == WorkoutActivity.allCases.count)
        for (index, name) in activities.enumerated() {
            #expect(WorkoutActivity(rawValue: UInt8(index))?.name == name)
        }
        let stages = ["inBed", "asleep", "awake", "core", "deep", "rem"]
        #expect(stages.count == SleepStage.allCases.count)
        for (index, name) in stages.enumerated() {
            #expect(SleepStage(rawValue: UInt8(index))?.name == name)
        }
    }

    /// A record of another format version is refused, never misread.
    @Test func otherFormatVersionsAreRefused() throws {
        let golden = try #require(try Self.fixtures(EnvelopeCodec.formatVersion).first).record
        for version: UInt8 in [0, 1, 4, 255] {
            var record = golden
            record[0] = version
            let error = #expect(throws: EnvelopeCodecError.self) { try Self.decode(record) }
            #expect(error?.code == .unknownFormat)
            #expect(error?.offset == 1)
        }
    }

    /// Format 2 has no workout fields: a format-2 record with a format-3 flag is damaged, while
    /// the same sample under format 3 reads its activity.
    @Test func workoutFlagsAreFormat3Only() throws {
        let workout = Sample(
            id: "w", type: MetricName(metric: .workout, name: "workout"), start: Self.clock, origin: "o",
            workout: WorkoutDetails(activity: ActivityName(activity: .yoga, name: "yoga")))
        var record = Self.encode(
            Envelope(user: "u", receivedAt: Self.clock, body: .samplesUpsert(provider: "p", samples: [workout])))
        #expect(try Self.decode(record).samples == [workout])
        record[0] = 2
        let error = #expect(throws: EnvelopeCodecError.self) { try Self.decode(record) }
        #expect(error?.code == .malformed)
    }

    /// Writes the fixtures of the current format from `records.ndjson` (see the suite's comment).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RECOUNT_WRITE_RECORD_FIXTURES"] != nil))
    func writeFixtures() throws {
        let version = EnvelopeCodec.formatVersion
        let source = try Self.lines(Self.folder(version).appendingPathComponent("records.ndjson"))
        var expected = ""
        for (index, line) in source.enumerated() {
            let envelope = try Self.envelope(line)
            try Data(Self.encode(envelope)).write(to: Self.recordURL(version, index + 1))
            expected += EnvelopeJSON.string(envelope) + "\n"
        }
        try Data(expected.utf8).write(to: Self.folder(version).appendingPathComponent("records.expected.ndjson"))
    }
}

extension Array where Element == UInt8 {
    fileprivate func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    fileprivate func replacingSubsequences(_ needle: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < count {
            if index + needle.count <= count, self[index..<(index + needle.count)].elementsEqual(needle) {
                result += replacement
                index += needle.count
            } else {
                result.append(self[index])
                index += 1
            }
        }
        return result
    }
}

extension RecordFormatTests {
    /// Samples whose fixed fields take the most bytes a record gives them (the widest varints,
    /// every optional field, both letter cases of UUID and a text id, strings between them)
    /// read back as written: the writer stages each sample's fixed fields in a buffer of
    /// bounded size (`StagedBytes`).
    @Test func samplesWithEveryFieldAtItsWidestReadBackAsWritten() throws {
        let far = Instant(millis: Int64.max / 2, offsetSeconds: -64_800)
        let early = Instant(millis: Int64.min / 2, offsetSeconds: 64_800, offsetIsUnknown: true)
        let kilometre = UnitName(unit: .kilometer, symbol: "km")
        let joule = UnitName(unit: .kilojoule, symbol: "kJ")
        func widest(_ id: SampleID, _ start: Instant, _ end: Instant) -> Sample {
            Sample(
                id: id, type: MetricName(metric: .workout, name: "HKWorkoutTypeIdentifier"), start: start, end: end,
                timeZone: "Pacific/Chatham", value: -.greatestFiniteMagnitude, unit: kilometre, stage: .awake,
                origin: String(repeating: "o", count: 256), device: String(repeating: "d", count: 256),
                syncIdentifier: String(repeating: "s", count: 256), syncVersion: Int64.max, lastModified: early,
                workout: WorkoutDetails(
                    activity: ActivityName(activity: .yoga, name: "yoga"),
                    distance: WorkoutTotal(value: .greatestFiniteMagnitude, unit: kilometre),
                    energy: WorkoutTotal(value: .leastNonzeroMagnitude, unit: joule)))
        }
        let samples = [
            widest("8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001", far, early),
            widest("8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e0002", early, far),
            widest(SampleID(String(repeating: "i", count: 256)), far, early),
        ]
        let envelope = Envelope(
            user: "u", receivedAt: Self.clock, body: .samplesUpsert(provider: "p", samples: samples))
        #expect(try Self.decode(Self.encode(envelope)) == envelope)
    }
}
