import Dispatch
import Foundation
import RecountLog
import Synchronization
import TestSupport
import Testing

/// The log's damage, repair and concurrency as the `recount` binary shows them.
@Suite struct LogDamageCommandTests {
    static let enabled = FileManager.default.isExecutableFile(atPath: CommandLineTests.binary)

    /// `n` small `samples.upsert` envelopes for `user`, one per line.
    static func envelopes(_ n: Int, user: String = "u1", from first: Int = 0) -> Data {
        Data(
            (first..<(first + n)).map { i in
                #"{"kind":"samples.upsert","user":"\#(user)","receivedAt":"2026-07-14T09:00:00Z","provider":"fitbit","samples":[{"id":"s\#(i)","type":"steps","start":"2026-07-14T08:00:00+02:00","end":"2026-07-14T08:10:00+02:00","value":\#(i % 900 + 1),"unit":"count","origin":"com.fitbit"}]}"#
                    + "\n"
            }.joined().utf8)
    }

    /// A flipped bit in the last committed frame: `log check` and `ingest` refuse (exit 4),
    /// `log dump` prints every record before the damaged frame, `log repair` cuts it and says
    /// what was lost, and new envelopes get new positions.
    @Test(.enabled(if: enabled, "build the recount product first (swift build)"))
    func aFlippedBitInTheLastFrameIsFoundRepairedAndItsPositionsNeverReused() throws {
        try withTemporaryDirectory { directory in
            let data = directory + "/data"
            // From files, each ingest one frame: from a pipe, a loaded machine's pauses between
            // writes (past the 50 ms an ingest waits) split the input into several frames.
            for (name, envelopes) in [("first", Self.envelopes(500)), ("second", Self.envelopes(1000, from: 500))] {
                let file = directory + "/\(name).ndjson"
                try envelopes.write(to: URL(fileURLWithPath: file))
                #expect(try CommandLineTests.recount(["--data", data, "ingest", file]).status == 0)
            }
            let checkpoint = try Data(contentsOf: URL(fileURLWithPath: data + "/projections/checkpoint"))
            let segment = data + "/log/00000000000000000001.seg"
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
            bytes[bytes.count - 300] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: segment))

            let check = try CommandLineTests.recount(["--data", data, "log", "check"])
            #expect(check.status == 4)
            #expect(check.output.contains(segment) && check.output.contains("log repair"))
            let ingest = try CommandLineTests.recount(["--data", data, "ingest", "-"], input: Self.envelopes(1))
            #expect(ingest.status == 4, "the writer refuses a damaged log")
            #expect(ingest.errors.contains("log repair"))
            let dump = try CommandLineTests.recount(["--data", data, "log", "dump"])
            #expect(dump.status == 4)
            #expect(dump.output.split(separator: "\n").count == 500, "every record before the damaged frame")

            let repair = try CommandLineTests.recount(["--data", data, "log", "repair"])
            #expect(repair.status == 0)
            #expect(repair.output.contains("lost positions 501..<1501: at most 1000 records"))
            #expect(repair.output.contains(".cut-"))
            #expect(try CommandLineTests.recount(["--data", data, "log", "check"]).status == 0)
            // A kill between the cut and the checkpoint's removal leaves the old checkpoint: it
            // folds positions the log no longer holds, so it is ignored and rebuilt, never
            // answered from.
            try checkpoint.write(to: URL(fileURLWithPath: data + "/projections/checkpoint"))
            let verify = try CommandLineTests.recount(["--data", data, "verify"])
            #expect(verify.status == 0, "\(verify.output)\(verify.errors)")
            #expect(verify.output.contains("/projections/checkpoint is another log's: rebuilt from the log"))
            let again = try CommandLineTests.recount(
                ["--data", data, "--json", "ingest", "-"], input: Self.envelopes(2, from: 2000))
            #expect(again.status == 0)
            #expect(again.errors.contains(#""event":"rebuilt""#), "the writer says so too: \(again.errors)")
            #expect(again.output.contains(#""firstPosition":1501,"endPosition":1503"#), "positions are never reused")
        }
    }

    /// A record whose frame's checksum matches but whose bytes are no envelope (a writer's bug,
    /// or a record of a newer format): `log check`, `verify`, `replay` and the engine's open
    /// all refuse it, naming its position and the reason, never skipping it.
    @Test(.enabled(if: enabled, "build the recount product first (swift build)"))
    func aRecordThatIsNoEnvelopeIsRefusedByPosition() throws {
        try withTemporaryDirectory { directory in
            let data = directory + "/data"
            #expect(
                try CommandLineTests.recount(["--data", data, "ingest", "-"], input: Self.envelopes(5)).status == 0)
            let log = try Log(directory: data + "/log")
            var batch = LogBatch()
            batch.append([0xEE, 0x01, 0x02])
            #expect(try log.append(batch) == 6..<7)
            try log.close()
            #expect(
                try CommandLineTests.recount(["--data", data, "ingest", "-"], input: Self.envelopes(1, from: 5)).status
                    == 4)
            for command in [["log", "check"], ["log", "dump"], ["verify"], ["replay"], ["digest"]] {
                let run = try CommandLineTests.recount(["--data", data] + command)
                #expect(run.status == 4, "\(command)")
                #expect((run.output + run.errors).contains("position 6"), "\(command): \(run.output)\(run.errors)")
            }
        }
    }

    /// A writer process appends while reader processes check the log in a loop: no reader
    /// crashes or reports damage that is not there.
    @Test(.enabled(if: enabled, "build the recount product first (swift build)"))
    func readersCheckingWhileAWriterAppendsNeverCrashOrSeeFalseDamage() throws {
        try withTemporaryDirectory { directory in
            let data = directory + "/data"
            let input = directory + "/input.ndjson"
            try Self.envelopes(3000).write(to: URL(fileURLWithPath: input))
            let rounds = 40
            let done = Atomic<Bool>(false)
            let writerFailures = Mutex<[String]>([])
            let writerDone = DispatchSemaphore(value: 0)
            // A thread of its own: the shared pool may be busy with other tests.
            Thread {
                defer { writerDone.signal() }
                // Each ingest writes three frames and syncs each, then closes (trimming the zeros
                // written ahead): the states readers used to fault on.
                for _ in 0..<400 where !done.load(ordering: .acquiring) {
                    let run = try? CommandLineTests.recount(["--data", data, "ingest", input])
                    if run?.status != 0 { writerFailures.withLock { $0.append(run?.errors ?? "did not run") } }
                }
            }.start()
            // Start checking once the writer has made the log (a slow machine takes a while).
            for _ in 0..<3000 where !FileManager.default.fileExists(atPath: data + "/log/MANIFEST") { usleep(10_000) }
            var failures: [String] = []
            var checked = 0
            for _ in 0..<rounds {
                let check = try CommandLineTests.recount(["--data", data, "log", "check"])
                if check.status == 0 {
                    checked += 1
                } else if !check.errors.contains("no log at") {
                    failures.append("exit \(check.status): \(check.output) \(check.errors)")
                }
            }
            done.store(true, ordering: .releasing)
            writerDone.wait()
            #expect(failures.isEmpty)
            #expect(writerFailures.withLock { $0 }.isEmpty)
            #expect(checked > rounds / 2)
            #expect(try CommandLineTests.recount(["--data", data, "log", "check"]).status == 0)
        }
    }
}
