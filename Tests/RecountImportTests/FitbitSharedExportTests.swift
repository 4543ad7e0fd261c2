import Foundation
import Recount
import TestSupport
import Testing

@testable import RecountImport

/// The Fitbit importer on the real Google Takeout of skaliappan97/rlo879 (no licence: read in
/// place from `../shared/data`, skipped when absent). Every expected figure is computed here from
/// the JSON files with `JSONSerialization`.
@Suite(.enabled(if: FixturePaths.sharedExists("fitbit-takeout-skaliappan")))
struct FitbitSharedExportTests {
    static let folder = "fitbit-takeout-skaliappan"
    static let zone = "America/New_York"
    static var data: URL { FixturePaths.shared(folder).appendingPathComponent("Global Export Data") }

    static func records(_ prefix: String) throws -> [[String: Any]] {
        try TakeoutExpectations.files(in: data, prefix: prefix).flatMap(TakeoutExpectations.array)
    }

    static func run() throws -> ImportRun {
        try ImportRun.fitbit(FixturePaths.shared(folder).path, timeZone: zone)
    }

    @Test func perMinuteCountsAndTotalsMatchTheFiles() throws {
        let run = try Self.run()
        let steps = try Self.records("steps-")
        let distance = try Self.records("distance-")
        #expect(steps.count == 8408)
        #expect(run.samples(of: "steps").count == steps.count)
        let stepTotal = steps.map { TakeoutExpectations.number($0["value"]) }.reduce(0, +)
        #expect(stepTotal == 148_569)
        #expect(run.samples(of: "steps").compactMap(\.value).reduce(0, +) == stepTotal)
        #expect(run.samples(of: "distance").count == distance.count)
        // Centimetres, kept as written (ingest converts to metres).
        let distanceTotal = distance.map { TakeoutExpectations.number($0["value"]) }.reduce(0, +)
        #expect(distanceTotal == 5_363_340)
        #expect(run.samples(of: "distance").compactMap(\.value).reduce(0, +) == distanceTotal)
        #expect(run.samples(of: "distance").allSatisfy { $0.unit == "cm" })
        #expect(run.report.invalidTotal == 0)
        #expect(run.report.importedCount("steps") == steps.count)
    }

    @Test func offsetsFollowNewYorkDaylightSaving() throws {
        let run = try Self.run()
        let fallBack = TakeoutExpectations.wallSeconds("2023-11-05T02:00:00")
        let springForward = TakeoutExpectations.wallSeconds("2024-03-10T02:00:00")
        var seen: Set<String> = []
        for sample in run.samples(of: "steps") {
            let wall = TakeoutExpectations.wallSeconds(sample.start)
            let summer = sample.start.hasPrefix("2023") ? wall < fallBack : wall >= springForward
            #expect(sample.start.hasSuffix(summer ? "-04:00" : "-05:00"), "\(sample.start)")
            seen.insert(String(sample.start.suffix(6)))
        }
        #expect(seen == ["-04:00", "-05:00"])
    }

    @Test func heartRateTimesAreUTC() throws {
        let run = try Self.run()
        let readings = try Self.records("heart_rate-")
        let heart = run.samples(of: "heart_rate")
        #expect(heart.count == readings.count)
        #expect(heart.count == 47)
        let bpm = readings.map { TakeoutExpectations.number(($0["value"] as? [String: Any])?["bpm"]) }
        #expect(heart.compactMap(\.value).reduce(0, +) == bpm.reduce(0, +))
        // "11/05/23 04:36:52" UTC is 00:36:52 in New York, still on EDT (it ended at 06:00 UTC).
        #expect(heart.first?.start == "2023-11-05T00:36:52-04:00")
        #expect(heart.last?.start == "2023-11-05T21:35:41-05:00")
    }

    @Test func sleepStageSecondsMatchTheLevels() throws {
        let run = try Self.run()
        let logs = try Self.records("sleep-")
        #expect(logs.count == 11)
        let expected = TakeoutExpectations.sleepSeconds(logs)
        var actual: [String: Int] = [:]
        for sample in run.samples(of: "sleep") {
            actual[sample.stage ?? "", default: 0] += Int(try FitbitImportTests.seconds(sample))
        }
        #expect(actual == expected)
        #expect(run.samples(of: "sleep").filter { $0.stage == "inBed" }.count == logs.count)
    }

    @Test func weightIsInPoundsAlthoughTheProfileIsMetric() throws {
        let run = try Self.run()
        let logs = try Self.records("weight-")
        let weight = run.samples(of: "weight")
        #expect(weight.count == logs.count)
        #expect(weight.count == 11)
        #expect(weight.allSatisfy { $0.unit == "lb" })
        #expect(
            weight.compactMap(\.value).reduce(0, +)
                == logs.map { TakeoutExpectations.number($0["weight"]) }.reduce(0, +))
        #expect(run.report.notes.contains("11 weight logs in lb (checked against BMI and height)"))
    }

    @Test func exercisesAreWorkouts() throws {
        let run = try Self.run()
        let logs = try Self.records("exercise-")
        let workouts = run.samples(of: "workout")
        #expect(workouts.count == logs.count)
        #expect(workouts.count == 73)
        #expect(
            try workouts.map(FitbitImportTests.seconds).reduce(0, +)
                == logs.map { TakeoutExpectations.number($0["duration"]) / 1000 }.reduce(0, +))
        #expect(run.report.skippedCount("resting_heart_rate") == 730)
    }

    @Test func outputIsDeterministicAndIdsAreStableAcrossOverlappingExports() throws {
        let first = try Self.run()
        let second = try Self.run()
        #expect(first.lines == second.lines)
        #expect(Set(first.samples.map(\.id)).count == first.samples.count)
        // A smaller export holding two of the same files gives the same samples under the same ids.
        try withTemporaryDirectory { directory in
            for name in ["steps-2023-10-09.json", "sleep-2022-07-16.json"] {
                try FileManager.default.copyItem(
                    at: Self.data.appendingPathComponent(name), to: URL(fileURLWithPath: directory + "/" + name))
            }
            let part = try ImportRun.fitbit(directory, timeZone: Self.zone)
            #expect(part.samples.count > 3000)
            #expect(Set(part.samples).isSubset(of: Set(first.samples)))
        }
    }
}
