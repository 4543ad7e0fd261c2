import Foundation
import Recount

/// Turns the records of Fitbit's JSON files into samples and hands them to an `ImportSession`.
///
/// Each record that cannot be converted (a missing field, a bad time, a non-numeric value) is
/// counted as invalid with its file, its index in the file and the reason; its neighbours are
/// still imported. Times written without an offset are read in `zone`; heart-rate times are UTC.
/// Ids: `RecordID.derive(domain: "recount.fitbit.v1", ...)` over the fields `docs/import.md`
/// lists, never the user.
final class FitbitRecords {
    /// The id domain.
    static let idDomain = "recount.fitbit.v1"
    /// The `origin` of every sample.
    static let origin = "Fitbit"

    /// Where samples go.
    private let session: ImportSession
    /// The zone of the export's local times.
    private let zone: LocalTimeZone
    /// The account's height, for the weight unit.
    var heightMetres: Double?
    /// How many weight logs had their unit decided from the BMI, or assumed.
    private(set) var weightUnits: [String: Int] = [:]
    /// Sleep logs without `levels.data` (imported as `inBed` and their summary's time asleep).
    private(set) var sleepLogsWithoutStages = 0

    /// Creates a reader.
    init(session: ImportSession, zone: LocalTimeZone) {
        self.session = session
        self.zone = zone
    }

    /// Imports one file's records, read one at a time.
    /// - Parameters:
    ///   - kind: what the file holds (an imported kind).
    ///   - file: the file, a JSON array of records.
    ///   - export: its export, for errors.
    /// - Returns: the number of records.
    /// - Throws: `ImportError.malformedJSON` when the file is not a JSON array, or whatever the
    ///   session throws (the emit closure's error).
    func read(_ kind: FitbitFile, file: ExportFiles.File, in export: ExportFiles) throws -> Int {
        var ambiguousSeen: Set<Int64> = []
        return try TakeoutJSON.forEachElement(of: file, in: export) { index, record in
            let sample: [Sample]
            do throws(RecordRejection) {
                guard let object = TakeoutJSON.object(record) else { throw RecordRejection("not a JSON object") }
                switch kind {
                case .steps, .distance: sample = [try minute(object, kind: kind, ambiguousSeen: &ambiguousSeen)]
                case .heartRate: sample = [try heartRate(object)]
                case .sleep: sample = try sleep(object)
                case .weight: sample = [try weight(object)]
                case .exercise: sample = [try exercise(object)]
                case .height, .profile, .other: sample = []
                }
            } catch {
                session.addInvalid(type: kind.reportType, file: file.path, line: index + 1, reason: error.reason)
                return
            }
            for sample in sample {
                try session.add(sample, type: kind.reportType, file: file.path, line: index + 1)
            }
        }
    }

    /// Reads the heights (millimetres) of a `height-*.json`; the last one wins.
    /// - Throws: `ImportError.malformedJSON` when the file is not a JSON array.
    func readHeights(_ file: ExportFiles.File, in export: ExportFiles) throws {
        _ = try TakeoutJSON.forEachElement(of: file, in: export) { _, record in
            if let millimetres = TakeoutJSON.number(TakeoutJSON.object(record)?["value"]), millimetres > 0 {
                heightMetres = millimetres / 1000
            }
        }
    }

    /// A log's `logId`: a whole number (a JSON integer or a string of digits).
    private static func logId(_ object: JSONObject) throws(RecordRejection) -> Int64 {
        guard let value = object["logId"] else { throw RecordRejection("missing logId") }
        guard let logId = TakeoutJSON.integer(value) else {
            throw RecordRejection("logId is not a whole number in range")
        }
        return logId
    }

