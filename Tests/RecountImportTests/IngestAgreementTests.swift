import Foundation
import Recount
import TestSupport
import Testing

@testable import RecountImport

/// What the importer emits, ingest accepts: every line passes ingest's own `EnvelopeDecoder`, and
/// a record ingest would refuse is left out alone, reported by type and reason.
@Suite struct IngestAgreementTests {
    /// A quantity record of `type` in `unit`, starting `minute` minutes after midnight.
    static func record(_ type: String, unit: String, value: String, minute: Int = 0) -> String {
        let start = String(format: "2024-01-01 %02d:%02d:00 +0200", minute / 60, minute % 60)
        let escapedUnit = unit.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        return #"<Record type="HKQuantityTypeIdentifier\#(type)" sourceName="Phone" unit="\#(escapedUnit)" "#
            + #"startDate="\#(start)" endDate="\#(start)" value="\#(value)"/>"#
    }

    /// Ingest's verdict on each emitted line: `nil` when accepted.
    static func ingestVerdicts(_ run: ImportRun) -> [IngestError?] {
        run.lines.enumerated().map { index, line in
            var line = line
            return line.withUTF8 { bytes -> IngestError? in
                do throws(IngestError) {
                    _ = try EnvelopeDecoder().decode(line: UnsafeRawBufferPointer(bytes), number: index + 1)
                    return nil
                } catch {
                    return error
                }
            }
        }
    }

    @Test func aYardDistanceNoLongerSinksItsEnvelope() throws {
        var records = (0..<999).map { Self.record("StepCount", unit: "count", value: "10", minute: $0) }
        records.insert(Self.record("DistanceWalkingRunning", unit: "yd", value: "1760", minute: 500), at: 500)
        let run = try ImportRun.xml(exportDocument(records.joined(separator: "\n")))
        #expect(run.report.invalidTotal == 0)
        #expect(run.envelopes.map(\.samples.count) == [1000])
        #expect(Self.ingestVerdicts(run).allSatisfy { $0 == nil })
        let distance = try #require(run.samples(of: "HKQuantityTypeIdentifierDistanceWalkingRunning").first)
        #expect(distance.unit == "yd" && distance.value == 1760)
    }

    /// HealthKit's unit strings (`HKUnit.unitString`) for the catalogue's quantity types.
    static let healthKitUnits: [(String, String)] = [
        ("StepCount", "count"),
        ("DistanceWalkingRunning", "m"), ("DistanceWalkingRunning", "cm"), ("DistanceWalkingRunning", "mm"),
        ("DistanceWalkingRunning", "km"), ("DistanceWalkingRunning", "in"), ("DistanceWalkingRunning", "ft"),
        ("DistanceWalkingRunning", "yd"), ("DistanceWalkingRunning", "mi"),
        ("ActiveEnergyBurned", "kcal"), ("ActiveEnergyBurned", "Cal"), ("ActiveEnergyBurned", "kJ"),
        ("ActiveEnergyBurned", "J"),
        ("BodyMass", "kg"), ("BodyMass", "g"), ("BodyMass", "lb"), ("BodyMass", "oz"), ("BodyMass", "st"),
        ("BloodGlucose", "mmol<180.15588000005408>/L"), ("BloodGlucose", "mg/dL"),
        ("HeartRate", "count/min"), ("HeartRate", "count/s"),
    ]

    @Test(arguments: healthKitUnits)
    func everyHealthKitUnitOfTheCataloguePassesIngest(type: String, unit: String) throws {
        let run = try ImportRun.xml(exportDocument(Self.record(type, unit: unit, value: "2.5")))
        #expect(run.report.invalidTotal == 0, "\(run.report.invalidExamples)")
        #expect(run.samples.map(\.unit) == [unit])
        #expect(Self.ingestVerdicts(run) == [nil])
    }

