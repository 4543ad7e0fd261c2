import Foundation
import Recount
import RecountLog

/// `recount log check` and `recount log stats`.
enum LogCommands {
    /// Checks every frame and record; exit 4 when the log is damaged.
    static func check(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let reader: LogReader
        let stats: LogStats
        do {
            // Opening checks the last segment, so damage there surfaces here too.
            (stats, reader) = try RecountEngine.checkLog(directory: invocation.dataDirectory)
        } catch let error as LogError where error.isDamage {
            if invocation.json {
                Output.jsonLine([
                    ("ok", .bool(false)), ("error", .string(error.message)),
                    ("file", error.path.map { .string($0) } ?? .null),
                    ("offset", error.offset.map { .int($0) } ?? .null),
                ])
            } else {
                print("log damaged: \(error)")
                print(
                    "`recount log repair` cuts the log back to the last good frame, keeping a copy of what it removes")
            }
            return .verificationFailed
        } catch let error as UnreadableRecord {
            if invocation.json {
                Output.jsonLine([
                    ("ok", .bool(false)), ("error", .string(error.description)),
                    ("position", .int(Int64(error.position))),
                ])
            } else {
                print("log unreadable: \(error)")
            }
            return .verificationFailed
        }
        if invocation.json {
            Output.jsonLine(
                fields(stats) + [
                    ("ok", .bool(true)),
                    ("uncommittedTail", reader.uncommittedTail.map { .string($0.description) } ?? .null),
                ])
        } else {
            print(
                "log ok: \(stats.records.counted("record")) in \(stats.frames.counted("frame")), \(stats.segments.counted("segment")), every checksum matches"
            )
            if let tail = reader.uncommittedTail { print(uncommittedTailLine(tail)) }
        }
        return .success
    }

    /// The line `log check` and `verify` print for a torn frame after the committed ones.
    static func uncommittedTailLine(_ tail: TornTail) -> String {
        "uncommitted tail (a writer cuts it off on open, keeping a copy beside the segment): \(tail)"
    }

    /// Cuts a damaged log back to its last good frame (never done automatically).
    static func repair(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let repair = try RecountEngine.repairLog(directory: invocation.dataDirectory)
        if invocation.json {
            Output.jsonLine([
                ("repaired", .bool(repair.damage != nil || repair.rebuiltManifest)),
                ("damage", repair.damage.map { .string($0.description) } ?? .null),
                ("lostRecords", .int(Int64(repair.lostRecords))),
                ("lostFrom", repair.lostPositions.map { .int(Int64($0.lowerBound)) } ?? .null),
                ("lostEnd", repair.lostPositions.map { .int(Int64($0.upperBound)) } ?? .null),
                ("savedTo", .string(repair.savedTo.joined(separator: "\n"))),
                ("lastRepairReport", repair.lastRepairReport.map { .string($0) } ?? .null),
            ])
        } else {
            print(repair, terminator: repair.damage == nil ? "\n" : "")
        }
        return .success
    }

    /// Prints segments, records and bytes.
    static func stats(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let reader = try RecountEngine.logReader(directory: invocation.dataDirectory)
        let stats = try reader.stats()
        if invocation.json {
            Output.jsonLine(
                fields(stats) + [
                    ("startPosition", .int(Int64(reader.snapshot.startPosition))),
                    ("endPosition", .int(Int64(reader.endPosition))),
                ])
        } else {
            print(
                """
                directory          \(invocation.logDirectory)
                segments           \(stats.segments)
                frames             \(stats.frames)
                records            \(stats.records) (positions \(reader.snapshot.startPosition)..<\(reader.endPosition))
                raw bytes          \(stats.rawBytes)
                on-disk bytes      \(stats.fileBytes)
                compression ratio  \(String(format: "%.2f", stats.compressionRatio))
                """)
        }
        return .success
    }

    static func fields(_ stats: LogStats) -> [(String, Output.Value)] {
        [
            ("segments", .int(Int64(stats.segments))), ("frames", .int(Int64(stats.frames))),
            ("records", .int(Int64(stats.records))),
            ("rawBytes", .int(Int64(stats.rawBytes))), ("fileBytes", .int(Int64(stats.fileBytes))),
            ("compressionRatio", .double((stats.compressionRatio * 1000).rounded() / 1000)),
        ]
    }
}