    /// A per-minute step count or distance (centimetres), `{"dateTime", "value"}`.
    ///
    /// A wall-clock minute that repeats in one file in the hour clocks go back is the later
    /// instant the second time (and every time after: a third is a repeat of the second).
    /// Any other minute repeated is the same minute: the same id, so an exact repeat is
    /// dropped and a changed one decided by ingest's newness rule.
    /// - Parameter ambiguousSeen: the file's wall-clock minutes of that hour read so far.
    private func minute(
        _ object: JSONObject, kind: FitbitFile, ambiguousSeen: inout Set<Int64>
    ) throws(RecordRejection) -> Sample {
        let local = try localTime(object["dateTime"], "dateTime")
        guard let value = TakeoutJSON.number(object["value"]) else { throw RecordRejection("non-numeric value") }
        let instants = zone.instants(localMillis: local)
        var (start, occurrence) = (instants.earlier, 0)
        if let later = instants.later, !ambiguousSeen.insert(local).inserted {
            (start, occurrence) = (later, 1)
        }
        let metric = kind == .steps ? "steps" : "distance"
        return Sample(
            id: RecordID.derive(domain: Self.idDomain, fields: [metric, String(local), String(occurrence)]),
            type: try metricName(metric), start: start, end: zone.instant(millis: start.millis + 60_000),
            timeZone: zone.identifier, value: value, unit: UnitName(kind == .steps ? "count" : "cm"),
            origin: Self.origin)
    }

    /// A heart-rate reading, `{"dateTime", "value": {"bpm", "confidence"}}`, its time in UTC.
    private func heartRate(_ object: JSONObject) throws(RecordRejection) -> Sample {
        let utc = try localTime(object["dateTime"], "dateTime")
        guard let value = TakeoutJSON.object(object["value"]), let bpm = TakeoutJSON.number(value["bpm"]) else {
            throw RecordRejection("missing value.bpm")
        }
        return Sample(
            id: RecordID.derive(domain: Self.idDomain, fields: ["heart_rate", String(utc)]),
            type: try metricName("heart_rate"), start: zone.instant(millis: utc), timeZone: zone.identifier,
            value: bpm, unit: UnitName("count/min"), origin: Self.origin)
    }

    /// A sleep log: one `inBed` sample for the whole log, and its stage segments, placed by the
    /// time elapsed since the log's start (a night across a DST change keeps its true length).
    private func sleep(_ object: JSONObject) throws(RecordRejection) -> [Sample] {
        let logId = try Self.logId(object)
        let localStart = try localTime(object["startTime"], "startTime")
        let localEnd = try localTime(object["endTime"], "endTime")
        guard localEnd >= localStart else { throw RecordRejection("endTime is before startTime") }
        let duration = object["duration"].flatMap(TakeoutJSON.integer)
        let ends = zone.instants(localMillis: localEnd)
        // A start in the hour clocks repeat is the one from which an end gives the log its
        // `duration` (the earlier without one; it was always the earlier, an attack run).
        let starts = zone.instants(localMillis: localStart)
        var start = starts.earlier.millis
        if let later = starts.later?.millis, let duration {
            let endMillis = [ends.earlier.millis] + (ends.later.map { [$0.millis] } ?? [])
            func misfit(_ start: Int64) -> Int64 { endMillis.map { abs($0 - start - duration) }.min() ?? 0 }
            if misfit(later) < misfit(start) { start = later }
        }
        let levels = TakeoutJSON.object(object["levels"]) ?? JSONObject()
        let data = try sleepLevels(levels["data"], from: start, following: .end)
        let shortData = try sleepLevels(levels["shortData"], from: start, following: .start)
        // An end in the hour clocks repeat is the one that gives the log its `duration`, else
        // the one nearest where its stages end.
        let stagesEnd = data.map { start + $0.start + $0.seconds * 1000 }.max()
        let end = Self.instant(ends, nearest: duration.map { start + $0 } ?? stagesEnd ?? start)
        let segments = try FitbitSleepStages.segments(length: max(0, end - start), data: data, shortData: shortData)
        if data.isEmpty { sleepLogsWithoutStages += 1 }
        let type = try metricName("sleep")
        let log = String(logId)
        var samples = [
            Sample(
                id: RecordID.derive(domain: Self.idDomain, fields: ["sleep", log, "inBed"]), type: type,
                start: zone.instant(millis: start), end: zone.instant(millis: max(start, end)),
                timeZone: zone.identifier, stage: .inBed, origin: Self.origin)
        ]
        if data.isEmpty, let asleep = Self.summaryAsleep(object, start: start, end: end) {
            samples.append(
                Sample(
                    id: RecordID.derive(domain: Self.idDomain, fields: ["sleep", log, "asleep", "summary"]),
                    type: type, start: zone.instant(millis: asleep.lowerBound),
                    end: zone.instant(millis: asleep.upperBound), timeZone: zone.identifier, stage: .asleep,
                    origin: Self.origin))
        }
        for segment in segments {
            samples.append(
                Sample(
                    id: RecordID.derive(
                        domain: Self.idDomain, fields: ["sleep", log, segment.stage.name, String(segment.start)]),
                    type: type, start: zone.instant(millis: start + segment.start),
                    end: zone.instant(millis: start + segment.end), timeZone: zone.identifier,
                    stage: segment.stage, origin: Self.origin))
        }
        return samples
    }

