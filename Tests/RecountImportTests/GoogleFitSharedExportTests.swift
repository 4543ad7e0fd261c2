import Foundation
import Recount
import TestSupport
import Testing

@testable import RecountImport

/// The Google Fit importer on the real Takeout of athrvakulkarni11/medical_apis (no licence: read
/// in place from `../shared/data`, skipped when absent). Expected figures come from the files.
@Suite(.enabled(if: FixturePaths.sharedExists("google-fit-takeout-vivo")))
struct GoogleFitSharedExportTests {
    static let folder = "google-fit-takeout-vivo"
    static var root: URL { FixturePaths.shared(folder) }
    static var allData: URL { root.appendingPathComponent("All Data") }

    /// The step values of one `All Data` file.
    static func stepValues(_ name: String) throws -> [Int] {
        let points = try #require(
            TakeoutExpectations.object(allData.appendingPathComponent(name))["Data Points"] as? [[String: Any]])
        return points.map { point in
            let values = point["fitValue"] as? [[String: Any]]
            return ((values?.first?["value"] as? [String: Any])?["intVal"] as? NSNumber)?.intValue ?? -1
        }
    }

    /// A Takeout in Dutch names its folders `Alle gegevens` and `Alle sessies`: its files,
    /// named as Google names them, give the same lines (it was not an export; an attack run).
    @Test func aTakeoutInAnotherLanguageGivesTheSameLines() throws {
        try withTemporaryDirectory { directory in
            let fit = directory + "/Takeout/Fit"
            try FileManager.default.createDirectory(atPath: fit, withIntermediateDirectories: true)
            for (english, dutch) in [
                ("All Data", "Alle gegevens"), ("All Sessions", "Alle sessies"),
                ("Daily activity metrics", "Dagelijkse activiteitsstatistieken"),
            ] {
                try FileManager.default.copyItem(
                    atPath: Self.root.appendingPathComponent(english).path, toPath: "\(fit)/\(dutch)")
            }
            let dutch = try ImportRun.googleFit(directory)
            let english = try ImportRun.googleFit(Self.root.path)
            #expect(dutch.lines == english.lines && dutch.report == english.report)
            #expect(dutch.samples(of: "steps").count == 2338)
        }
    }

    @Test func importsTheOneStepStreamGoogleTotals() throws {
        let run = try ImportRun.googleFit(Self.root.path)
        let estimated = try Self.stepValues("derived_com.google.step_count.delta_com.google(1).json")
        let all = try ["", "(1)", "(2)"].flatMap {
            try Self.stepValues("derived_com.google.step_count.delta_com.google\($0).json")
        }
        // Summing every step stream counts each step about three times.
        #expect(all.reduce(0, +) == 461_545)
        #expect(estimated.reduce(0, +) == 152_635)
        let steps = run.samples(of: "steps")
        #expect(steps.count == estimated.count)
        #expect(steps.count == 2338)
        #expect(steps.compactMap(\.value).reduce(0, +) == 152_635)
        #expect(run.report.invalidTotal == 0)
        #expect(run.envelopes.allSatisfy { $0.provider == "google_fit" })
    }

    @Test func dailyStepSumsMatchGooglesDailyCSV() throws {
        let run = try ImportRun.googleFit(Self.root.path)
        var imported: [String: Double] = [:]
        for sample in run.samples(of: "steps") {
            #expect(sample.start.hasSuffix("+05:30"))
            imported[String(sample.start.prefix(10)), default: 0] += sample.value ?? 0
        }
        let csv = try String(
            contentsOf: Self.root.appendingPathComponent("Daily activity metrics/Daily activity metrics.csv"),
            encoding: .utf8)
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(lines.first?.firstIndex(of: "Step count"))
        var google: [String: Double] = [:]
        for fields in lines.dropFirst() where fields.count > column {
            google[String(fields[0])] = Double(fields[column]) ?? 0
        }
        #expect(google.count == 25)
        #expect(google.values.reduce(0, +) == 152_635)
        #expect(imported == google.filter { $0.value > 0 })
    }

    @Test func sessionsAreWorkoutsAndWeightIsImportedOnce() throws {
        let run = try ImportRun.googleFit(Self.root.path)
        let sessionsFolder = Self.root.appendingPathComponent("All Sessions")
        let names = try FileManager.default.contentsOfDirectory(atPath: sessionsFolder.path).filter {
            $0.hasSuffix(".json")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var expectedSeconds = 0.0
        for name in names {
            let session = try TakeoutExpectations.object(sessionsFolder.appendingPathComponent(name))
            let start = try #require(formatter.date(from: session["startTime"] as? String ?? ""))
            let end = try #require(formatter.date(from: session["endTime"] as? String ?? ""))
            expectedSeconds += end.timeIntervalSince(start)
        }
        let workouts = run.samples(of: "workout")
        #expect(workouts.count == names.count)
        #expect(workouts.count == 45)
        let seconds = try workouts.map(FitbitImportTests.seconds).reduce(0, +)
        #expect(abs(seconds - expectedSeconds) < 0.001)
        #expect(run.samples(of: "weight").map(\.value) == [49.2147331237793])
        #expect(run.samples(of: "weight").map(\.unit) == ["kg"])
    }

    @Test func zoneGivenReplacesTheFixedOffsetAndOutputIsDeterministic() throws {
        let first = try ImportRun.googleFit(Self.root.path)
        #expect(try first.lines == ImportRun.googleFit(Self.root.path).lines)
        let zoned = try ImportRun.googleFit(Self.root.path, timeZone: "Asia/Kolkata")
        #expect(zoned.samples.allSatisfy { $0.timeZone == "Asia/Kolkata" && $0.start.hasSuffix("+05:30") })
        #expect(zoned.samples.map(\.id) == first.samples.map(\.id))
    }
}
