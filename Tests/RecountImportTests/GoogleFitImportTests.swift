import Foundation
import Recount
import TestSupport
import Testing

@testable import RecountImport

/// The Google Fit importer on Takeouts written by the tests.
@Suite struct GoogleFitImportTests {
    /// Writes a Takeout of one step point at `pointNanos` and one session named with `+01:00`,
    /// on 2024-01-15.
    static func writeTakeout(_ directory: String, pointNanos: Int64) throws {
        let fit = directory + "/Takeout/Fit"
        for folder in ["All Data", "All Sessions"] {
            try FileManager.default.createDirectory(atPath: fit + "/" + folder, withIntermediateDirectories: true)
        }
        let point =
            "{\"startTimeNanos\":\(pointNanos),\"endTimeNanos\":\(pointNanos + 60_000_000_000),"
            + "\"originDataSourceId\":\"raw:com.google.step_count.cumulative:x\",\"fitValue\":[{\"value\":{\"intVal\":1000}}]}"
        let source = "derived:com.google.step_count.delta:com.google.android.gms:estimated_steps"
        try Data("{\"Data Source\":\"\(source)\",\"Data Points\":[\(point)]}".utf8).write(
            to: URL(fileURLWithPath: fit + "/All Data/derived_com.google.step_count.delta_com.google(1).json"))
        try Data(
            "{\"fitnessActivity\":\"walking\",\"startTime\":\"2024-01-15T09:00:00.000Z\",\"endTime\":\"2024-01-15T09:30:00.000Z\"}"
                .utf8
        ).write(to: URL(fileURLWithPath: fit + "/All Sessions/2024-01-15T10_00_00.000+01_00_WALKING.json"))
    }

    /// A Paris user's only session is in January: a July point is shown at its `+01:00`, an hour
    /// off, and on 1 July rather than 2 July. Nothing in the data tells, so the note says when the
    /// points run over a month past the sessions (it said nothing; an attack run).
    @Test func aFixedOffsetFarFromItsSessionsIsFlagged() throws {
        try withTemporaryDirectory { directory in
            // 2024-07-01T22:30:00Z.
            try Self.writeTakeout(directory, pointNanos: 1_719_873_000_000_000_000)
            let run = try ImportRun.googleFit(directory)
            #expect(run.samples(of: "steps").map(\.start) == ["2024-07-01T23:30:00+01:00"])
            #expect(
                run.report.notes.first
                    == "offsets fixed at +01:00 (from the session file names); the sessions run from 2024-01-15 to "
                    + "2024-01-15, the points from 2024-07-01 to 2024-07-01: in a zone with daylight saving time some "
                    + "points are an hour off, pass --time-zone ZONE")
        }
        try withTemporaryDirectory { directory in
            // 2024-02-01T22:30:00Z: within a month of the session.
            try Self.writeTakeout(directory, pointNanos: 1_706_826_600_000_000_000)
            let run = try ImportRun.googleFit(directory)
            #expect(run.report.notes.first == "offsets fixed at +01:00 (from the session file names)")
        }
    }

    /// Two nights as a Takeout gives sleep: a session (the time in bed) with the sleep stream's
    /// stages inside it, and a session whose stages are its own `segment[]`. Each night is 7 h
    /// asleep once ingested. The session had an origin of its own, which outranked the stream's,
    /// so its `inBed` suppressed the first night's stages; the second night's segments were
    /// dropped without a count. Both nights read 0 s (an oracle run).
    @Test func aNightsStagesCountInsideItsSession() throws {
        try withTemporaryDirectory { directory in
            let fit = directory + "/Takeout/Fit"
            for folder in ["All Data", "All Sessions"] {
                try FileManager.default.createDirectory(atPath: fit + "/" + folder, withIntermediateDirectories: true)
            }
            func nanos(_ text: String) -> Int64 { Instant(rfc3339: text)!.millis * 1_000_000 }
            let points = [
                ("2024-01-11T22:30:00Z", "2024-01-12T02:30:00Z", 4),
                ("2024-01-12T02:30:00Z", "2024-01-12T05:30:00Z", 5),
            ]
            .map { start, end, stage in
                "{\"startTimeNanos\":\(nanos(start)),\"endTimeNanos\":\(nanos(end)),"
                    + "\"originDataSourceId\":\"raw:com.google.sleep.segment:x\",\"fitValue\":[{\"value\":{\"intVal\":\(stage)}}]}"
            }
            try Data(
                "{\"Data Source\":\"derived:com.google.sleep.segment:com.google.android.gms:merged\",\"Data Points\":[\(points.joined(separator: ","))]}"
                    .utf8
            ).write(to: URL(fileURLWithPath: fit + "/All Data/derived_com.google.sleep.segment_com.google.an.json"))
            try Data(
                #"{"fitnessActivity":"sleep","startTime":"2024-01-11T22:00:00.000Z","endTime":"2024-01-12T06:00:00.000Z"}"#
                    .utf8
            ).write(to: URL(fileURLWithPath: fit + "/All Sessions/2024-01-11T22_00_00.000+00_00_SLEEP.json"))
            let segments = [
                ("sleep", "2024-01-12T22:00:00.000Z", "2024-01-13T06:00:00.000Z"),
                ("sleep.light", "2024-01-12T22:30:00.000Z", "2024-01-13T02:30:00.000Z"),
                ("sleep.deep", "2024-01-13T02:30:00.000Z", "2024-01-13T04:30:00.000Z"),
                ("111", "2024-01-13T04:30:00.000Z", "2024-01-13T05:30:00.000Z"),
                ("walking", "2024-01-13T05:30:00.000Z", "2024-01-13T05:40:00.000Z"),
            ].map { #"{"fitnessActivity":"\#($0)","startTime":"\#($1)","endTime":"\#($2)"}"# }
            try Data(
                (#"{"fitnessActivity":"sleep","startTime":"2024-01-12T22:00:00.000Z","endTime":"2024-01-13T06:00:00.000Z","segment":["#
                    + segments.joined(separator: ",") + "]}").utf8
            ).write(to: URL(fileURLWithPath: fit + "/All Sessions/2024-01-12T22_00_00.000+00_00_SLEEP.json"))

            let run = try ImportRun.googleFit(directory)
            #expect(
                run.samples(of: "sleep").map { $0.stage ?? "" }.sorted() == [
                    "core", "core", "deep", "deep", "inBed", "inBed", "rem",
                ])
            #expect(run.report.skipped.map { "\($0.type) \($0.count)" } == ["session.segment 1"])
            let engine = try RecountEngine(directory: directory + "/store")
            _ = try engine.ingest(ndjson: Array(run.lines.joined(separator: "\n").utf8), source: "import")
            for day in ["2024-01-12", "2024-01-13"] {
                let reading = try engine.rollups(user: "u1", metric: "sleep", from: day, to: day).first?.reading
                guard case .partial(let values, _) = reading else {
                    Issue.record("\(day): \(String(describing: reading))")
                    continue
                }
                #expect(values.first { $0.name == "value" }?.value == 25_200, "\(day)")
            }
        }
    }
}
