import Foundation
import Testing

@testable import RecountImport

/// Imports of real exports that may not be copied into the repository (GPL-3.0 or no licence):
/// read in place from `../shared/data`, skipped when that directory is absent.
@Suite struct SharedExportTests {
    static let grll = "apple-health-grll-fixture/export.xml"
    static let frGarmin = "apple-health-export-fr-garmin/export-excerpt.xml"
    static let trackTales = "apple-health-tracktales-fixtures"

    // MARK: grll (no licence): unit quirks, correlation, HKTimeZone, routes with sync ids

    @Test(.enabled(if: FixturePaths.sharedExists(grll)))
    func grllUnitsPassThroughAsWritten() throws {
        let run = try ImportRun.file(FixturePaths.shared(Self.grll))
        let glucose = run.samples(of: "HKQuantityTypeIdentifierBloodGlucose")
        #expect(glucose.map(\.unit) == ["mmol<180.1558800000541>/L", "mmol<180.1558800000541>/L"])
        #expect(glucose.map(\.value) == [4.59, 5.23])
        let energy = run.samples(of: "HKQuantityTypeIdentifierActiveEnergyBurned")
        #expect(energy.map(\.unit) == ["Cal"])
        #expect(energy.map(\.value) == [45.3])
        #expect(run.lines.contains { $0.contains(#""unit":"mmol<180.1558800000541>/L""#) })
    }

