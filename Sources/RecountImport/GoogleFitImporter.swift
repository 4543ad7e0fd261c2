import Foundation
import Recount

/// Converts a Google Fit Takeout into contract NDJSON: `samples.upsert` envelopes with
/// `"provider":"google_fit"` (contract §1).
///
/// Reads `All Data/*.json` (one data stream per file, times in epoch nanoseconds) and
/// `All Sessions/*.json` (activity sessions, ISO times), from the unpacked folder or the zip.
/// Imported: one stream per data type (`GoogleFitStream`: steps, distance, heart rate, weight,
/// sleep segments) and every session as a workout (a sleep session as sleep). Other streams are
/// counted as skipped by data source name.
///
/// Times are instants; each sample is shown at the offset of `timeZone` then (DST included),
/// else at the one fixed offset the session file names carry (`…+05_30_WALKING.json`).
/// Ids are derived from each point (`RecordID`, domain `recount.google-fit.v1`: data type,
/// origin data source, start and end nanoseconds; sessions: activity, start, end as written).
package struct GoogleFitImporter: Sendable {
    /// The id domain.
    static let idDomain = "recount.google-fit.v1"

    /// The `user` of every envelope.
    package var user: String
    /// The IANA zone for the samples' offsets; `nil` to use the export's fixed offset.
    package var timeZone: String?
    /// Most samples per envelope.
    package var batchSize: Int

    /// Creates an importer.
    /// - Parameters:
    ///   - user: the envelopes' user (checked by `run`).
    ///   - timeZone: the zone for the samples' offsets.
    ///   - batchSize: most samples per envelope (default 1000).
    package init(user: String, timeZone: String? = nil, batchSize: Int = 1000) {
        self.user = user
        self.timeZone = timeZone
        self.batchSize = batchSize
    }

    /// Whether the importer reads a file: a stream file or a session file.
    static func accepts(_ path: String) -> Bool { isStream(path) || isSession(path) }

    /// Whether a path is a data stream file: JSON under `All Data/`, or, as a Takeout in
    /// another language names that folder in it (`Alle gegevens`, `Alle Daten`; such a Takeout
    /// was not an export until 2026-12-05, an attack run), a file named as Google names stream
    /// files (`derived_com.google.…json`, `raw_com.google.…json`).
    static func isStream(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard let name = parts.last, name.hasSuffix(".json") else { return false }
        return parts.dropLast().last == "All Data"
            || name.hasPrefix("derived_com.google.") || name.hasPrefix("raw_com.google.")
    }

    /// Whether a path lies directly in the English Takeout's `All Sessions/` folder.
    private static func isInAllSessions(_ path: String) -> Bool {
        path.split(separator: "/").dropLast().last == "All Sessions"
    }

    /// Whether a path may be a session file: JSON under `All Sessions/`, or, in a Takeout in
    /// another language, a file named as Google names session files, its start with offset
    /// (`2025-01-29T20_23_54.103+05_30_WALKING.json`); `sessions(in:)` keeps the second kind
    /// only beside the streams.
    static func isSession(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard let name = parts.last, name.hasSuffix(".json"), !isStream(path) else { return false }
        return isInAllSessions(path) || isSessionName(name)
    }

    /// Whether a file name is a session's: its start, `YYYY-MM-DDTHH_MM_SS…`, with an offset.
    private static func isSessionName(_ name: Substring) -> Bool {
        let digits = Array(name.utf8.prefix(10))
        let isDate =
            digits.count == 10
            && digits.enumerated().allSatisfy { index, byte in
                index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte)
            }
        return isDate && offset(inName: String(name)) != nil
    }

    /// The session files among `paths` (accepted ones): those under `All Sessions/`, and the
    /// files named as sessions in a folder beside a folder of streams (`Fit/Alle sessies/` by
    /// `Fit/Alle gegevens/`), so that another product's files named by a date and offset (Keep
    /// notes, in a whole Takeout) are not taken for sessions (an attack run).
    static func sessions(in paths: [String]) -> [String] {
        func parent(_ path: String, levels: Int) -> Substring {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            return parts.dropLast(levels).joined(separator: "/")[...]
        }
        let streamParents = Set(paths.filter(isStream).map { parent($0, levels: 2) })
        return paths.filter { path in
            isSession(path) && (isInAllSessions(path) || streamParents.contains(parent(path, levels: 2)))
        }
    }

    /// Imports a Takeout folder or zip.
    /// - Parameters:
    ///   - path: the folder (any folder above `All Data/`) or the Takeout zip.
    ///   - emit: receives each envelope as one JSON line without a newline; an error it throws
    ///     stops the import and is rethrown.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: `ImportError`: `.invalidUser`, `.invalidBatchSize`, `.unreadableFile`,
    ///   `.notAnExport` (no `All Data` or `All Sessions` files), `.timeZone` (no zone given and
    ///   not exactly one offset in the session names, or an unknown zone), `.malformedJSON`; or
    ///   what `emit` threw.
    package func run(path: String, emit: (String) throws -> Void) throws -> ImportReport {
        try ImportArguments.validate(user: user, batchSize: batchSize)
        let export = try ExportFiles.open(path: path, accepting: Self.accepts)
        let streams = export.paths.filter(Self.isStream)
        let sessions = Self.sessions(in: export.paths)
        let isSessionFile = Set(sessions).contains
        guard !streams.isEmpty || !sessions.isEmpty else {
            throw ImportError(
                code: .notAnExport, path: path,
                message:
                    "expected a Google Fit Takeout (Takeout/Fit/All Data/*.json, All Sessions/*.json, "
                    + "or their files under the names of another language): found neither")
        }
        let zone = try resolveZone(sessions: sessions, path: path)
        // Which stream of each data type is imported depends on every file's data source, read
        // first (the first member of each file); the points are then read a file at a time.
        var sources: [String: String] = [:]
        try export.forEach(where: Self.isStream) { file in
            sources[file.path] = try Self.dataSource(of: file, in: export)
        }
        let chosen = Self.choose(streams.compactMap { sources[$0] })
        return try withoutActuallyEscaping(emit) { emit in
            let session = ImportSession(
                writer: EnvelopeWriter(user: user, provider: "google_fit", batchSize: batchSize, emit: emit))
            var pointDays: ClosedRange<CivilDay>?
            try session.stoppingAtDamage {
                try export.forEach(where: Self.isStream) { file in
                    let source = sources[file.path] ?? ""
                    let count = try readPoints(
                        file, in: export, source: source, stream: chosen[source], zone: zone, into: session,
                        days: &pointDays)
                    session.tally.recordsSeen += count
                    if chosen[source] == nil { session.skip(source, count: count) }
                }
                try export.forEach(where: isSessionFile) { file in
                    session.tally.recordsSeen += 1
                    try readSession(file, in: export, zone: zone, into: session)
                }
            }
            try session.flush()
            session.tally.notes.append(
                zone.identifier.map { "offsets from \($0)" }
                    ?? "offsets fixed at \(RFC3339.format(millis: 0, offsetSeconds: zone.offset(atMillis: 0)).suffix(6)) "
                    + "(from the session file names)"
                    + Self.seasonWarning(sessionDays: Self.days(ofSessions: sessions), pointDays: pointDays))
            for (source, stream) in chosen.sorted(by: { $0.key < $1.key }) {
                session.tally.notes.append("\(stream.metric) from \(source)")
            }
            return session.report()
        }
    }

    /// The stream imported for each data type: the first of its `preferred` present.
    static func choose(_ sources: [String]) -> [String: GoogleFitStream] {
        var chosen: [String: GoogleFitStream] = [:]
        for stream in GoogleFitStream.all {
            if let source = stream.preferred.first(where: sources.contains) { chosen[source] = stream }
        }
        return chosen
    }

    /// The `Data Source` of a stream file: its first member, as Google writes it (the points are
    /// read past only when it comes later).
    /// - Throws: `ImportError.malformedJSON` when the file is not an object with a `Data Source`
    ///   string before any syntax error.
    private static func dataSource(of file: ExportFiles.File, in export: ExportFiles) throws -> String {
        try TakeoutJSON.read(file, in: export) { parser in
            try parser.enterObject()
            while let key = try parser.nextKey() {
                guard key == "Data Source" else {
                    try parser.skipValue()
                    continue
                }
                guard let source = TakeoutJSON.string(try parser.value()) else { break }
                return source
            }
            throw malformedStream(file, in: export)
        }
    }

    /// The error for a stream file without its two members.
    private static func malformedStream(_ file: ExportFiles.File, in export: ExportFiles) -> ImportError {
        ImportError(
            code: .malformedJSON, path: "\(export.name): \(file.path)",
            message: "expected an object with \"Data Source\" and \"Data Points\"")
    }

    /// Reads the `Data Points` of a stream file one at a time, importing them when the stream is
    /// the chosen one of its data type (`stream`), else only counting them; `days` widens to the
    /// local day of each point imported.
    /// - Returns: the number of points.
    private func readPoints(
        _ file: ExportFiles.File, in export: ExportFiles, source: String, stream: GoogleFitStream?,
        zone: LocalTimeZone, into session: ImportSession, days: inout ClosedRange<CivilDay>?
    ) throws -> Int {
        try TakeoutJSON.read(file, in: export) { parser in
            var count: Int?
            try parser.enterObject()
            while let key = try parser.nextKey() {
                guard key == "Data Points", count == nil else {
                    try parser.skipValue()
                    continue
                }
                count = try TakeoutJSON.forEachElement(&parser, of: file, in: export) { index, point in
                    guard let stream else { return }
                    let sample: Sample
                    do throws(RecordRejection) {
                        sample = try Self.sample(point, stream: stream, source: source, zone: zone)
                    } catch {
                        session.addInvalid(
                            type: stream.dataType, file: file.path, line: index + 1, reason: error.reason)
                        return
                    }
                    try session.add(sample, type: stream.dataType, file: file.path, line: index + 1)
                    let day = CivilDay.of(localMillis: sample.start.millis + Int64(sample.start.offsetSeconds) * 1000)
                    days = days.map { min($0.lowerBound, day)...max($0.upperBound, day) } ?? day...day
                }
            }
            try parser.finish()
            guard let count else { throw Self.malformedStream(file, in: export) }
            return count
        }
    }

    /// One data point as a sample.
    private static func sample(
        _ point: JSONValue, stream: GoogleFitStream, source: String, zone: LocalTimeZone
    ) throws(RecordRejection) -> Sample {
        guard let object = TakeoutJSON.object(point) else { throw RecordRejection("not a JSON object") }
        guard let startNanos = TakeoutJSON.integer(object["startTimeNanos"]),
            let endNanos = TakeoutJSON.integer(object["endTimeNanos"])
        else {
            let given = object["startTimeNanos"] != nil && object["endTimeNanos"] != nil
            throw RecordRejection(
                given
                    ? "startTimeNanos or endTimeNanos is not a whole number of nanoseconds in range"
                    : "missing startTimeNanos or endTimeNanos")
        }
        guard endNanos >= startNanos else { throw RecordRejection("endTimeNanos is before startTimeNanos") }
        guard let values = TakeoutJSON.array(object["fitValue"]), let first = TakeoutJSON.object(values.first),
            let value = TakeoutJSON.object(first["value"])
        else { throw RecordRejection("missing fitValue[0].value") }
        guard let metric = MetricName(stream.metric) else { throw RecordRejection("unknown metric \(stream.metric)") }
        let origin = TakeoutJSON.string(object["originDataSourceId"]) ?? ""
        let id = RecordID.derive(
            domain: idDomain, fields: [stream.dataType, origin, String(startNanos), String(endNanos)])
        let start = zone.instant(millis: floorMillis(startNanos))
        let end = zone.instant(millis: floorMillis(endNanos))
        if stream.unit == nil {
            guard let code = TakeoutJSON.integer(value["intVal"]), let stage = GoogleFitStream.sleepStage(code) else {
                throw RecordRejection("unknown sleep segment value")
            }
            return Sample(
                id: id, type: metric, start: start, end: end, timeZone: zone.identifier, stage: stage,
                origin: GoogleFitStream.origin(ofSource: source))
        }
        guard let number = TakeoutJSON.number(value["intVal"] ?? value["fpVal"]) else {
            throw RecordRejection("missing intVal or fpVal")
        }
        return Sample(
            id: id, type: metric, start: start, end: end, timeZone: zone.identifier, value: number,
            unit: stream.unit.map { UnitName($0) }, origin: GoogleFitStream.origin(ofSource: source))
    }

    /// A session file as a workout, or a sleep session as sleep.
    private func readSession(
        _ file: ExportFiles.File, in export: ExportFiles, zone: LocalTimeZone, into session: ImportSession
    ) throws {
        let type = "session"
        let object: JSONObject
        do {
            object = try TakeoutJSON.object(of: file, in: export)
        } catch {
            session.addInvalid(type: type, file: file.path, line: 1, reason: error.message)
            return
        }
        let span: Span
        switch Self.span(of: object) {
        case .success(let read): span = read
        case .failure(let rejection):
            session.addInvalid(type: type, file: file.path, line: 1, reason: rejection.reason)
            return
        }
        let activity = TakeoutJSON.string(object["fitnessActivity"]) ?? ""
        let id = RecordID.derive(domain: Self.idDomain, fields: ["session", activity, span.startText, span.endText])
        if let stage = GoogleFitStream.sleepStage(sessionActivity: activity) {
            try session.add(
                sleepSample(id: id, stage: stage, span: span, zone: zone), type: type, file: file.path, line: 1)
            return try readSleepSegments(of: object, in: file, zone: zone, into: session)
        }
        let normalised = WorkoutActivity(googleFit: activity)
        // The session's own aggregates: distance in m, calories in kcal.
        var totals: [String: Double] = [:]
        for aggregate in TakeoutJSON.array(object["aggregate"]) ?? [] {
            if let aggregate = TakeoutJSON.object(aggregate), let name = TakeoutJSON.string(aggregate["metricName"]),
                let value = TakeoutJSON.number(aggregate["floatValue"] ?? aggregate["intValue"])
            {
                totals[name] = totals[name] ?? value
            }
        }
        let sample = Sample(
            id: id, type: MetricName(metric: .workout, name: "workout"), start: zone.instant(millis: span.start.millis),
            end: zone.instant(millis: span.end.millis),
            timeZone: zone.identifier, origin: "com.google.android.apps.fitness",
            workout: WorkoutDetails(
                activity: ActivityName(activity: normalised, name: normalised.name),
                distance: totals["com.google.distance.delta"].map { WorkoutTotal(value: $0, unit: "m") },
                energy: totals["com.google.calories.expended"].map { WorkoutTotal(value: $0, unit: "kcal") }))
        try session.add(sample, type: type, file: file.path, line: 1)
    }

    /// A sleep sample of a session or of one of its segments. Its origin is the sleep stream's
    /// (`GoogleFitStream.sleepOrigin`): a session's time in bed and the stream's stages are one
    /// source's account of the night, so the stages count inside it. Under an origin of its own,
    /// the session outranked the stream (both are phone apps, and the tie goes by name), and its
    /// `inBed` suppressed every asleep second of the night (an oracle run: 0 s for 7 h of stages).
    private func sleepSample(id: SampleID, stage: SleepStage, span: Span, zone: LocalTimeZone) -> Sample {
        Sample(
            id: id, type: MetricName(metric: .sleep, name: "sleep"), start: zone.instant(millis: span.start.millis),
            end: zone.instant(millis: span.end.millis), timeZone: zone.identifier, stage: stage,
            origin: GoogleFitStream.sleepOrigin)
    }

    /// The `startTime` and `endTime` of a session or of one of its segments, as written and as
    /// instants.
    private struct Span {
        var startText: String
        var endText: String
        var start: Instant
        var end: Instant
    }

    /// The span of a session or segment, or why it has none.
    private static func span(of object: JSONObject) -> Result<Span, RecordRejection> {
        guard let startText = TakeoutJSON.string(object["startTime"]), let start = Instant(rfc3339: startText),
            let endText = TakeoutJSON.string(object["endTime"]), let end = Instant(rfc3339: endText)
        else { return .failure(RecordRejection("missing or bad startTime or endTime")) }
        guard end.millis >= start.millis else { return .failure(RecordRejection("endTime is before startTime")) }
        return .success(Span(startText: startText, endText: endText, start: start, end: end))
    }

    /// The stage segments of a sleep session (`segment[]` entries whose `fitnessActivity` is a
    /// stage, `sleep.light` … or 109–112), as samples of their stage: the same facts as stage
    /// sessions, which an export may give either way. Ids: `segment`, activity, start and end as
    /// written. The time in bed again adds nothing; a segment of another activity is counted
    /// skipped, and one without readable times invalid.
    private func readSleepSegments(
        of object: JSONObject, in file: ExportFiles.File, zone: LocalTimeZone, into session: ImportSession
    ) throws {
        let type = "session.segment"
        for segment in TakeoutJSON.array(object["segment"]) ?? [] {
            let activity = TakeoutJSON.object(segment).flatMap { TakeoutJSON.string($0["fitnessActivity"]) } ?? ""
            let stage = GoogleFitStream.sleepStage(sessionActivity: activity)
            // The time in bed again is the session's own.
            if stage == .inBed { continue }
            session.tally.recordsSeen += 1
            guard let segment = TakeoutJSON.object(segment), let stage else {
                session.skip(type)
                continue
            }
            guard case .success(let span) = Self.span(of: segment) else {
                session.addInvalid(
                    type: type, file: file.path, line: 1, reason: "a segment's startTime or endTime is missing or bad")
                continue
            }
            let id = RecordID.derive(
                domain: Self.idDomain, fields: ["segment", activity, span.startText, span.endText])
            try session.add(
                sleepSample(id: id, stage: stage, span: span, zone: zone), type: type, file: file.path, line: 1)
        }
    }

    /// The zone: the one given, else the one fixed offset of the session file names.
    private func resolveZone(sessions: [String], path: String) throws(ImportError) -> LocalTimeZone {
        if let timeZone {
            guard let zone = LocalTimeZone(identifier: timeZone) else {
                throw ImportError(code: .timeZone, message: "unknown time zone \"\(timeZone)\": expected an IANA name")
            }
            return zone
        }
        let offsets = Set(sessions.compactMap { Self.offset(inName: String(ExportFiles.File.name(of: $0))) })
        guard offsets.count == 1, let offset = offsets.first, let zone = LocalTimeZone(secondsFromGMT: offset) else {
            throw ImportError(
                code: .timeZone, path: path,
                message:
                    offsets.isEmpty
                    ? "Google Fit's data carries no offset and no session file name gives one: pass --time-zone ZONE"
                    : "the session file names carry \(offsets.count) offsets (daylight saving?): pass --time-zone ZONE")
        }
        return zone
    }

    /// The first and last day the session file names start on (`2025-01-29T…`).
    static func days(ofSessions sessions: [String]) -> ClosedRange<CivilDay>? {
        let days = sessions.compactMap { CivilDay(parsing: String(ExportFiles.File.name(of: $0).prefix(10))) }
        guard let first = days.min(), let last = days.max() else { return nil }
        return first...last
    }

    /// What the note of a fixed offset adds when the stream points run more than a month past
    /// the days of the sessions whose names gave it: in a zone with daylight saving time the
    /// other season's points are shown an hour off, some on another day, and nothing in the
    /// data tells (an attack run).
    static func seasonWarning(sessionDays: ClosedRange<CivilDay>?, pointDays: ClosedRange<CivilDay>?) -> String {
        guard let sessionDays, let pointDays,
            pointDays.lowerBound < sessionDays.lowerBound.advanced(by: -31)
                || pointDays.upperBound > sessionDays.upperBound.advanced(by: 31)
        else { return "" }
        return "; the sessions run from \(sessionDays.lowerBound) to \(sessionDays.upperBound), the points from "
            + "\(pointDays.lowerBound) to \(pointDays.upperBound): in a zone with daylight saving time some points "
            + "are an hour off, pass --time-zone ZONE"
    }

    /// The offset in a session file name such as `2025-01-29T20_23_54.103+05_30_WALKING.json`.
    static func offset(inName name: String) -> Int? {
        let bytes = Array(name.utf8)
        guard let time = bytes.firstIndex(of: UInt8(ascii: "T")) else { return nil }
        for index in (time + 1)..<bytes.count
        where bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            guard index + 5 < bytes.count, bytes[index + 3] == UInt8(ascii: "_"),
                let hours = Int(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self)),
                let minutes = Int(String(decoding: bytes[(index + 4)...(index + 5)], as: UTF8.self))
            else { continue }
            let seconds = hours * 3600 + minutes * 60
            return bytes[index] == UInt8(ascii: "-") ? -seconds : seconds
        }
        return nil
    }

    /// Nanoseconds to milliseconds, rounding toward the past.
    private static func floorMillis(_ nanos: Int64) -> Int64 {
        // Without an intermediate that could overflow (`Int64.min - 999_999` trapped).
        let (quotient, remainder) = nanos.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
