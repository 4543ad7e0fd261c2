import Foundation
import Recount
import TestSupport
import Testing

@testable import RecountImport

/// Workout activity, distance and energy on the real exports in `../shared/data` (skipped when
/// absent): what the importers emit, checked against figures computed here straight from the
/// files, with this file's own tag scan and unit factors.
@Suite struct WorkoutImportTests {
    /// Metres or kilocalories per unit, as the exports write them.
    static let factors: [String: Double] = [
        "m": 1, "km": 1000, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144, "kcal": 1, "Cal": 1, "kJ": 1 / 4.184,
    ]

    /// One workout of a file as read here: its activity type and totals in m and kcal.
    struct Expected {
        var activity: String
        var distance: Double?
        var energy: Double?
    }

    /// The `<Workout>`s of an export, with the totals of their attributes, else of their
    /// direct `<WorkoutStatistics>` children (distance: the first `…Distance…` of each type,
    /// added up; energy: active energy), read with a regular expression and a depth counter.
    static func scanWorkouts(_ text: String) throws -> [Expected] {
        let tag = try Regex(
            #"<(/?)([A-Za-z]+)([^>]*?)(/?)>"#, as: (Substring, Substring, Substring, Substring, Substring).self)
        func attribute(_ name: String, _ attributes: Substring) -> String? {
            guard let range = attributes.range(of: " \(name)=\"") else { return nil }
            let rest = attributes[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        func total(_ value: String?, _ unit: String?) -> Double? {
            guard let value, let unit, let number = Double(value), let factor = factors[unit] else { return nil }
            return number * factor
        }
        var workouts: [Expected] = []
        var depth = 0
        var workoutDepth: Int?
        // The current workout's distance types summed from statistics (nil: from its attributes).
        var distanceTypes: [String]? = nil
        for match in text.matches(of: tag) {
            let closing = !match.output.1.isEmpty
            let name = match.output.2
            let attributes = match.output.3
            if closing {
                if depth == workoutDepth { workoutDepth = nil }
                depth -= 1
                continue
            }
            depth += 1
            if name == "Workout" {
                workouts.append(
                    Expected(
                        activity: attribute("workoutActivityType", attributes) ?? "",
                        distance: total(
                            attribute("totalDistance", attributes), attribute("totalDistanceUnit", attributes)),
                        energy: total(
                            attribute("totalEnergyBurned", attributes),
                            attribute("totalEnergyBurnedUnit", attributes))))
                workoutDepth = depth
                distanceTypes = workouts[workouts.count - 1].distance == nil ? [] : nil
            } else if name == "WorkoutStatistics", let workoutDepth, depth == workoutDepth + 1,
                let type = attribute("type", attributes)
            {
                let sum = total(attribute("sum", attributes), attribute("unit", attributes))
                if type.contains("Distance") {
                    if let types = distanceTypes, !types.contains(type), let sum {
                        workouts[workouts.count - 1].distance = (workouts[workouts.count - 1].distance ?? 0) + sum
                        distanceTypes = types + [type]
                    }
                } else if type == "HKQuantityTypeIdentifierActiveEnergyBurned",
                    workouts[workouts.count - 1].energy == nil
                {
                    workouts[workouts.count - 1].energy = sum
                }
            }
            if !match.output.4.isEmpty {
                if depth == workoutDepth { workoutDepth = nil }
                depth -= 1
            }
        }
        return workouts
    }

    /// A total in m or kcal, with this file's factors.
    static func metres(_ total: EmittedTotal?) -> Double? {
        guard let total else { return nil }
        return total.value * (total.unit.map { factors[$0] ?? .nan } ?? 1)
    }

    /// Compares the emitted workouts of `runs` with the files' own figures.
    static func check(_ texts: [String], _ runs: [ImportRun], _ label: String) throws {
        let expected = try texts.flatMap(scanWorkouts)
        let workouts = runs.flatMap { $0.samples(of: "HKWorkoutTypeIdentifier") }
        #expect(workouts.count == expected.count, "\(label)")
        let counts = Dictionary(grouping: expected, by: \.activity).mapValues(\.count)
        #expect(Dictionary(grouping: workouts, by: { $0.activity ?? "" }).mapValues(\.count) == counts, "\(label)")
        let distance = expected.compactMap(\.distance).reduce(0, +)
        let energy = expected.compactMap(\.energy).reduce(0, +)
        let emittedDistance = workouts.compactMap { metres($0.distance) }.reduce(0, +)
        let emittedEnergy = workouts.compactMap { metres($0.energy) }.reduce(0, +)
        #expect(abs(emittedDistance - distance) <= 1e-9 * max(1, distance), "\(label) distance")
        #expect(abs(emittedEnergy - energy) <= 1e-9 * max(1, energy), "\(label) energy")
        // Ingest converts the totals as this file does, and keeps them out of the rollups.
        let samples = try runs.flatMap(\.lines).flatMap { line in
            try Array(line.utf8).withUnsafeBytes { try EnvelopeDecoder().decode(line: $0, number: 1).samples }
        }.filter { $0.type.metric == .workout }
        let canonical = samples.compactMap { $0.workout?.distance?.canonicalValue }.reduce(0, +)
        #expect(abs(canonical - distance) <= 1e-9 * max(1, distance), "\(label) canonical distance")
        let activities = Dictionary(grouping: samples, by: { $0.activity?.name ?? "" }).mapValues(\.count)
        print(
            "\(label): \(workouts.count) workouts \(counts.sorted { $0.key < $1.key }) → \(activities.sorted { $0.key < $1.key }), "
                + "distance \(distance) m, energy \(energy) kcal")
    }

    @Test(arguments: [
        "apple-health-export-fr-garmin/export-excerpt.xml", "apple-health-grll-fixture/export.xml",
        "apple-health-dogsheep-sample/export.xml", "apple-health-tdda-sample/export6s3sample.xml",
    ])
    func appleHealthWorkoutsKeepActivityAndTotals(path: String) throws {
        guard FixturePaths.sharedExists(path) else {
            print("skipped: \(path) is not in ../shared/data")
            return
        }
        let url = FixturePaths.shared(path)
        try Self.check([try String(contentsOf: url, encoding: .utf8)], [try ImportRun.file(url)], path)
    }

    @Test func appleHealthTrackTalesWorkoutStatisticsStandInForTotals() throws {
        guard FixturePaths.sharedExists(SharedExportTests.trackTales + "/workout_running.xml") else {
            print("skipped: \(SharedExportTests.trackTales) is not in ../shared/data")
            return
        }
        let directory = FixturePaths.shared(SharedExportTests.trackTales)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("workout_") }.sorted()
        let texts = try names.map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
        let runs = try SharedExportTests.trackTalesRuns().filter { $0.key.hasPrefix("workout_") }
            .sorted { $0.key < $1.key }.map(\.value)
        try Self.check(texts, runs, SharedExportTests.trackTales)
    }

    /// A multisport workout (a triathlon) has a distance statistic per sport: its distance is
    /// their sum, not the swim's 1,500 m alone (an attack run).
    @Test func appleHealthMultisportWorkoutAddsItsDistances() throws {
        func statistics(_ type: String, _ sum: String, _ unit: String) -> String {
            #"<WorkoutStatistics type="HKQuantityTypeIdentifier\#(type)" startDate="2024-06-01 09:00:00 +0200" "#
                + #"endDate="2024-06-01 11:30:00 +0200" sum="\#(sum)" unit="\#(unit)"/>"#
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-06-20 10:00:00 +0200"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeSwimBikeRun" sourceName="Apple Watch"             startDate="2024-06-01 09:00:00 +0200" endDate="2024-06-01 11:30:00 +0200">
              <WorkoutActivity uuid="A" startDate="2024-06-01 09:00:00 +0200" endDate="2024-06-01 09:30:00 +0200">
               \(statistics("DistanceSwimming", "1500", "m"))
              </WorkoutActivity>
              \(statistics("ActiveEnergyBurned", "1900", "kcal"))
              \(statistics("DistanceSwimming", "1500", "m"))
              \(statistics("DistanceCycling", "40", "km"))
              \(statistics("DistanceWalkingRunning", "10", "km"))
              \(statistics("DistanceCycling", "40", "km"))
             </Workout>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Apple Watch"             startDate="2024-06-02 09:00:00 +0200" endDate="2024-06-02 10:00:00 +0200">
              \(statistics("DistanceWalkingRunning", "6.2", "mi"))
             </Workout>
            </HealthData>
            """
        try withTemporaryDirectory { directory in
            let url = URL(fileURLWithPath: directory + "/export.xml")
            try Data(xml.utf8).write(to: url)
            let run = try ImportRun.file(url)
            let workouts = run.samples(of: "HKWorkoutTypeIdentifier")
            #expect(workouts.map { Self.metres($0.distance) } == [51_500, 6.2 * 1609.344])
            #expect(workouts.map { Self.metres($0.energy) } == [1900, nil])
            try Self.check([xml], [run], "multisport")
        }
    }

    /// The JSON objects of a file that holds an array of them.
    static func objects(_ url: URL) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
    }

    /// Count per `activityName`, summed distance (m) and calories of a Fitbit export, from its
    /// `exercise*.json` files.
    @Test func fitbitExercisesKeepActivityAndTotals() throws {
        let folder = FitbitSharedExportTests.folder
        let file = "Global Export Data/exercise-0.json"
        guard FixturePaths.sharedExists("\(folder)/\(file)") else {
            print("skipped: \(folder) is not in ../shared/data")
            return
        }
        let logs = try Self.objects(FixturePaths.shared("\(folder)/\(file)"))
        let run = try ImportRun.fitbit(FixturePaths.shared(folder).path, timeZone: FitbitSharedExportTests.zone)
        let workouts = run.samples.filter { $0.type == "workout" }
        #expect(workouts.count == logs.count)
        let names = Dictionary(grouping: logs, by: { $0["activityName"] as? String ?? "" }).mapValues(\.count)
        #expect(
            names == [
                "Walk": 37, "Bike": 15, "Aerobic Workout": 7, "Sport": 5, "Treadmill": 4, "Weights": 3,
                "Elliptical": 1, "Outdoor Bike": 1,
            ])
        let activities = Dictionary(grouping: workouts, by: { $0.activity ?? "" }).mapValues(\.count)
        #expect(
            activities == [
                "walking": 37, "cycling": 16, "other": 16, "strength_training": 3, "elliptical": 1,
            ])
        let perUnit = ["Kilometer": 1000.0, "Mile": 1609.344]
        let distance = logs.compactMap { log in
            (log["distance"] as? Double).map { $0 * (perUnit[log["distanceUnit"] as? String ?? ""] ?? .nan) }
        }.reduce(0, +)
        let calories = logs.compactMap { $0["calories"] as? Double }.reduce(0, +)
        let emittedDistance = workouts.compactMap { Self.metres($0.distance) }.reduce(0, +)
        let emittedEnergy = workouts.compactMap { Self.metres($0.energy) }.reduce(0, +)
        #expect(abs(emittedDistance - distance) <= 1e-9 * distance)
        #expect(emittedEnergy == calories)
        print("\(folder): \(workouts.count) workouts \(activities), distance \(distance) m, energy \(calories) kcal")
    }

    /// Google Fit files are told apart by the folders of an English Takeout, else by the names
    /// Google gives the files, which do not depend on the account's language; files named as
    /// sessions count only beside the streams (a Keep note named by its date and offset was
    /// taken for a session, and a second one stopped the import; an attack run).
    @Test func googleFitFilesAreKnownInAnyLanguage() {
        for path in [
            "Takeout/Fit/All Data/steps.json", "Takeout/Fit/Alle gegevens/derived_com.google.step_count.delta_x.json",
            "Fit/Alle Daten/raw_com.google.heart_rate.bpm_y.json",
        ] {
            #expect(GoogleFitImporter.isStream(path) && GoogleFitImporter.accepts(path), "\(path)")
        }
        for path in [
            "Takeout/Fit/All Sessions/walk.json", "Takeout/Fit/Alle sessies/2025-01-29T20_23_54.103+05_30_WALKING.json",
            "Fit/Sesiones/2025-01-29T20_23_54-03_00_RUNNING.json",
        ] {
            #expect(GoogleFitImporter.isSession(path) && !GoogleFitImporter.isStream(path), "\(path)")
        }
        // Named as sessions, another product's files are not: sessions sit beside the streams.
        let takeout = [
            "Takeout/Fit/Alle gegevens/derived_com.google.step_count.delta_x.json",
            "Takeout/Fit/Alle sessies/2025-01-29T20_23_54.103+05_30_WALKING.json",
            "Takeout/Keep/2025-02-01T10_00_00.000+05_30.json", "Takeout/Fit/All Sessions/walk.json",
        ]
        #expect(
            GoogleFitImporter.sessions(in: takeout) == [
                "Takeout/Fit/Alle sessies/2025-01-29T20_23_54.103+05_30_WALKING.json",
                "Takeout/Fit/All Sessions/walk.json",
            ])
        #expect(
            GoogleFitImporter.sessions(in: [
                "Alle gegevens/derived_com.google.x.json", "Alle sessies/2025-01-29T20_23_54+05_30_RUN.json",
            ]).count == 1)
        for path in [
            "Takeout/Fit/Alle gegevens/notes.json", "Takeout/Fit/Dagelijks/2025-01-29.csv",
            "Takeout/Fit/Alle sessies/2025-01-29.json", "Takeout/Photos/IMG_2025-01-29T20_23.jpg.json",
        ] {
            #expect(!GoogleFitImporter.accepts(path), "\(path)")
        }
    }

    /// A sleep session (`fitnessActivity` `sleep`, or a stage such as `sleep.deep` or its code)
    /// is sleep, not an eight-hour workout (an attack run: the night counted as exercise and the
    /// sleep metric stayed unknown).
    @Test func googleFitSleepSessionsAreSleep() throws {
        try withTemporaryDirectory { directory in
            let sessions = directory + "/All Sessions"
            try FileManager.default.createDirectory(atPath: sessions, withIntermediateDirectories: true)
            for (name, activity, start, end) in [
                (
                    "2025-01-29T22_30_00.000+05_30_SLEEP", "sleep", "2025-01-29T17:00:00.000Z",
                    "2025-01-30T01:00:00.000Z"
                ),
                ("2025-01-29T23_30_00.000+05_30_DEEP", "110", "2025-01-29T18:00:00.000Z", "2025-01-29T19:00:00.000Z"),
                (
                    "2025-01-30T07_00_00.000+05_30_WALKING", "walking", "2025-01-30T01:30:00.000Z",
                    "2025-01-30T02:00:00.000Z"
                ),
            ] {
                try Data(
                    #"{"fitnessActivity":"\#(activity)","startTime":"\#(start)","endTime":"\#(end)","aggregate":[]}"#
                        .utf8
                )
                .write(to: URL(fileURLWithPath: "\(sessions)/\(name).json"))
            }
            let run = try ImportRun.googleFit(directory)
            #expect(
                run.samples.map { "\($0.type) \($0.stage ?? $0.activity ?? "") \($0.start)" }.sorted() == [
                    "sleep deep 2025-01-29T23:30:00+05:30", "sleep inBed 2025-01-29T22:30:00+05:30",
                    "workout walking 2025-01-30T07:00:00+05:30",
                ])
        }
    }

    /// Count per `fitnessActivity`, summed `com.google.distance.delta` and
    /// `com.google.calories.expended` of the Google Fit sessions.
    @Test func googleFitSessionsKeepActivityAndTotals() throws {
        let sessions = "\(GoogleFitSharedExportTests.folder)/All Sessions"
        guard FixturePaths.sharedExists(sessions) else {
            print("skipped: \(GoogleFitSharedExportTests.folder) is not in ../shared/data")
            return
        }
        let directory = FixturePaths.shared(sessions)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        var distance = 0.0
        var calories = 0.0
        var names: [String: Int] = [:]
        for name in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            let session = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            names[session["fitnessActivity"] as? String ?? "", default: 0] += 1
            for case let aggregate as [String: Any] in session["aggregate"] as? [Any] ?? [] {
                let value = (aggregate["floatValue"] ?? aggregate["intValue"]) as? Double ?? 0
                switch aggregate["metricName"] as? String {
                case "com.google.distance.delta": distance += value
                case "com.google.calories.expended": calories += value
                default: break
                }
            }
        }
        let run = try ImportRun.googleFit(FixturePaths.shared(GoogleFitSharedExportTests.folder).path)
        let workouts = run.samples.filter { $0.type == "workout" }
        #expect(names == ["walking": 45])
        #expect(Dictionary(grouping: workouts, by: { $0.activity ?? "" }).mapValues(\.count) == ["walking": 45])
        let emittedDistance = workouts.compactMap { Self.metres($0.distance) }.reduce(0, +)
        let emittedEnergy = workouts.compactMap { Self.metres($0.energy) }.reduce(0, +)
        #expect(abs(emittedDistance - distance) <= 1e-9 * distance)
        #expect(abs(emittedEnergy - calories) <= 1e-9 * calories)
        print("google fit: \(workouts.count) workouts, distance \(distance) m, energy \(calories) kcal")
    }
}
