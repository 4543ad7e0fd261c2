import Foundation
import Recount
import RecountLog
import TestSupport
import Testing

/// The embedding API, as a backend service uses it.
@Suite struct RecountEngineTests {
    static let good = Array(
        #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T00:00:00Z"}"#.utf8)
    static let bad = Array(#"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"]}"#.utf8)

    @Test func ingestsLinesAppliesTheValidOnesAndNamesTheRest() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let newline = [UInt8(ascii: "\n")]
            let report = try engine.ingest(ndjson: Self.good + newline + Self.bad + newline + Self.good, source: "api")
            #expect(report.appended == 2)
            #expect(report.positions == 1..<3)
            #expect(report.rejected.map(\.description) == ["api: line 2: at is required"])
            #expect(report.rejectedLines == 1)
            #expect(report.rejected.map(\.error.code) == [.missingField])
            try engine.close()

            // A second engine on the same directory continues the positions.
            let again = try RecountEngine(directory: directory)
            #expect(again.recovery == nil)
            #expect(try again.ingest(ndjson: Self.good, source: "api").positions == 3..<4)
            try again.close()
            #expect(try LogReader(directory: directory + "/log").check().records == 3)
        }
    }

    /// A writer refuses a directory whose projections are stored and whose log is gone: it
    /// started a new, empty log and replaced the projections (all that was left of the lost
    /// log's samples) with its own (an attack run, 2026-12-06). Moved away, they let a new
    /// store start.
    @Test func aWriterRefusesProjectionsWithoutTheirLog() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            _ = try engine.ingest(ndjson: Self.good, source: "api")
            try engine.close()
            let layout = DataDirectory(directory)
            let checkpoint = try Data(contentsOf: URL(fileURLWithPath: layout.checkpoint))
            try FileManager.default.removeItem(atPath: layout.log)
            #expect { try RecountEngine(directory: directory) } throws: {
                ($0 as? LogError)?.code == .noLog && "\($0)".contains("projections at \(layout.projections)")
            }
            #expect(!FileManager.default.fileExists(atPath: layout.log), "nothing written")
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.checkpoint)) == checkpoint)
            try FileManager.default.moveItem(atPath: layout.projections, toPath: directory + "/kept")
            let fresh = try RecountEngine(directory: directory)
            #expect(try fresh.ingest(ndjson: Self.good, source: "api").positions == 1..<2)
            try fresh.close()
        }
    }

    @Test func oneEnginePerDirectory() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            #expect { try RecountEngine(directory: directory) } throws: { ($0 as? LogError)?.code == .locked }
            try engine.close()
        }
    }

    /// A closed engine answers nothing and writes nothing: queries answered after `close`, and
    /// a recompute then wrote checkpoints into a directory whose lock the engine had given up.
    @Test func aClosedEngineAnswersNothingAndWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let line =
                #"{"kind":"samples.upsert","user":"u1","provider":"fitbit","receivedAt":"2026-07-14T10:00:00Z","samples":[{"id":"a","type":"steps","start":"2026-07-13T10:00:00Z","end":"2026-07-13T11:00:00Z","value":5,"unit":"count","origin":"o"}]}"#
            let engine = try RecountEngine(directory: directory, checkpointInterval: 1)
            _ = try engine.ingest(ndjson: Array(line.utf8), source: "api", recompute: false)
            try engine.close()
            let projections = DataDirectory(directory).projections
            func stored() throws -> [String: Data] {
                try Dictionary(
                    uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: projections).map {
                        ($0, try Data(contentsOf: URL(fileURLWithPath: projections + "/" + $0)))
                    })
            }
            let before = try stored()
            let calls: [(String, () throws -> Void)] = [
                ("ingest", { _ = try engine.ingest(ndjson: Array(line.utf8), source: "api") }),
                ("recompute", { _ = try engine.recompute() }),
                ("rollups", { _ = try engine.rollups(user: "u1", metric: "steps") }),
                (
                    "rollups as of",
                    { _ = try engine.rollups(user: "u1", metric: "steps", asOf: "2026-07-15T00:00:00Z") }
                ),
                ("samples", { _ = try engine.samples(user: "u1", metric: "steps", day: "2026-07-13") }),
                ("audit", { _ = try engine.audit(user: "u1", metric: "steps", day: "2026-07-13") }),
                ("cursor", { _ = try engine.cursor(user: "u1", provider: "fitbit", metric: "steps") }),
                ("stale", { _ = try engine.stale() }),
                ("stats", { _ = try engine.stats() }),
                ("changes", { _ = try engine.changes(since: 0) }),
                ("dirty days", { _ = try engine.dirtyDays() }),
                ("digest", { _ = try engine.digest() }),
                ("verify", { _ = try engine.verify() }),
                ("sync", { try engine.sync() }),
            ]
            for (name, call) in calls {
                do {
                    try call()
                    Issue.record("\(name) answered after close")
                } catch {
                    let closed = (error as? LogError) ?? (error as? IngestFailure)?.error as? LogError
                    #expect(closed?.code == .closed, "\(name): \(error)")
                }
            }
            try engine.close()
            #expect(try stored() == before)
            let reader = try RecountEngine(readingDirectory: directory)
            #expect(try reader.samples(user: "u1", metric: "steps", day: "2026-07-13").map(\.value) == [5])
            try reader.close()
            #expect { try reader.stats() } throws: { ($0 as? LogError)?.code == .closed }
        }
    }

    /// An empty directory path is refused by every way into a store, as the command line
    /// refuses `--data ""`: taken as the current directory, a backend whose path came from an
    /// unset setting kept its users' data wherever the process started (an API audit,
    /// 2026-12-07). `DataDirectory` still reads it as the current directory: the engine put
    /// its log at `/log` (an attack run, 2026-12-05).
    @Test func anEmptyDirectoryPathIsRefused() throws {
        let directory = DataDirectory("")
        #expect(directory.log == "./log" && directory.projections == "./projections")
        let refused: [() throws -> Void] = [
            { _ = try RecountEngine(directory: "") },
            { _ = try RecountEngine(readingDirectory: "") },
            { _ = try RecountEngine(readingDirectory: "", user: "alice") },
            { _ = try RecountEngine.replay(directory: "") },
            { _ = try RecountEngine.verify(directory: "") },
            { _ = try RecountEngine.repairLog(directory: "") },
            { _ = try RecountEngine.logReader(directory: "") },
        ]
        for open in refused {
            #expect { try open() } throws: { error in
                (error as? LogError)?.code == .notADirectory
                    && "\(error)".contains("the data directory's path is empty")
            }
        }
        #expect(
            !FileManager.default.fileExists(atPath: "log") && !FileManager.default.fileExists(atPath: "projections"))
    }

    /// A memory limit under 1 holds one range at a time, and says so: the engine reported the
    /// limit it was given, -1 (an API audit, 2026-12-07).
    @Test func aMemoryLimitUnderOneIsOne() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory, memoryLimit: -1)
            #expect(engine.memoryLimit == 1)
            _ = try engine.ingest(ndjson: Self.good, source: "good.ndjson")
            try engine.close()
            #expect(try RecountEngine(readingDirectory: directory, memoryLimit: 0).memoryLimit == 1)
        }
    }

    /// A user name no envelope can carry is refused where an engine or a replay is opened for
    /// one user, as every query refuses it: the engine opened for it, and the replay answered
    /// for no records (an API audit, 2026-12-07).
    @Test func aOneUserEngineOrReplayRefusesANameNoEnvelopeCarries() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            _ = try engine.ingest(ndjson: Self.good, source: "good.ndjson")
            try engine.close()
            #expect { _ = try RecountEngine(readingDirectory: directory, user: "alice smith") } throws: {
                ($0 as? QueryError)?.code == .invalidUser
            }
            #expect { _ = try RecountEngine.replay(directory: directory, user: "alice smith") } throws: {
                ($0 as? QueryError)?.code == .invalidUser
            }
            #expect(try RecountEngine.replay(directory: directory, user: "u1").records == 1)
        }
    }

    /// Every input is opened before anything is appended: a missing one changes nothing.
    @Test func aMissingFileIsAClearErrorAndNothingIsAppended() throws {
        try withTemporaryDirectory { directory in
            let good = directory + "/good.ndjson"
            try Data(Self.good).write(to: URL(fileURLWithPath: good))
            let engine = try RecountEngine(directory: directory)
            #expect { try engine.ingest(files: [good, directory + "/missing.ndjson"]) } throws: { error in
                let failure = error as? IngestFailure
                return failure?.description == "cannot read \(directory)/missing.ndjson: No such file or directory"
                    && failure?.report.appended == 0 && failure?.report.positions == nil
            }
            #expect { try engine.ingest(files: [good, directory]) } throws: { error in
                (error as? IngestFailure)?.description == "cannot read \(directory): Is a directory"
            }
            try engine.close()
            #expect(try LogReader(directory: directory + "/log").check().records == 0)
        }
    }

    /// Envelopes far under the line limit that together pass a log frame's 64 MiB are appended
    /// in several frames, not refused as one oversized batch.
    @Test func envelopesThatTogetherPassAFrameAreAllAppended() throws {
        var input: [UInt8] = []
        let padding = String(repeating: "x", count: 240)
        for envelope in 0..<12 {
            input += Array(
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T08:00:00Z","provider":"fitbit","samples":["#
                    .utf8)
            for sample in 0..<13_000 {
                // Distinct ids and sync identifiers: the record cannot share their text.
                let id = "\(envelope)-\(sample)-\(padding)"
                if sample > 0 { input.append(UInt8(ascii: ",")) }
                input += Array(
                    #"{"id":"\#(id)","type":"steps","start":"2026-07-13T10:00:00Z","value":1,"unit":"count","origin":"o","syncIdentifier":"\#(id)","syncVersion":1}"#
                        .utf8)
            }
            input += Array("]}\n".utf8)
        }
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory, durability: .none)
            let report = try engine.ingest(ndjson: input, source: "large")
            try engine.close()
            #expect(report.rejectedLines == 0)
            #expect(report.appended == 12)
            let stats = try LogReader(directory: directory + "/log").check()
            #expect(stats.rawBytes > UInt64(Ingestor.frameBytes))
            #expect(stats.frames >= 2)
        }
    }

    /// A service's tests stand in for the engine with rows they build: each row type has a
    /// public initializer, and rows built from the figures equal the engine's own.
    @Test func aServiceBuildsTheRowsTheEngineAnswersWith() throws {
        let upload = Array(
            """
            {"kind":"healthkit.delivery","user":"u1","receivedAt":"2026-07-14T20:00:00Z","type":"steps","anchor":null,"newAnchor":"YQ==","added":[{"id":"w1","type":"steps","start":"2026-07-14T09:00:00-07:00","end":"2026-07-14T10:00:00-07:00","value":4200,"unit":"count","origin":"com.apple.health","device":"Apple Watch"}],"deleted":[]}
            {"kind":"checkin","user":"u1","provider":"healthkit","metrics":["steps"],"at":"2026-07-16T08:00:00Z","receivedAt":"2026-07-16T08:00:00Z"}
            """.utf8)
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory, durability: .none)
            defer { try? engine.close() }
            #expect(try engine.ingest(ndjson: upload, source: "api").appended == 2)
            let steps = [RollupRow.Value(name: "value", value: 4200)]
            #expect(
                try engine.rollups(user: "u1", metric: "steps", from: "2026-07-14", to: "2026-07-14") == [
                    RollupRow(
                        user: "u1", metric: "steps", date: "2026-07-14", reading: .known(steps), unit: "count",
                        version: 2)
                ])
            #expect(
                try engine.changes(since: 0).filter { $0.date == "2026-07-14" } == [
                    CellChangeRow(
                        user: "u1", metric: "steps", date: "2026-07-14", version: 2, old: .unknown(.neverSynced),
                        new: .known(steps))
                ])
            #expect(
                try engine.samples(user: "u1", metric: "steps", day: "2026-07-14") == [
                    SampleRow(
                        provider: "healthkit", id: "w1", start: "2026-07-14T09:00:00-07:00",
                        end: "2026-07-14T10:00:00-07:00", timeZone: nil, value: 4200, originalValue: 4200,
                        originalUnit: "count", stage: nil, origin: "com.apple.health", device: "Apple Watch",
                        position: 1, activity: nil, distance: nil, energy: nil)
                ])
        }
    }
}
