import Foundation
import Testing

@testable import RecountImport

/// Imports of the permissively licensed real excerpts copied under `Fixtures/`.
@Suite struct FixtureImportTests {
    // MARK: cirilo (MIT): iPhone + Watch, HKTimeZone Europe/Amsterdam, export-time offset +0200

    @Test func ciriloCountsPerType() throws {
        let run = try ImportRun.file(FixturePaths.fixture("cirilo-export.xml"))
        let report = run.report
        #expect(
            report.imported == [
                .init(type: "HKCategoryTypeIdentifierSleepAnalysis", count: 2),
                .init(type: "HKQuantityTypeIdentifierActiveEnergyBurned", count: 2),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 2),
            ])
        #expect(
            report.skipped == [
                .init(type: "HKQuantityTypeIdentifierAppleExerciseTime", count: 1),
                .init(type: "HKQuantityTypeIdentifierAppleStandTime", count: 1),
            ])
        #expect(report.invalidTotal == 0)
        #expect(report.recordsSeen == 8)
        #expect(report.exportDate == "2024-06-01T08:10:05+02:00")
        #expect(report.samplesWritten == 6 && report.envelopesWritten == 1)
        #expect(run.envelopes.count == 1)
        let envelope = try #require(run.envelopes.first)
        #expect(envelope.kind == "samples.upsert")
        #expect(envelope.provider == "healthkit")
        #expect(envelope.user == "u1")
        #expect(envelope.receivedAt == "2024-06-01T08:10:05+02:00")
    }

    @Test func ciriloHKTimeZoneDecidesTheOffset() throws {
        let run = try ImportRun.file(FixturePaths.fixture("cirilo-export.xml"))
        let sleep = run.samples(of: "HKCategoryTypeIdentifierSleepAnalysis")
        // Written "2024-01-01 00:55:28 +0200": Amsterdam was on +01:00 in January.
        #expect(sleep.map(\.start) == ["2023-12-31T23:55:28+01:00", "2024-01-01T02:27:53+01:00"])
        #expect(sleep.map(\.end) == ["2023-12-31T23:56:53+01:00", "2024-01-01T02:40:23+01:00"])
        #expect(sleep.map(\.timeZone) == ["Europe/Amsterdam", "Europe/Amsterdam"])
        #expect(sleep.map(\.stage) == ["inBed", "core"])
        #expect(sleep.map(\.origin) == ["Alexandre's iPhone", "Alexandre's Apple Watch"])
        #expect(sleep.allSatisfy { $0.value == nil && $0.unit == nil })
        // Without HKTimeZone: written "+0200" (June, the export's offset), shown in the zone every
        // HKTimeZone of the file names, Amsterdam, which was on +01:00 in January. No timeZone field.
        let heartRate = run.samples(of: "HKQuantityTypeIdentifierHeartRate")
        #expect(
            heartRate.map(\.start) == ["2024-01-01T00:01:36+01:00", "2024-01-01T00:01:37+01:00"])
        #expect(heartRate.allSatisfy { $0.timeZone == nil })
        #expect(run.report.rezoning?.how == "inferred" && run.report.rezoning?.zone == "Europe/Amsterdam")
    }

    @Test func ciriloValuesUnitsAndDevices() throws {
        let run = try ImportRun.file(FixturePaths.fixture("cirilo-export.xml"))
        let heartRate = run.samples(of: "HKQuantityTypeIdentifierHeartRate")
        #expect(heartRate.map(\.value) == [74, 75])
        #expect(heartRate.allSatisfy { $0.unit == "count/min" })
        let energy = run.samples(of: "HKQuantityTypeIdentifierActiveEnergyBurned")
        #expect(energy.map(\.value) == [0.12, 0.08])
        #expect(energy.allSatisfy { $0.unit == "kcal" })
        // Distinct 0x… addresses, one device.
        #expect(Set(run.samples.compactMap(\.device)) == ["Apple Watch (Watch6,7)"])
        #expect(run.lines.allSatisfy { !$0.contains("0x") && !$0.contains("HKDevice") })
        #expect(Set(run.samples.map(\.id)).count == 6)
    }

    @Test func ciriloIsByteIdenticalAcrossRuns() throws {
        let first = try ImportRun.file(FixturePaths.fixture("cirilo-export.xml"))
        let second = try ImportRun.file(FixturePaths.fixture("cirilo-export.xml"))
        #expect(first.lines == second.lines)
        #expect(first.report == second.report)
    }

    /// The same records re-written by a later export at another offset (+0100 instead of +0200,
    /// every clock time one hour earlier): same instants, so the same ids; samples with
    /// `HKTimeZone` come out byte-identical, the others keep their (different) written offset.
    @Test func ciriloIdsSurviveADifferentExportOffset() throws {
        let original = try String(
            contentsOf: FixturePaths.fixture("cirilo-export.xml"), encoding: .utf8)
        let rewritten = try Self.shiftingOffsets(of: original, fromPlusHours: 2, toPlusHours: 1)
        #expect(rewritten != original)
        #expect(!rewritten.contains("+0200"))
        let before = try ImportRun.xml(original)
        let after = try ImportRun.xml(rewritten)
        #expect(before.samples.map(\.id) == after.samples.map(\.id))
        let zoned = { (run: ImportRun) -> [EmittedSample] in
            run.samples.filter { $0.timeZone != nil }
        }
        #expect(zoned(before) == zoned(after))
        #expect(zoned(before).count == 2)
        #expect(
            after.samples(of: "HKQuantityTypeIdentifierHeartRate").first?.start
                == "2024-01-01T00:01:36+01:00")
    }

    // MARK: dogsheep (Apache-2.0): NBSP source name, HKDevice, workout with HKTimeZone

    @Test func dogsheepWorkoutAndHeartRate() throws {
        let run = try ImportRun.file(FixturePaths.fixture("dogsheep-export.xml"))
        #expect(
            run.report.imported == [
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 1),
                .init(type: "HKWorkoutTypeIdentifier", count: 1),
            ])
        #expect(
            run.report.skipped == [
                .init(type: "ActivitySummary", count: 2),
                .init(type: "HKQuantityTypeIdentifierBodyMassIndex", count: 1),
            ])
        let workout = try #require(run.samples(of: "HKWorkoutTypeIdentifier").first)
        // Written -0700 (export time, PDT) for a November date: Los Angeles was on -08:00.
        #expect(workout.start == "2016-11-14T06:25:41-08:00")
        #expect(workout.end == "2016-11-14T06:30:52-08:00")
        #expect(workout.timeZone == "America/Los_Angeles")
        #expect(workout.value == nil && workout.unit == nil && workout.stage == nil)
        let heartRate = try #require(run.samples(of: "HKQuantityTypeIdentifierHeartRate").first)
        #expect(heartRate.device == "Apple Watch (Watch2,4)")
        #expect(heartRate.start == "2018-09-10T02:28:55-07:00")
        // "Apple\u{00A0}Watch" on both: one ASCII origin. The nested WorkoutRoute
        // ("Simon’s iPhone") is not a sample.
        #expect(Set(run.samples.map(\.origin)) == ["Apple Watch"])
        #expect(run.report.recordsSeen == 5)
    }

    // MARK: tdda (MIT): full DTD header, old export format, NBSP workout source

    @Test func tddaMatchesUpstreamCSVs() throws {
        let run = try ImportRun.file(FixturePaths.fixture("tdda-export6s3sample.xml"))
        #expect(
            run.report.imported == [
                .init(type: "HKQuantityTypeIdentifierDistanceWalkingRunning", count: 5),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 10),
                .init(type: "HKWorkoutTypeIdentifier", count: 1),
            ])
        #expect(run.report.skipped == [.init(type: "ActivitySummary", count: 2)])
        // Upstream StepCount.csv / DistanceWalkingRunning.csv values, in order.
        let steps = run.samples(of: "HKQuantityTypeIdentifierStepCount")
        #expect(steps.compactMap(\.value) == [329, 283, 426, 61, 10, 200, 390, 320, 216, 282])
        #expect(
            steps.allSatisfy { $0.unit == "count" && $0.origin == "Health" && $0.device == nil })
        let distance = run.samples(of: "HKQuantityTypeIdentifierDistanceWalkingRunning")
        #expect(distance.compactMap(\.value) == [0.00288, 0.00284, 0.00142, 0.00639, 0.0059])
        #expect(distance.allSatisfy { $0.unit == "km" })
        let workout = try #require(run.samples(of: "HKWorkoutTypeIdentifier").first)
        #expect(workout.origin == "NJR Apple Watch")
        #expect(workout.start == "2016-04-02T10:40:38+01:00")
        #expect(run.report.exportDate == "2016-04-15T07:27:26+01:00")
    }

    /// The exact bytes of one envelope: field order, number text, no trailing newline.
    @Test func tddaGoldenEnvelope() throws {
        let run = try ImportRun.file(
            FixturePaths.fixture("tdda-export6s3sample.xml"), user: "user-7@example.org",
            batchSize: 1)
        #expect(run.lines.count == 16)
        #expect(
            run.lines.first == """
                {"kind":"samples.upsert","user":"user-7@example.org","receivedAt":"2016-04-15T07:27:26+01:00",\
                "provider":"healthkit","samples":[{"id":"efd1e933-ca9d-844b-b6a9-f89bf763471e",\
                "type":"HKQuantityTypeIdentifierStepCount","start":"2014-09-13T10:27:54+01:00",\
                "end":"2014-09-13T10:27:59+01:00","value":329,"unit":"count","origin":"Health"}]}
                """)
        #expect(run.lines[10].contains("\"value\":0.00288,\"unit\":\"km\""))
    }

    @Test func batchesSplitAtBatchSize() throws {
        let run = try ImportRun.file(FixturePaths.fixture("tdda-export6s3sample.xml"), batchSize: 4)
        #expect(run.envelopes.map(\.samples.count) == [4, 4, 4, 4])
        #expect(run.report.envelopesWritten == 4)
        #expect(run.report.samplesWritten == 16)
        let single = try ImportRun.file(FixturePaths.fixture("tdda-export6s3sample.xml"))
        #expect(run.samples == single.samples)
    }

    @Test func progressIsReportedEveryInterval() throws {
        let run = try ImportRun.file(
            FixturePaths.fixture("tdda-export6s3sample.xml"), progressInterval: 5)
        #expect(run.progress == [5, 10, 15])
        #expect(run.report.recordsSeen == 18)
    }

    /// Rewrites every `yyyy-MM-dd HH:mm:ss +0H00` timestamp as the same instant at `+0H'00`.
    static func shiftingOffsets(of text: String, fromPlusHours from: Int, toPlusHours to: Int)
        throws -> String
    {
        let written = try Regex(
            "[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \\+0\(from)00")
        return text.replacing(written) { match in
            let original = String(text[match.range])
            guard let timestamp = ExportTimestamp(parsing: original) else { return original }
            let rfc = ExportTimestamp.rfc3339(
                epochSeconds: timestamp.epochSeconds, offsetSeconds: Int32(to * 3600))
            // 2024-01-01T00:01:36+01:00 -> 2024-01-01 00:01:36 +0100
            return rfc.prefix(10) + " " + rfc.dropFirst(11).prefix(8) + " +0\(to)00"
        }
    }
}