    /// A summary-only log's time asleep (epoch millis): `minutesAsleep` from the time it fell
    /// asleep (`minutesToFallAsleep` after its start), within the log. Only the total is known,
    /// not when the wakes came; without it the night read 0 s asleep against Fitbit's 452
    /// minutes (an oracle run).
    private static func summaryAsleep(_ object: JSONObject, start: Int64, end: Int64) -> Range<Int64>? {
        guard let minutes = object["minutesAsleep"].flatMap(TakeoutJSON.integer), minutes > 0, minutes < 100_000
        else { return nil }
        let fallMinutes = object["minutesToFallAsleep"].flatMap(TakeoutJSON.integer) ?? 0
        let from = min(end, start + max(0, min(fallMinutes, 100_000)) * 60_000)
        let to = min(end, from + minutes * 60_000)
        return from < to ? from..<to : nil
    }

    /// Where an entry of a stage list is expected: `levels.data` entries follow each other, so
    /// one starts where the one before ends; `levels.shortData` wakes lie apart, each after the
    /// one before.
    private enum LevelFollowing { case end, start }

    /// The entries of `levels.data` or `levels.shortData`, in milliseconds from the log's start
    /// at `startMillis`. A wall-clock time in the hour clocks repeat names two instants: a
    /// `data` entry is the one nearest the end of the entry before it (the log's start for the
    /// first), a `shortData` wake the first at or after the wake before it, so the entries,
    /// which come in order, land in the right occurrence. (Until 2026-12-05 they were placed by
    /// wall-clock distance, and then by the entry before's start alone, which put a stage after
    /// one longer than that hour in the wrong occurrence; attack runs.)
    private func sleepLevels(_ value: JSONValue?, from startMillis: Int64, following: LevelFollowing)
        throws(RecordRejection) -> [FitbitSleepStages.Level]
    {
        guard let value else { return [] }
        guard let entries = TakeoutJSON.array(value) else { throw RecordRejection("levels are not an array") }
        var levels: [FitbitSleepStages.Level] = []
        var expected = startMillis
        for entry in entries {
            guard let entry = TakeoutJSON.object(entry) else { continue }
            guard let level = TakeoutJSON.string(entry["level"]), let seconds = TakeoutJSON.integer(entry["seconds"]),
                seconds >= 0, let text = TakeoutJSON.string(entry["dateTime"]),
                let local = FitbitTimestamp.localMillis(text)
            else { throw RecordRejection("malformed sleep level entry") }
            let instants = zone.instants(localMillis: local)
            let millis: Int64
            switch following {
            case .end: millis = Self.instant(instants, nearest: expected)
            case .start:
                if let later = instants.later, instants.earlier.millis < expected {
                    millis = later.millis
                } else {
                    millis = instants.earlier.millis
                }
            }
            expected = millis + seconds * 1000
            levels.append(.init(level: level, start: millis - startMillis, seconds: seconds))
        }
        return levels
    }