    @Test(.enabled(if: FixturePaths.sharedExists(grll)))
    func grllCountsAndCorrelation() throws {
        let run = try ImportRun.file(FixturePaths.shared(Self.grll))
        let report = run.report
        #expect(
            report.imported == [
                .init(type: "HKCategoryTypeIdentifierSleepAnalysis", count: 2),
                .init(type: "HKQuantityTypeIdentifierActiveEnergyBurned", count: 1),
                .init(type: "HKQuantityTypeIdentifierBloodGlucose", count: 2),
                .init(type: "HKQuantityTypeIdentifierBodyMass", count: 2),
                .init(type: "HKQuantityTypeIdentifierDistanceWalkingRunning", count: 1),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 3),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 2),
                .init(type: "HKWorkoutTypeIdentifier", count: 2),
            ])
        #expect(report.skippedTotal == 17)
        #expect(report.skippedCount("HKCorrelationTypeIdentifierBloodPressure") == 1)
        #expect(report.skippedCount("ActivitySummary") == 3)
        // The correlation's two children are not counted (or imported) a second time.
        #expect(report.correlationChildrenIgnored == 2)
        #expect(report.skippedCount("HKQuantityTypeIdentifierBloodPressureSystolic") == 0)
        #expect(report.recordsSeen == 32)
        #expect(report.invalidTotal == 0)
    }

    @Test(.enabled(if: FixturePaths.sharedExists(grll)))
    func grllSleepZoneAndWorkoutMetadata() throws {
        let run = try ImportRun.file(FixturePaths.shared(Self.grll))
        let sleep = run.samples(of: "HKCategoryTypeIdentifierSleepAnalysis")
        // AutoSleep, written +0100 in July: Zurich was on +02:00. The second record has no
        // HKTimeZone; Zurich, the file's only HKTimeZone and on +01:00 at export, is inferred.
        #expect(sleep.map(\.start) == ["2020-07-08T02:05:06+02:00", "2020-07-08T02:15:00+02:00"])
        #expect(sleep.map(\.timeZone) == ["Europe/Zurich", nil])
        #expect(sleep.map(\.stage) == ["inBed", "asleep"])
        // The routes nested in the workout carry a SyncIdentifier; the workout itself has none.
        let workouts = run.samples(of: "HKWorkoutTypeIdentifier")
        #expect(workouts.count == 2)
        #expect(workouts.allSatisfy { $0.syncIdentifier == nil && $0.syncVersion == nil })
        #expect(workouts.allSatisfy { $0.device == "Apple Watch (Watch4,4)" })
        #expect(
            Set(run.samples.map(\.origin)) == [
                "AutoSleep", "Guillaume's Apple Watch", "Health", "Zepp Life",
            ])
    }

    @Test(.enabled(if: FixturePaths.sharedExists(grll)))
    func grllIsByteIdenticalAcrossRuns() throws {
        let first = try ImportRun.file(FixturePaths.shared(Self.grll), batchSize: 4)
        let second = try ImportRun.file(FixturePaths.shared(Self.grll), batchSize: 4)
        #expect(first.lines == second.lines)
        #expect(first.lines.count == 4)
    }

    // MARK: tracktales (GPL-3.0): source-name variants, sync ids, HKTimeZone on workouts

    /// Imports every fragment file, each wrapped in a root element (they have none).
    static func trackTalesRuns() throws -> [String: ImportRun] {
        let directory = FixturePaths.shared(trackTales)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".xml") }.sorted()
        var runs: [String: ImportRun] = [:]
        for name in names {
            let fragment = try String(
                contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            runs[name] = try ImportRun.xml("<HealthData>\n" + fragment + "\n</HealthData>\n")
        }
        return runs
    }

    @Test(.enabled(if: FixturePaths.sharedExists(trackTales + "/workout_running.xml")))
    func trackTalesSourceNameVariantsCollapse() throws {
        let runs = try Self.trackTalesRuns()
        #expect(runs.count == 15)
        // Raw sourceName of these workouts: "Apple Watch", "Apple\u{00A0}Watch",
        // "Apple\u{00A0}Watch " (trailing space).
        let ascii = try #require(runs["workout_cycling.xml"]).samples(of: "HKWorkoutTypeIdentifier")
        let noBreak = try #require(runs["workout_running_multiple_parts.xml"])
            .samples(of: "HKWorkoutTypeIdentifier")
        let trailing = try #require(runs["workout_running_too_fast.xml"])
            .samples(of: "HKWorkoutTypeIdentifier")
        #expect(!ascii.isEmpty && !noBreak.isEmpty && !trailing.isEmpty)
        #expect(Set((ascii + noBreak + trailing).map(\.origin)) == ["Apple Watch"])
        let allOrigins = Set(runs.values.flatMap { $0.samples.map(\.origin) })
        #expect(
            allOrigins == [
                "Apple", "Apple Watch", "Apple Watch de Nicolas", "FITIV Run", "MyFitnessPal",
            ])
        let devices = Set(runs.values.flatMap { $0.samples.compactMap(\.device) })
        #expect(devices == ["Apple Watch (Watch3,4)", "Apple Watch (Watch7,2)"])
    }

    @Test(.enabled(if: FixturePaths.sharedExists(trackTales + "/workout_running.xml")))
    func trackTalesCountsAndZones() throws {
        let runs = try Self.trackTalesRuns()
        var imported: [String: Int] = [:]
        var skipped: [String: Int] = [:]
        for run in runs.values {
            for entry in run.report.imported { imported[entry.type, default: 0] += entry.count }
            for entry in run.report.skipped { skipped[entry.type, default: 0] += entry.count }
            #expect(run.report.invalidTotal == 0)
        }
        #expect(
            imported == [
                "HKQuantityTypeIdentifierBodyMass": 12, "HKQuantityTypeIdentifierHeartRate": 14,
                "HKWorkoutTypeIdentifier": 11,
            ])
        #expect(
            skipped == [
                "HKQuantityTypeIdentifierRestingHeartRate": 3, "HKQuantityTypeIdentifierVO2Max": 10,
            ])
        // Written +0100 in September; HKTimeZone Europe/Paris gives +02:00.
        let running = try #require(runs["workout_running.xml"]?.samples.first)
        #expect(running.start == "2025-09-16T17:14:50+02:00")
        #expect(running.timeZone == "Europe/Paris")
        // Workouts without receivedAt: fragments have no ExportDate.
        #expect(runs.values.allSatisfy { $0.envelopes.allSatisfy { $0.receivedAt == nil } })
    }

    // MARK: fr-garmin (no licence): the whole export, local time of samples without HKTimeZone

    static let frGarminZip = "apple-health-export-fr-garmin/export.zip"

    /// All 60,034 samples are written +0100 (the export's offset); 56,032 of 56,138 have no
    /// HKTimeZone. Counted independently with Python's zoneinfo over the unzipped export.xml:
    /// 485 of them fall in Paris summer time (+02:00), 44 of those on another day.
    @Test(.enabled(if: FixturePaths.sharedExists(frGarminZip)))
    func frGarminSamplesWithoutZoneAreReZoned() throws {
        let url = FixturePaths.shared(Self.frGarminZip)
        let inferred = try ImportRun.file(url)
        let rezoning = try #require(inferred.report.rezoning)
        #expect(rezoning.how == "inferred" && rezoning.zone == "Europe/Paris")
        #expect(rezoning.samplesWithoutZone == 56_032)
        #expect(rezoning.rezoned == 485 && rezoning.movedDay == 44 && rezoning.keptOtherOffset == 0)
        #expect(inferred.report.summary.contains("485 of 56032 samples without HKTimeZone re-zoned to Europe/Paris"))

        var importer = AppleHealthImporter(user: "u1")
        importer.timeZone = .zone("Europe/Paris")
        var given: [String] = []
        let report = try importer.run(file: url) { given.append($0) }
        #expect(given == inferred.lines)
        #expect(report.rezoning?.how == "given" && report.rezoning?.rezoned == 485)

        importer.timeZone = .asWritten
        var written: [String] = []
        _ = try importer.run(file: url) { written.append($0) }
        let writtenSamples = try ImportRun.decode(written).flatMap(\.samples)
        #expect(writtenSamples.filter { $0.timeZone == nil }.allSatisfy { $0.start.hasSuffix("+01:00") })
        let changed = zip(writtenSamples, inferred.samples).filter { $0.0.start != $0.1.start || $0.0.end != $0.1.end }
        #expect(changed.count == 485)
        #expect(changed.allSatisfy { $0.1.start.hasSuffix("+02:00") || $0.1.end?.hasSuffix("+02:00") == true })
    }

    // MARK: fr-garmin (no licence): a real 2.2 MB excerpt, iPhone + Garmin Connect

    @Test(.enabled(if: FixturePaths.sharedExists(frGarmin)))
    func frGarminExcerptCounts() throws {
        let run = try ImportRun.file(FixturePaths.shared(Self.frGarmin))
        let report = run.report
        #expect(
            report.imported == [
                .init(type: "HKCategoryTypeIdentifierSleepAnalysis", count: 964),
                .init(type: "HKQuantityTypeIdentifierActiveEnergyBurned", count: 93),
                .init(type: "HKQuantityTypeIdentifierBodyMass", count: 1),
                .init(type: "HKQuantityTypeIdentifierDistanceWalkingRunning", count: 830),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 2780),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 3036),
                .init(type: "HKWorkoutTypeIdentifier", count: 60),
            ])
        #expect(
            report.skipped == [
                .init(type: "HKDataTypeSleepDurationGoal", count: 1),
                .init(type: "HKQuantityTypeIdentifierBasalEnergyBurned", count: 93),
                .init(type: "HKQuantityTypeIdentifierBodyFatPercentage", count: 13),
                .init(type: "HKQuantityTypeIdentifierBodyMassIndex", count: 13),
                .init(type: "HKQuantityTypeIdentifierFlightsClimbed", count: 422),
            ])
        #expect(report.recordsSeen == 8306)
        #expect(report.invalidTotal == 0 && report.duplicatesDropped == 0)
        #expect(report.samplesWritten == 7764)
        #expect(
            run.envelopes.map(\.samples.count) == [1000, 1000, 1000, 1000, 1000, 1000, 1000, 764])
        #expect(Set(run.samples.map(\.id)).count == 7764)
        #expect(run.envelopes.allSatisfy { $0.receivedAt == "2021-02-06T12:18:38+01:00" })

        // Every record is written +0100; the 106 HKTimeZone samples name Paris, which the others
        // are shown in too (inferred), without a timeZone field.
        let zoned = run.samples.filter { $0.timeZone != nil }
        #expect(zoned.count == 106)
        #expect(zoned.allSatisfy { $0.timeZone == "Europe/Paris" })
        #expect(zoned.contains { $0.start.hasSuffix("+02:00") })
        #expect(run.report.rezoning?.how == "inferred" && run.report.rezoning?.zone == "Europe/Paris")

        // VeSync (the scale) only wrote BMI and body fat, which are skipped.
        #expect(Set(run.samples.map(\.origin)) == ["Clock", "Connect", "Health", "iPhone"])
        #expect(Set(run.samples.compactMap(\.device)) == ["iPhone (iPhone10,1)"])
        #expect(run.lines.allSatisfy { !$0.contains("0x") })
        let stages = Dictionary(
            grouping: run.samples(of: "HKCategoryTypeIdentifierSleepAnalysis"),
            by: { $0.stage ?? "" }
        )
        .mapValues(\.count)
        #expect(stages == ["asleep": 785, "inBed": 179])
    }
}
