import Foundation
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
}