    /// Of the instants a wall-clock time names, the one nearest `expected` (the earlier on a tie).
    private static func instant(_ instants: (earlier: Instant, later: Instant?), nearest expected: Int64) -> Int64 {
        guard let later = instants.later?.millis else { return instants.earlier.millis }
        return abs(later - expected) < abs(instants.earlier.millis - expected) ? later : instants.earlier.millis
    }

    /// A weight log, `{"logId", "weight", "bmi", "date", "time"}`.
    private func weight(_ object: JSONObject) throws(RecordRejection) -> Sample {
        let logId = try Self.logId(object)
        guard let value = TakeoutJSON.number(object["weight"]) else { throw RecordRejection("non-numeric weight") }
        guard let date = TakeoutJSON.string(object["date"]), let time = TakeoutJSON.string(object["time"]),
            let local = FitbitTimestamp.localMillis(date: date, time: time)
        else { throw RecordRejection("bad date or time") }
        let unit = FitbitWeightUnit.unit(
            weight: value, bmi: TakeoutJSON.number(object["bmi"]), heightMetres: heightMetres)
        weightUnits[
            "\(unit.symbol) (\(unit.basis == .bmi ? "checked against BMI and height" : "assumed"))", default: 0] += 1
        return Sample(
            id: RecordID.derive(domain: Self.idDomain, fields: ["weight", String(logId)]),
            type: try metricName("weight"), start: zone.instant(localMillis: local), timeZone: zone.identifier,
            value: value, unit: UnitName(unit.symbol), origin: Self.origin)
    }

    /// An exercise log, `{"logId", "startTime", "duration"}` (milliseconds), as a workout with
    /// its `activityName`, `distance` (in `distanceUnit`: `Kilometer`, `Mile`) and `calories`.
    private func exercise(_ object: JSONObject) throws(RecordRejection) -> Sample {
        let logId = try Self.logId(object)
        let local = try localTime(object["startTime"], "startTime")
        guard let duration = TakeoutJSON.integer(object["duration"]), duration >= 0 else {
            throw RecordRejection("missing or negative duration")
        }
        let start = zone.instant(localMillis: local)
        var distance: WorkoutTotal?
        if let value = TakeoutJSON.number(object["distance"]) {
            let unit = TakeoutJSON.string(object["distanceUnit"])
            guard let symbol = unit.flatMap({ Self.distanceUnits[$0] }) else {
                throw RecordRejection("unknown distanceUnit \(unit.map { "\"\($0)\"" } ?? "(absent)")")
            }
            distance = WorkoutTotal(value: value, unit: UnitName(symbol))
        }
        let energy = TakeoutJSON.number(object["calories"]).map { WorkoutTotal(value: $0, unit: "kcal") }
        let activity = WorkoutActivity(fitbitName: TakeoutJSON.string(object["activityName"]) ?? "")
        return Sample(
            id: RecordID.derive(domain: Self.idDomain, fields: ["exercise", String(logId)]),
            type: try metricName("workout"), start: start, end: zone.instant(millis: start.millis + duration),
            timeZone: zone.identifier, origin: Self.origin,
            workout: WorkoutDetails(
                activity: ActivityName(activity: activity, name: activity.name), distance: distance, energy: energy))
    }

    /// Catalogue symbols of Fitbit's `distanceUnit` names.
    private static let distanceUnits = ["Kilometer": "km", "Mile": "mi", "Meter": "m"]

    /// A wall-clock time field.
    private func localTime(_ value: JSONValue?, _ name: String) throws(RecordRejection) -> Int64 {
        guard let text = TakeoutJSON.string(value) else { throw RecordRejection("missing \(name)") }
        guard let local = FitbitTimestamp.localMillis(text) else { throw RecordRejection("bad \(name) \"\(text)\"") }
        return local
    }

    /// A catalogue metric name.
    private func metricName(_ name: String) throws(RecordRejection) -> MetricName {
        guard let metric = MetricName(name) else { throw RecordRejection("unknown metric \(name)") }
        return metric
    }
}
