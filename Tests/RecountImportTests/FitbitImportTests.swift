import Foundation
import Recount
import TestSupport
import Testing

@testable import RecountImport

/// The Fitbit importer on fixtures in the repository: a synthetic Takeout written for these
/// tests (DST edges, a profile, invalid records) and the Apache-2.0 account-archive excerpt of
/// mrphil007/fitbit-to-sqlite.
@Suite struct FitbitImportTests {
    static let synthetic = FixturePaths.fixture("fitbit-synthetic").path
    static let syntheticZip = FixturePaths.fixture("fitbit-synthetic.zip").path
    static let mrphil = FixturePaths.fixture("fitbit-mrphil007")

    /// Seconds between two RFC 3339 instants.
    static func seconds(_ sample: EmittedSample) throws -> Double {
        let start = try #require(Instant(rfc3339: sample.start))
        let end = try #require(Instant(rfc3339: sample.end ?? sample.start))
        return Double(end.millis - start.millis) / 1000
    }

    @Test func localTimesFollowTheProfileZoneAcrossDST() throws {
        let run = try ImportRun.fitbit(Self.synthetic)
        let steps = run.samples(of: "steps")
        // The repeated 01:30 of 2023-11-05 is EDT the first time, EST the second; 02:30 on
        // 2024-03-10 does not exist in New York and is read with the offset before the change.
        #expect(
            steps.map(\.start) == [
                "2023-11-05T01:30:00-04:00", "2023-11-05T01:30:00-05:00", "2024-03-10T03:30:00-04:00",
            ])
        #expect(steps.map(\.value) == [10, 20, 30])
        #expect(steps.allSatisfy { $0.timeZone == "America/New_York" && $0.unit == "count" })
        #expect(Set(steps.map(\.id)).count == 3)
        #expect(run.report.notes.first == "local times read in America/New_York (from Profile.csv)")
    }

    /// A minute a per-minute file repeats outside the hour clocks go back is the same minute:
    /// an exact repeat is dropped, and a changed one goes to the next envelope, where ingest's
    /// newness rule decides (as it does when the repeat falls in another envelope). In that
    /// hour, the second is the later instant and a third repeats the second.
    @Test func aMinuteRepeatedOnAnOrdinaryDayIsOneSample() throws {
        try withTemporaryDirectory { directory in
            let folder = directory + "/Global Export Data"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            func run(_ values: [(String, Int)], day: String = "10/10/23") throws -> ImportRun {
                let records = values.map { #"{"dateTime":"\#(day) \#($0.0)","value":"\#($0.1)"}"# }
                try Data("[\(records.joined(separator: ","))]".utf8).write(
                    to: URL(fileURLWithPath: folder + "/steps-2023-10-10.json"))
                return try ImportRun.fitbit(directory, timeZone: "America/New_York")
            }
            let exact = try run([("10:00:00", 100), ("10:00:00", 100), ("10:01:00", 50)])
            #expect(exact.samples(of: "steps").map(\.value) == [100, 50])
            #expect(exact.report.duplicatesDropped == 1 && exact.envelopes.count == 1)

            let changed = try run([("10:00:00", 100), ("10:01:00", 50), ("10:00:00", 120)])
            #expect(changed.envelopes.map { $0.samples.map(\.value) } == [[100, 50], [120]])
            #expect(Set(changed.samples.map(\.id)).count == 2, "one id for the minute")

            let fallBack = try run([("01:30:00", 10), ("01:30:00", 10), ("01:30:00", 10)], day: "11/05/23")
            #expect(fallBack.samples.map(\.start) == ["2023-11-05T01:30:00-04:00", "2023-11-05T01:30:00-05:00"])
            #expect(fallBack.report.duplicatesDropped == 1)
        }
    }

    /// A file saved again on Windows starts with a UTF-8 byte order mark: it is read all the same.
    @Test func aByteOrderMarkIsIgnored() throws {
        try withTemporaryDirectory { directory in
            let folder = directory + "/Global Export Data"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data([0xEF, 0xBB, 0xBF] + Array(#"[{"dateTime":"10/10/23 10:00:00","value":"7"}]"#.utf8)).write(
                to: URL(fileURLWithPath: folder + "/steps-2023-10-10.json"))
            // A file of a kind not imported counts among the records seen, as skipped.
            try Data(#"[{"dateTime":"10/10/23 10:00:00","value":"1800"}]"#.utf8).write(
                to: URL(fileURLWithPath: folder + "/height-2023-10-10.json"))
            let run = try ImportRun.fitbit(directory, timeZone: "America/New_York")
            #expect(run.samples(of: "steps").map(\.value) == [7])
            #expect(run.report.recordsSeen == 2 && run.report.skippedTotal == 1)
            #expect(run.report.summary.hasPrefix("records seen 2 (skipped 1, invalid 0); samples imported 1"))
        }
    }

    @Test func badRecordsAreSkippedAndReportedWithFileAndReason() throws {
        let report = try ImportRun.fitbit(Self.synthetic).report
        #expect(report.invalid == [.init(type: "steps", count: 2)])
        let file = "Takeout/Fitbit/Global Export Data/steps-2023-11-04.json"
        #expect(
            report.invalidExamples == [
                .init(file: file, line: 4, type: "steps", reason: "non-numeric value"),
                .init(file: file, line: 5, type: "steps", reason: "bad dateTime \"13/10/24 03:30:00\""),
            ])
        #expect(report.summary.contains("\(file) record 4: steps: non-numeric value"))
    }

    @Test func shortWakesAreCutOutOfStages() throws {
        let sleep = try ImportRun.fitbit(Self.synthetic).samples(of: "sleep")
        #expect(sleep.map(\.stage) == ["inBed", "core", "awake", "core", "deep"])
        #expect(try sleep.map(Self.seconds) == [5400, 600, 60, 2940, 1800])
        #expect(sleep.first?.start == "2023-01-01T23:00:00-05:00")
    }

    /// A night across a DST change keeps its true length: its stages are placed by the time
    /// elapsed, not by wall-clock distance, and one in the hour clocks repeat comes after the
    /// one before it (an attack run: the fall-back night lost an hour, its stages overlapped).
    @Test func aNightAcrossADSTChangeKeepsItsLength() throws {
        try withTemporaryDirectory { directory in
            let folder = directory + "/Global Export Data"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            func log(_ id: Int, _ start: String, _ end: String, duration: Int?, _ levels: [(String, String, Int)])
                -> String
            {
                let data = levels.map { #"{"dateTime":"\#($0.0)","level":"\#($0.1)","seconds":\#($0.2)}"# }
                let length = duration.map { #""duration":\#($0),"# } ?? ""
                return
                    #"{"logId":\#(id),"startTime":"\#(start)","endTime":"\#(end)",\#(length)"type":"stages","levels":{"data":[\#(data.joined(separator: ","))],"shortData":[]}}"#
            }
            let logs = [
                // Fall back: 23:00 EDT to 07:00 EST is nine hours; the second 01:30 is EST.
                log(
                    1, "2023-11-04T23:00:00.000", "2023-11-05T07:00:00.000", duration: 32_400_000,
                    [
                        ("2023-11-04T23:00:00.000", "light", 9000), ("2023-11-05T01:30:00.000", "deep", 3600),
                        ("2023-11-05T01:30:00.000", "rem", 1800), ("2023-11-05T02:00:00.000", "light", 18000),
                    ]),
                // Spring forward: 23:00 EST to 07:00 EDT is seven hours.
                log(
                    2, "2024-03-09T23:00:00.000", "2024-03-10T07:00:00.000", duration: 25_200_000,
                    [("2024-03-09T23:00:00.000", "light", 10800), ("2024-03-10T03:00:00.000", "deep", 14400)]),
                // A stage longer than the repeated hour: the one after it is in the second 01:00.
                log(
                    3, "2024-11-02T23:00:00.000", "2024-11-03T02:00:00.000", duration: 14_400_000,
                    [
                        ("2024-11-02T23:00:00.000", "asleep", 10800), ("2024-11-03T01:00:00.000", "awake", 600),
                        ("2024-11-03T01:10:00.000", "asleep", 3000),
                    ]),
                // No duration: the end in the repeated hour is where the stages end.
                log(
                    4, "2025-11-02T00:30:00.000", "2025-11-02T01:30:00.000", duration: nil,
                    [
                        ("2025-11-02T00:30:00.000", "light", 1800), ("2025-11-02T01:00:00.000", "deep", 1800),
                        ("2025-11-02T01:30:00.000", "rem", 1800), ("2025-11-02T01:00:00.000", "light", 1800),
                    ]),
                // A start in the repeated hour: the second 01:30, as the duration and end tell.
                log(
                    5, "2024-11-03T01:30:00.000", "2024-11-03T06:00:00.000", duration: 16_200_000,
                    [("2024-11-03T01:30:00.000", "light", 1800), ("2024-11-03T02:00:00.000", "deep", 14400)]),
            ]
            try Data("[\(logs.joined(separator: ","))]".utf8).write(
                to: URL(fileURLWithPath: folder + "/sleep-2023-11-04.json"))
            let sleep = try ImportRun.fitbit(directory, timeZone: "America/New_York").samples(of: "sleep")
            #expect(
                sleep.map { "\($0.stage ?? "") \($0.start) \($0.end ?? "")" } == [
                    "inBed 2023-11-04T23:00:00-04:00 2023-11-05T07:00:00-05:00",
                    "core 2023-11-04T23:00:00-04:00 2023-11-05T01:30:00-04:00",
                    "deep 2023-11-05T01:30:00-04:00 2023-11-05T01:30:00-05:00",
                    "rem 2023-11-05T01:30:00-05:00 2023-11-05T02:00:00-05:00",
                    "core 2023-11-05T02:00:00-05:00 2023-11-05T07:00:00-05:00",
                    "inBed 2024-03-09T23:00:00-05:00 2024-03-10T07:00:00-04:00",
                    "core 2024-03-09T23:00:00-05:00 2024-03-10T03:00:00-04:00",
                    "deep 2024-03-10T03:00:00-04:00 2024-03-10T07:00:00-04:00",
                    "inBed 2024-11-02T23:00:00-04:00 2024-11-03T02:00:00-05:00",
                    "asleep 2024-11-02T23:00:00-04:00 2024-11-03T01:00:00-05:00",
                    "awake 2024-11-03T01:00:00-05:00 2024-11-03T01:10:00-05:00",
                    "asleep 2024-11-03T01:10:00-05:00 2024-11-03T02:00:00-05:00",
                    "inBed 2025-11-02T00:30:00-04:00 2025-11-02T01:30:00-05:00",
                    "core 2025-11-02T00:30:00-04:00 2025-11-02T01:00:00-04:00",
                    "deep 2025-11-02T01:00:00-04:00 2025-11-02T01:30:00-04:00",
                    "rem 2025-11-02T01:30:00-04:00 2025-11-02T01:00:00-05:00",
                    "core 2025-11-02T01:00:00-05:00 2025-11-02T01:30:00-05:00",
                    "inBed 2024-11-03T01:30:00-05:00 2024-11-03T06:00:00-05:00",
                    "core 2024-11-03T01:30:00-05:00 2024-11-03T02:00:00-05:00",
                    "deep 2024-11-03T02:00:00-05:00 2024-11-03T06:00:00-05:00",
                ])
            let inBed = try sleep.filter { $0.stage == "inBed" }.map(Self.seconds)
            #expect(inBed == [32400, 25200, 14400, 7200, 16200])
            #expect(
                try sleep.filter { $0.stage != "inBed" }.map(Self.seconds).reduce(0, +)
                    == 32400 + 25200 + 14400 + 7200 + 16200)
        }
    }

    @Test func weightUnitIsCheckedAgainstBMI() throws {
        let weight = try ImportRun.fitbit(Self.synthetic).samples(of: "weight")
        // 80 with BMI 24.69 at 1.80 m is kilograms (80 lb would be BMI 11.2).
        #expect(weight.map(\.unit) == ["kg"])
        #expect(weight.map(\.start) == ["2023-01-01T23:59:59-05:00"])
    }

    @Test func zipAndFolderGiveTheSameLines() throws {
        let folder = try ImportRun.fitbit(Self.synthetic)
        let zip = try ImportRun.fitbit(Self.syntheticZip)
        #expect(folder.lines == zip.lines)
        #expect(folder.lines.count == 1)
    }

    @Test func givenZoneOverridesTheProfile() throws {
        let run = try ImportRun.fitbit(Self.synthetic, timeZone: "Europe/Berlin")
        #expect(run.samples(of: "steps").first?.start == "2023-11-05T01:30:00+01:00")
    }

    @Test func accountArchiveCountsAndTotalsMatchTheFiles() throws {
        let run = try ImportRun.fitbit(Self.mrphil.path, timeZone: "Europe/London")
        let distance = try TakeoutExpectations.array(Self.mrphil.appendingPathComponent("distance.json"))
        let exercise = try TakeoutExpectations.array(Self.mrphil.appendingPathComponent("exercise.json"))
        let sleep = try TakeoutExpectations.array(Self.mrphil.appendingPathComponent("sleep.json"))
        #expect(run.samples(of: "distance").count == distance.count)
        #expect(
            run.samples(of: "distance").compactMap(\.value).reduce(0, +)
                == distance.map { TakeoutExpectations.number($0["value"]) }.reduce(0, +))
        #expect(run.samples(of: "distance").allSatisfy { $0.unit == "cm" })
        #expect(run.samples(of: "workout").count == exercise.count)
        #expect(
            try run.samples(of: "workout").map(Self.seconds).reduce(0, +)
                == exercise.map { TakeoutExpectations.number($0["duration"]) / 1000 }.reduce(0, +))
        // These logs carry only a summary: an inBed sample each, and their minutesAsleep as one
        // asleep sample from when they fell asleep (they read 0 s asleep; an oracle run).
        #expect(run.samples(of: "sleep").map(\.stage) == sleep.flatMap { _ in ["inBed", "asleep"] })
        #expect(
            try run.samples(of: "sleep").filter { $0.stage == "asleep" }.map(Self.seconds)
                == sleep.map { TakeoutExpectations.number($0["minutesAsleep"]) * 60 })
        #expect(run.samples(of: "sleep").first { $0.stage == "asleep" }?.start == "2018-02-01T22:36:00Z")
        #expect(run.report.skippedCount("resting_heart_rate") == 2)
        #expect(run.report.skippedCount("sleep_score") == 2)
        #expect(run.report.invalidTotal == 0)
        #expect(run.envelopes.allSatisfy { $0.provider == "fitbit" && $0.user == "u1" })
    }

    @Test func withoutZoneOrProfileTheImportStops() throws {
        let error = try #require(throws: ImportError.self) { try ImportRun.fitbit(Self.mrphil.path) }
        #expect(error.code == .timeZone)
        #expect(error.message.contains("--time-zone"))
        // Names ingest refuses are refused here too, not written into every sample: unknown
        // ones, and Foundation's abbreviations that are not IANA names.
        for name in ["Mars/Olympus", "PST", "GMT+5"] {
            let unknown = try #require(throws: ImportError.self) {
                try ImportRun.fitbit(Self.mrphil.path, timeZone: name)
            }
            #expect(unknown.code == .timeZone, "\(name)")
        }
    }

    @Test func aFolderWithoutFitbitFilesIsNotAnExport() throws {
        try withTemporaryDirectory { directory in
            try Data("<HealthData/>".utf8).write(to: URL(fileURLWithPath: directory + "/export.xml"))
            try Data("[]".utf8).write(to: URL(fileURLWithPath: directory + "/resting_heart_rate-2022-07-16.json"))
            let error = try #require(throws: ImportError.self) { try ImportRun.fitbit(directory, timeZone: "UTC") }
            #expect(error.code == .notAnExport)
            #expect(error.description.contains("expected a Fitbit export"))
        }
        let xml = try #require(throws: ImportError.self) {
            try ImportRun.fitbit(FixturePaths.fixture("cirilo-export.xml").path, timeZone: "UTC")
        }
        #expect(xml.code == .unreadableFile)
        #expect(xml.description.contains("expected a folder or a zip"))
    }

    /// The files before the damaged one are printed whole, the envelope still held too, and the
    /// error counts them (the held envelope was dropped and nothing counted; an attack run).
    @Test func malformedJSONNamesTheFileAfterPrintingWhatCameBefore() throws {
        try withTemporaryDirectory { directory in
            let distance = (0..<3).map { "{\"dateTime\": \"01/01/24 00:0\($0):00\", \"value\": \"100\"}" }
            try Data("[\(distance.joined(separator: ","))]".utf8).write(
                to: URL(fileURLWithPath: directory + "/distance-2024-01-01.json"))
            try Data("[{\"dateTime\": ".utf8).write(to: URL(fileURLWithPath: directory + "/steps-2024-01-01.json"))
            var lines: [String] = []
            let error = try #require(throws: ImportError.self) {
                try FitbitImporter(user: "u", timeZone: "UTC", batchSize: 2).run(path: directory) { lines.append($0) }
            }
            #expect(error.code == .malformedJSON)
            #expect(error.description.contains("steps-2024-01-01.json"))
            #expect(try ImportRun.decode(lines).map(\.samples.count) == [2, 1])
            #expect(error.message.hasSuffix("(printed before it: 3 samples in 2 envelopes)"))
        }
    }

    @Test(arguments: [
        ("Global Export Data/steps-2023-10-09.json", FitbitFile.steps),
        ("distance.json", .distance), ("heart_rate-2023-11-05.json", .heartRate), ("exercise-100.json", .exercise),
        ("Your Profile/Profile.csv", .profile), ("resting_heart_rate-2022-07-16.json", .other("resting_heart_rate")),
        ("Sleep Score/sleep_score.csv", .other("sleep_score")),
        (
            "time_in_heart_rate_zones-2023-11-05.json",
            .other("time_in_heart_rate_zones")
        ),
    ])
    func fileKinds(path: String, kind: FitbitFile) {
        #expect(FitbitFile(path: path) == kind)
    }

    @Test func wallClockParsing() {
        #expect(FitbitTimestamp.localMillis("10/10/23 00:10:00") == 1_696_896_600_000)
        #expect(FitbitTimestamp.localMillis("2023-10-10T00:10:00.250") == 1_696_896_600_250)
        #expect(FitbitTimestamp.localMillis("2023-10-10T00:10:00") == 1_696_896_600_000)
        #expect(FitbitTimestamp.localMillis(date: "02/29/24", time: "23:59:59") == 1_709_251_199_000)
        for bad in ["02/30/23 00:00:00", "10/10/23 24:00:00", "2023-10-10 00:10", "10/10/2023 00:10:00", ""] {
            #expect(FitbitTimestamp.localMillis(bad) == nil, "\(bad)")
        }
    }
}