    @Test func recordsIngestRefusesAreSkippedAloneWithTypeAndReason() throws {
        let records = [
            Self.record("StepCount", unit: "count", value: "10", minute: 0),
            Self.record("StepCount", unit: "count", value: "-1", minute: 1),
            Self.record("StepCount", unit: "count", value: "12", minute: 2),
            Self.record("DistanceWalkingRunning", unit: "furlong", value: "1", minute: 3),
            Self.record("HeartRate", unit: "count/min", value: "0", minute: 4),
            Self.record("HeartRate", unit: "count/min", value: "61", minute: 5),
            Self.record("BodyMass", unit: "kg", value: "70", minute: 6),
        ]
        let run = try ImportRun.xml(exportDocument(records.joined(separator: "\n")), batchSize: 3)
        // Records start on line 4 of the document.
        #expect(run.samples.map(\.value) == [10, 12, 61, 70])
        #expect(run.envelopes.map(\.samples.count) == [2, 1, 1])
        #expect(Self.ingestVerdicts(run).allSatisfy { $0 == nil })
        let report = run.report
        #expect(
            report.imported == [
                .init(type: "HKQuantityTypeIdentifierBodyMass", count: 1),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 1),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 2),
            ])
        #expect(
            report.invalid == [
                .init(type: "HKQuantityTypeIdentifierDistanceWalkingRunning", count: 1),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 1),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 1),
            ])
        #expect(report.samplesWritten == 4 && report.envelopesWritten == 3)
        #expect(report.invalidExamples.map(\.line) == [5, 7, 8])
        #expect(
            report.invalidExamples.map(\.reason) == [
                "rejected by ingest (belowMinimum): value must not be negative for steps",
                "rejected by ingest (unknownUnit): unit is not a unit of distance (furlong); accepted: "
                    + "m, km, mi, ft, cm, mm, in, yd",
                "rejected by ingest (belowMinimum): value must be greater than 0 for heart_rate",
            ])
    }

    @Test func anEnvelopeOfOnlyRefusedRecordsIsNotWritten() throws {
        let run = try ImportRun.xml(
            exportDocument(
                Self.record("StepCount", unit: "count", value: "-5", minute: 0) + "\n"
                    + #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" startDate="x"/>"#))
        #expect(run.lines.isEmpty)
        #expect(run.report.importedTotal == 0 && run.report.invalidTotal == 2)
        // The decoder's refusal and the converter's are both reported, in line order.
        #expect(run.report.invalidExamples.map(\.line) == [4, 5])
    }

    /// Field values a sample may be built with: the first of each is valid, the others break one
    /// rule each (or stay valid in another way).
    enum Variants {
        static let start = Instant(millis: 1_704_067_200_000, offsetSeconds: 3600)
        /// 0001-01-01T00:00:00Z written at -01:00: year 0000, which ingest refuses.
        static let yearZero = Instant(millis: -62_135_596_800_000, offsetSeconds: -3600)
        /// 10000-01-01T00:00:00Z: a year RFC 3339 cannot write.
        static let yearTenThousand = Instant(millis: 253_402_300_800_000, offsetSeconds: 0)
        static let long = String(repeating: "x", count: 257)

        static let ids: [SampleID] = [
            SampleID(uuid: 0x1b4e_28ba_2fa1_81d2, 0x883f_0016_d3cc_a427, lowercase: true), "own-id-42", "",
            SampleID(long), "a\u{1}b",
        ]
        static let types: [MetricName] =
            [
                "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate",
                "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierActiveEnergyBurned",
                "HKQuantityTypeIdentifierBodyMass", "HKQuantityTypeIdentifierBloodGlucose",
                "HKCategoryTypeIdentifierSleepAnalysis", "HKWorkoutTypeIdentifier",
            ].compactMap { MetricName($0) } + [MetricName(metric: .steps, name: "bogus")]
        /// 0001-01-01T00:00:00 local, in milliseconds.
        static let firstLocal = CivilDay.daysFromCivil(year: 1, month: 1, day: 1) * 86_400_000
        /// 10000-01-01T00:00:00 local, in milliseconds.
        static let endLocal = CivilDay.daysFromCivil(year: 10_000, month: 1, day: 1) * 86_400_000
        static let starts: [Instant] = [
            start, yearZero, yearTenThousand,
            Instant(millis: 1_704_067_200_000, offsetSeconds: 0, offsetIsUnknown: true),
            // The first and last milliseconds RFC 3339 can write, at an offset, and one beyond.
            Instant(millis: firstLocal - 3_600_000, offsetSeconds: 3600),
            Instant(millis: firstLocal - 3_600_001, offsetSeconds: 3600),
            Instant(millis: endLocal - 1 + 18_000_000, offsetSeconds: -18_000),
            Instant(millis: endLocal + 18_000_000, offsetSeconds: -18_000),
            // Offsets RFC 3339 cannot write as they are: seconds, and past ±23:59.
            Instant(millis: 1_704_067_200_123, offsetSeconds: 3601),
            Instant(millis: 1_704_067_200_000, offsetSeconds: -86_340),
            Instant(millis: 1_704_067_200_000, offsetSeconds: 86_400),
            Instant(millis: 1_704_067_200_000, offsetSeconds: -86_401),
        ]
        /// Ends relative to the start, in seconds; `nil` for none.
        static let ends: [Int64?] = [600, nil, 0, -1, 367 * 86_400]
        static let timeZones: [String?] = [nil, "Europe/Paris", "Mars/Base", "Europe/Par is", "PST"]
        static let values: [Double?] = [
            10, nil, -1, 0, 0.471798, 1e308, 61,
            // Written as integers or in shortest form, with and without exponents.
            -0.0, .leastNonzeroMagnitude, 1e-5, 999_999_999_999_999, 1e15, 123_456_789_012_345.6, .pi, -2.5e-300,
        ]
        /// Units after the metric's own.
        static let otherUnits: [String?] = [
            nil, "count", "count/min", "km", "mi", "kg", "kcal", "mmol<180.15588000005408>/L", "furlong", "",
        ]
        static let stages: [SleepStage?] = [nil, .deep]
        static let origins = ["Phone", "", long, "a\u{7F}b", "Anna’s Apple Watch"]
        static let devices: [String?] = [nil, "Apple Watch (Watch6,7)", "", long, "\t"]
        static let syncIdentifiers: [String?] = [nil, "sync-1", ""]
        static let syncVersions: [Int64?] = [nil, 3, -1]
        static let lastModified: [Instant?] = [nil, start, yearZero]
        static let workouts: [WorkoutDetails?] = [
            nil,
            WorkoutDetails(
                activity: ActivityName("HKWorkoutActivityTypeRunning"), distance: WorkoutTotal(value: 5, unit: "km"),
                energy: WorkoutTotal(value: 320, unit: "kcal")),
            WorkoutDetails(distance: WorkoutTotal(value: 1, unit: "furlong")),
            WorkoutDetails(energy: WorkoutTotal(value: -3, unit: "kcal")),
            WorkoutDetails(distance: WorkoutTotal(value: 5000)),
            WorkoutDetails(activity: ActivityName(activity: .other, name: "other")),
        ]
    }

    /// A random sample: each field valid most of the time, else one of its other variants.
    static func randomSample(_ random: inout SplitMix64) -> Sample {
        func pick<Value>(_ variants: [Value]) -> Value {
            Int.random(in: 0..<12, using: &random) == 0 ? variants.randomElement(using: &random)! : variants[0]
        }
        let type = Variants.types.randomElement(using: &random)!
        let start = pick(Variants.starts)
        let kind = type.metric.kind
        return Sample(
            id: pick(Variants.ids), type: type, start: start,
            end: pick(Variants.ends).map { Instant(millis: start.millis + $0 * 1000, offsetSeconds: 3600) },
            timeZone: pick(Variants.timeZones), value: kind == .quantity ? pick(Variants.values) : pick([nil, 10]),
            unit: (kind == .quantity ? pick([type.metric.canonicalUnit] + Variants.otherUnits) : pick([nil, "count"]))
                .map { UnitName($0) },
            stage: kind == .sleep ? .deep : pick(Variants.stages), origin: pick(Variants.origins),
            device: pick(Variants.devices), syncIdentifier: pick(Variants.syncIdentifiers),
            syncVersion: pick(Variants.syncVersions), lastModified: pick(Variants.lastModified),
            workout: kind == .workout ? Variants.workouts.randomElement(using: &random)! : pick(Variants.workouts))
    }

    /// The check the writer makes on each sample (`SampleValidator`) agrees with the decoder on the
    /// envelope that holds the sample alone: the same samples refused, with the same code, path
    /// and reason. Samples are random combinations of valid values and values breaking one rule
    /// each; non-finite values are left out (the importers refuse them, and JSON cannot write them).
    @Test func theWritersSampleCheckAgreesWithTheDecoder() throws {
        var random = SplitMix64(seed: testSeed(11))
        var validator = SampleValidator()
        var verdicts = (accepted: 0, refused: 0)
        for round in 0..<4000 {
            let sample = Self.randomSample(&random)
            var line = EnvelopeJSON.string(
                EnvelopeInput(
                    user: "u1", receivedAt: nil, body: .samplesUpsert(provider: "healthkit", samples: [sample])))
            let decoded = line.withUTF8 { bytes -> IngestError? in
                do throws(IngestError) {
                    _ = try EnvelopeDecoder().decode(line: UnsafeRawBufferPointer(bytes), number: 1)
                    return nil
                } catch {
                    return error
                }
            }
            let checked: IngestError?
            do throws(IngestError) {
                try validator.check(sample)
                checked = nil
            } catch {
                checked = error
            }
            #expect(checked == decoded, "round \(round): \(line)")
            if decoded == nil { verdicts.accepted += 1 } else { verdicts.refused += 1 }
        }
        #expect(verdicts.accepted > 1000 && verdicts.refused > 1000, "\(verdicts)")
    }
}
