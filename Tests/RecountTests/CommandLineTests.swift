import Foundation
import RecountLog
import TestSupport
import Testing

/// The `recount` binary the tests run, beside the test bundle.
private let builtRecount = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("recount").path

/// The `recount` binary end to end: import an Apple Health export, ingest it, dump and check
/// the log, and the exit statuses of the contract. Every test runs the built binary.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: builtRecount),
        "build the recount product first (swift build)"))
struct CommandLineTests {
    static let binary = builtRecount
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("RecountImportTests/Fixtures")

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func recount(_ arguments: [String], input: Data? = nil, outputPath: String? = nil) throws -> Run {
        try run(binary, arguments, input: input, outputPath: outputPath)
    }

    /// Runs `executable` with `arguments`, `input` on its standard input, to its end; its
    /// standard output goes to the file `outputPath` when given (then `output` is empty).
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, outputPath: String? = nil)
        throws -> Run
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput =
            try outputPath.map { path in try FileHandle(forWritingTo: URL(fileURLWithPath: path)) } ?? output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        try output.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }

    /// A real export.zip cut short (a truncated download): the importer prints every envelope
    /// read before the damage, and the error counts exactly those, none left in a buffer.
    static let garminZip = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/data/apple-health-export-fr-garmin/export.zip").standardizedFileURL
        .path

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: garminZip),
            "needs ../shared/data/apple-health-export-fr-garmin"))
    func aCutZipPrintsEveryEnvelopeItsErrorCounts() throws {
        try withTemporaryDirectory { directory in
            let whole = try Data(contentsOf: URL(fileURLWithPath: Self.garminZip))
            let cut = directory + "/cut.zip"
            // export.xml is the first half of the archive: cut inside it.
            try whole.prefix(whole.count * 4 / 10).write(to: URL(fileURLWithPath: cut))
            let run = try Self.recount(["import", "apple-health", cut, "--user", "alice"])
            #expect(run.status == 1)
            let lines = run.output.split(separator: "\n")
            let samples = lines.reduce(0) { $0 + $1.components(separatedBy: #"{"id":"#).count - 1 }
            #expect(lines.count > 10, "most of the export was read before the cut")
            #expect(
                run.errors.contains("(printed before it: \(samples) samples in \(lines.count) envelopes)"),
                "\(run.errors)")
        }
    }

    /// Results that cannot be written (standard output a full disk) are a failure with a
    /// sentence, exit 1: never a trap, never lost output with exit 0.
    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
    func resultsThatCannotBeWrittenAreAFailure() throws {
        try withTemporaryDirectory { directory in
            let data = directory + "/data"
            let export = Self.fixtures.appendingPathComponent("tdda-export6s3sample.xml").path
            let imported = try Self.recount(["import", "apple-health", export, "--user", "alice"])
            let first = try Self.recount(["--data", data, "--json", "ingest", "-"], input: Data(imported.output.utf8))
            #expect(first.status == 0)
            let appended = try #require(
                first.output.split(separator: ",").first { $0.hasPrefix("{\"appended\":") }?.dropFirst(12))
            for command in [
                ["log", "dump"], ["stats"], ["--json", "digest"], ["rollups", "--user", "alice", "--metric", "steps"],
                ["import", "apple-health", export, "--user", "alice"],
            ] {
                let run = try Self.recount(["--data", data] + command, outputPath: "/dev/full")
                #expect(run.status == 1, "\(command)")
                #expect(
                    run.errors.contains("standard output could not be written: No space left on device"), "\(command)")
            }
            // An ingest whose summary cannot be written has appended all the same, and says so
            // (a caller reading exit 1 as "nothing stored" would send everything again).
            let ingest = try Self.recount(
                ["--data", data, "ingest", "-"], input: Data(imported.output.utf8), outputPath: "/dev/full")
            #expect(ingest.status == 1)
            #expect(
                ingest.errors.contains(
                    "No space left on device (the command ran to its end, with exit status 0, but its results were "
                        + "not all written)"), "\(ingest.errors)")
            let records = try #require(Int(appended)) * 2
            #expect(try Self.recount(["--data", data, "log", "stats"]).output.contains("\(records) (positions 1..<"))
        }
    }

    @Test
    func importIngestDumpAndCheckAnAppleHealthExport() throws {
        try withTemporaryDirectory { directory in
            let export = Self.fixtures.appendingPathComponent("tdda-export6s3sample.xml").path
            let imported = try Self.recount(["import", "apple-health", export, "--user", "alice"])
            #expect(imported.status == 0)
            #expect(imported.errors.contains("imported 10 HKQuantityTypeIdentifierStepCount"))
            #expect(imported.errors.contains("skipped  2 ActivitySummary"))
            let again = try Self.recount(["import", "apple-health", export, "--user", "alice"])
            #expect(again.output == imported.output, "importing twice gives the same envelopes and ids")

            let ingested = try Self.recount(
                ["--data", directory, "--json", "ingest", "-"], input: Data(imported.output.utf8))
            #expect(ingested.status == 0)
            #expect(ingested.output.contains("\"appended\":1,\"rejected\":0,\"samples\":16"))

            let dump = try Self.recount(["--data", directory, "log", "dump", "--user", "alice"])
            #expect(dump.status == 0)
            #expect(
                dump.output.hasPrefix("{\"position\":1,\"envelope\":{\"kind\":\"samples.upsert\",\"user\":\"alice\""))
            #expect(try Self.recount(["--data", directory, "log", "dump", "--user", "bob"]).output.isEmpty)
            #expect(try Self.recount(["--data", directory, "log", "check"]).status == 0)
            // Every JSON line names each field once, and the import report its event.
            let verified = try Self.recount(["--data", directory, "--json", "verify"])
            #expect(verified.status == 0)
            #expect(verified.output.components(separatedBy: "\"records\":").count == 2)
            #expect(verified.output.contains("\"logRecords\":1,"))
            let reported = try Self.recount(["--json", "import", "apple-health", export, "--user", "alice"])
            #expect(reported.errors.hasPrefix("{\"event\":\"import\","))
            // A data directory named by nothing is refused, and an empty RECOUNT_DATA is unset:
            // neither makes the log `/log`.
            let unnamed = try Self.recount(["--data", "", "stats"])
            #expect(unnamed.status == 2 && unnamed.errors.contains("--data needs a directory"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["stats"]
            process.environment = ["RECOUNT_DATA": ""]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            process.waitUntilExit()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(said.contains("no log at ./recount-data/log"), "\(said)")
            // A day nothing counted towards has no rollup to audit: an answer, not a failure.
            let empty = try Self.recount(
                ["--data", directory, "--json", "audit", "--user", "alice", "--metric", "steps", "--day", "1999-01-01"])
            #expect(empty.status == 0)
            #expect(
                empty.output
                    == #"{"line":"cell","user":"alice","metric":"steps","date":"1999-01-01","state":"unknown","reason":"no_checkin_since_day_end","unit":"count","version":null}"#
                    + "\n")
        }
        // The zip as the Health app hands it out, from a file or standard input: the same lines.
        let xml = try Self.recount([
            "import", "apple-health", Self.fixtures.appendingPathComponent("tdda-export6s3sample.xml").path,
            "--user", "alice",
        ])
        let zip = Self.fixtures.appendingPathComponent("tdda-export.zip")
        let zipped = try Self.recount(["import", "apple-health", zip.path, "--user", "alice"])
        #expect(zipped.status == 0 && zipped.output == xml.output && !xml.output.isEmpty)
        let piped = try Self.recount(
            ["import", "apple-health", "-", "--user", "alice"], input: try Data(contentsOf: zip))
        #expect(piped.status == 0 && piped.output == xml.output)
        // Not an export: exit 1, nothing on standard output, and what was expected.
        let cda = try Self.recount(
            ["import", "apple-health", "-", "--user", "alice"],
            input: Data("<?xml version=\"1.0\"?>\n<ClinicalDocument xmlns=\"urn:hl7-org:v3\"/>\n".utf8))
        #expect(cda.status == 1 && cda.output.isEmpty)
        #expect(cda.errors.contains("-:2:") && cda.errors.contains("root element is <HealthData>"))
    }

    @Test
    func importAFitbitTakeoutAndIngestIt() throws {
        let takeout = Self.fixtures.appendingPathComponent("fitbit-synthetic.zip").path
        let imported = try Self.recount(["import", "fitbit", takeout, "--user", "alice"])
        // Two bad records were skipped and reported: exit 3, the rest imported.
        #expect(imported.status == 3)
        #expect(imported.errors.contains("imported 3 steps") && imported.errors.contains("invalid  2 steps"))
        #expect(imported.errors.contains("steps-2023-11-04.json record 4: steps: non-numeric value"))
        try withTemporaryDirectory { directory in
            let ingested = try Self.recount(
                ["--data", directory, "--json", "ingest", "-"], input: Data(imported.output.utf8))
            #expect(ingested.status == 0)
            #expect(ingested.output.contains("\"appended\":1,\"rejected\":0,\"samples\":9"))
        }
        // No zone given and no profile: exit 1, nothing on standard output, what to pass.
        let archive = Self.fixtures.appendingPathComponent("fitbit-mrphil007").path
        let noZone = try Self.recount(["import", "fitbit", archive, "--user", "alice"])
        #expect(noZone.status == 1 && noZone.output.isEmpty && noZone.errors.contains("--time-zone"))
        let zoned = try Self.recount(["import", "fitbit", archive, "--user", "alice", "--time-zone", "Europe/London"])
        #expect(zoned.status == 0 && zoned.output.contains("\"provider\":\"fitbit\""))
        // A folder that is not a Google Fit Takeout: exit 1 saying what was expected.
        let notFit = try Self.recount(["import", "google-fit", archive, "--user", "alice"])
        #expect(notFit.status == 1 && notFit.errors.contains("expected a Google Fit Takeout"))
        #expect(try Self.recount(["import", "fitbit", "-", "--user", "alice"]).status == 2)
    }

    /// `--time-zone` is one option for every importer, checked as ingest checks a zone: Apple
    /// Health re-zones its samples without `HKTimeZone` (or keeps them `as-written`), the Takeout
    /// importers take an IANA name only.
    @Test
    func oneTimeZoneOptionForEveryImporter() throws {
        let export = Self.fixtures.appendingPathComponent("tdda-export6s3sample.xml").path
        let given = try Self.recount([
            "import", "apple-health", export, "--user", "alice", "--time-zone", "Europe/Paris",
        ])
        #expect(
            given.status == 0 && given.errors.contains("16 of 16 samples without HKTimeZone re-zoned to Europe/Paris"))
        let written = try Self.recount([
            "import", "apple-health", export, "--user", "alice", "--time-zone", "as-written",
        ])
        #expect(written.status == 0 && written.errors.contains("keep the written offset (--time-zone as-written)"))
        #expect(written.output != given.output)
        let takeout = Self.fixtures.appendingPathComponent("fitbit-synthetic.zip").path
        for (source, zone) in [("apple-health", "PST"), ("fitbit", "as-written"), ("google-fit", "Mars/Olympus")] {
            let refused = try Self.recount(["import", source, takeout, "--user", "alice", "--time-zone", zone])
            #expect(refused.status == 2 && refused.output.isEmpty, "\(source) \(zone)")
            #expect(refused.errors.contains("--time-zone expects an IANA zone name"), "\(source) \(zone)")
        }
    }

    @Test
    func theDemoIngestsItsExampleDayAndChecksTheLog() throws {
        try withTemporaryDirectory { directory in
            let demo = try Self.recount(["--data", directory, "demo"])
            #expect(demo.status == 0)
            #expect(demo.output.contains("appended 10 envelopes (9 samples) at positions 1..<11; rejected 1"))
            #expect(demo.output.contains("log ok: 10 records"))
            // It ends with answers: known, partial and unknown days; the watch's steps count and
            // the phone's overlapped steps do not; the revised night's two versions.
            #expect(demo.output.contains("2026-07-14  known    value 1262.4"))
            #expect(demo.output.contains("2026-07-16  unknown                no_checkin_since_day_end"))
            #expect(demo.output.contains("2026-07-14  partial  value 2100  recovery_window_open"))
            // Bob's expired token: the window his client must read again.
            #expect(
                demo.output.contains(
                    "recoveryWindows         2026-07-14T06:00:00Z to 2026-07-20T07:00:00Z"))
            #expect(demo.output.contains("7        healthkit.delivery  2026-07-14T19:02:11Z  value 24900"))
            // The generated two weeks: u2's silent weekend is unknown on Monday, never zero.
            #expect(demo.output.contains("appended 124 envelopes (254 samples) at positions 11..<135; rejected 0"))
            #expect(demo.output.contains("2026-07-18  unknown              no_checkin_since_day_end"))
            #expect(!demo.output.contains("verify FAILED"))
            #expect(demo.output.contains("iPhone 162.4 counted, 649.6 suppressed by Apple Watch"))
            #expect(demo.output.contains("verify ok: the digests match"))
            #expect(demo.errors.contains("line 6: samples[0].unit is not a unit of weight (stone)"))
            // The operator's summary of the same data: the reinstalls' full re-deliveries and the
            // expired Health Connect token.
            let stats = try Self.recount(["--data", directory, "--json", "stats"])
            #expect(stats.status == 0)
            #expect(
                stats.output.contains(#"{"position":134,"users":7,"liveSamples":237"#),
                "seven users, and the * defaults")
            #expect(stats.output.contains(#""provider":"healthkit","channels":10,"users":5"#))
            #expect(stats.output.contains(#""fullRedeliveries":2,"redeliveredNew":4,"redeliveredKnown":22}"#))
            #expect(stats.output.contains(#""provider":"health_connect","channels":2,"users":2,"needsRecovery":1"#))

            // Run again where it ran, it changes nothing; into a store of real data it refuses:
            // its `*` source ranking would change every user's answers.
            let again = try Self.recount(["--data", directory, "demo"])
            #expect(again.status == 0 && again.output.contains("verify ok: the digests match"))
            let store = directory + "/store"
            #expect(try Self.recount(["--data", store, "ingest", "-"], input: Data(Self.checkin.utf8)).status == 0)
            let refused = try Self.recount(["--data", store, "demo"])
            #expect(refused.status == 1 && refused.errors.contains("holds a log the demo did not write"))
            #expect(!FileManager.default.fileExists(atPath: store + "/demo.ndjson"))
        }
    }

    /// The demo tells a log it wrote by its records, not by a `demo.ndjson` beside it: with such
    /// a file in a real store it appended its envelopes, a `*` source ranking among them, and a
    /// user's steps moved from 1,400 to 9,549. And it refuses stored projections without their
    /// log before writing its file there (a docs audit, 2026-12-07).
    @Test func theDemoRefusesAStoreItDidNotWriteWhateverFilesLieBesideIt() throws {
        try withTemporaryDirectory { directory in
            let store = directory + "/store"
            #expect(try Self.recount(["--data", store, "ingest", "-"], input: Data(Self.checkin.utf8)).status == 0)
            try Data("{}\n".utf8).write(to: URL(fileURLWithPath: store + "/demo.ndjson"))
            let refused = try Self.recount(["--data", store, "demo"])
            #expect(refused.status == 1 && refused.errors.contains("holds a log the demo did not write"))
            let dump = try Self.recount(["--data", store, "log", "dump"])
            #expect(dump.output.split(separator: "\n").count == 1, "the store's one record, nothing appended")

            try FileManager.default.removeItem(atPath: store + "/log")
            try FileManager.default.removeItem(atPath: store + "/demo.ndjson")
            let noLog = try Self.recount(["--data", store, "demo"])
            #expect(noLog.status == 1 && noLog.errors.contains("no log at"))
            #expect(!FileManager.default.fileExists(atPath: store + "/demo.ndjson"))
            #expect(!FileManager.default.fileExists(atPath: store + "/log"))
        }
    }

    /// `ingest` refuses a data directory whose stored projections lost their log, as the
    /// engine does, and writes nothing: it created the log directory before opening the
    /// engine, which then took the projections for another log's and replaced them with an
    /// empty log's (a docs audit). A new directory, nested, is created.
    @Test func ingestRefusesProjectionsWithoutTheirLog() throws {
        try withTemporaryDirectory { directory in
            let store = directory + "/a/b"
            let first = try Self.recount(["--data", store, "ingest", "-"], input: Data(Self.checkin.utf8))
            #expect(first.status == 0)
            let checkpoint = store + "/projections/checkpoint"
            let stored = try Data(contentsOf: URL(fileURLWithPath: checkpoint))
            try FileManager.default.removeItem(atPath: store + "/log")
            let refused = try Self.recount(["--data", store, "ingest", "-"], input: Data(Self.checkin.utf8))
            #expect(refused.status == 1 && refused.errors.contains("no log at \(store)/log, but projections at"))
            #expect(!FileManager.default.fileExists(atPath: store + "/log"), "nothing written")
            #expect(try Data(contentsOf: URL(fileURLWithPath: checkpoint)) == stored)
        }
    }

    /// With `--json` the demo's standard output is JSON lines only: its story as `demo` events.
    @Test
    func theDemoInJSONPrintsJSONLinesOnly() throws {
        try withTemporaryDirectory { directory in
            let demo = try Self.recount(["--data", directory, "--json", "demo"])
            #expect(demo.status == 0)
            let lines = demo.output.split(separator: "\n")
            let objects = lines.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(objects.count == lines.count && lines.count > 50, "\(lines.count - objects.count) lines not JSON")
            #expect(
                objects.contains { $0["event"] as? String == "demo" && $0["text"] as? String == "$ recount verify" })
            #expect(objects.contains { $0["position"] as? Int == 10 && $0["envelope"] is [String: Any] })
        }
    }

    @Test
    func exitStatusesFollowTheContract() throws {
        try withTemporaryDirectory { directory in
            let good =
                #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T00:00:00Z"}"#
            let bad = #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":[],"at":"2026-07-14T00:00:00Z"}"#
            let partly = try Self.recount(
                ["--data", directory, "ingest", "-"], input: Data((good + "\n" + bad + "\n").utf8))
            #expect(partly.status == 3)
            #expect(partly.errors.contains("rejected: -: line 2: metrics must not be empty"))
            #expect(partly.output.contains("appended 1 envelope "))
            #expect(try Self.recount(["--data", directory, "no-such-command"]).status == 2)
            #expect(try Self.recount(["--data", directory, "ingest", directory + "/missing.ndjson"]).status == 1)

            // Damage before the last frame: check exits 4 and names the file and offset (damage in
            // the last frame would read as a torn write and be reported as an uncommitted tail).
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(good.utf8)).status == 0)
            let segment = try FileManager.default.contentsOfDirectory(atPath: directory + "/log").first {
                $0.hasSuffix(".seg")
            }!
            let path = directory + "/log/" + segment
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[50] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let check = try Self.recount(["--data", directory, "--json", "log", "check"])
            #expect(check.status == 4)
            #expect(check.output.contains("\"file\":\"\(path)\",\"offset\":0"))
        }
    }

    /// A write failure part-way (here the file-size limit, as a full disk would) exits 1 after
    /// printing what was appended before it and every rejection so far; the log holds exactly that.
    @Test
    func aFailurePartWayReportsWhatWasAppended() throws {
        try withTemporaryDirectory { directory in
            // Envelopes of random ids (they hardly compress), more than fit in 4 MiB of log.
            var random = SplitMix64(seed: testSeed(7))
            var input = ""
            for envelope in 0..<6000 {
                let samples = (0..<10).map { _ in
                    let id = (0..<12).map { _ in String(random.next(), radix: 16) }.joined()
                    return
                        #"{"id":"\#(id)","type":"steps","start":"2026-07-13T10:00:00Z","value":1,"unit":"count","origin":"o"}"#
                }
                input +=
                    #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T08:00:00Z","provider":"fitbit","samples":["#
                    + samples.joined(separator: ",") + "]}\n"
                if envelope == 5 { input += "not json\n" }
            }
            let file = directory + "/input.ndjson"
            try Data(input.utf8).write(to: URL(fileURLWithPath: file))
            let data = directory + "/data"
            // Writes past 4 MiB fail with EFBIG (SIGXFSZ ignored), as they would on a full disk.
            let run = try Self.shell(
                "ulimit -f 4096; trap '' XFSZ; exec \"$0\" --data \"$1\" ingest \"$2\"", [data, file])
            #expect(run.status == 1)
            #expect(run.errors.contains("rejected: \(file): line 7: $ is not valid JSON"))
            #expect(run.errors.contains("recount: ingest stopped: "), "\(run.errors)")
            let summary = try #require(
                run.output.firstMatch(
                    of:
                        #/appended (\d+) envelopes \(\d+ samples\) at positions 1\.\.<(\d+); rejected 1; stopped by an error/#
                ))
            let appended = try #require(Int(summary.1), "\(run.errors)")
            #expect(appended > 0 && appended < 6000 && Int(summary.2) == appended + 1)
            #expect(try Self.recount(["--data", data, "log", "check"]).output.contains("log ok: \(appended) records"))
        }
    }

    /// Runs `script` in `bash` (whose `ulimit -f` counts KiB) with the `recount` binary as `$0`
    /// and `arguments` as `$1`...
    static func shell(_ script: String, _ arguments: [String]) throws -> Run {
        try run("/bin/bash", ["-c", script, binary] + arguments)
    }

    /// A slow producer's envelopes reach the log while it pauses, before it finishes: the
    /// batch is appended once the input is idle, not held until it fills or the input ends.
    @Test
    func aPausingProducersEnvelopesAreReadableBeforeItFinishes() throws {
        for durability in ["every-batch", "group-commit", "none"] {
            try readableBeforeTheProducerFinishes(durability: durability)
        }
    }

    func readableBeforeTheProducerFinishes(durability: String) throws {
        try withTemporaryDirectory { directory in
            let line =
                #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T00:00:00Z"}"#
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["--data", directory, "ingest", "--durability", durability, "-"]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data((line + "\n" + line + "\n").utf8))
            // The writer pauses: wait (a minute at most, so a regression fails rather than hangs)
            // until a reader sees both envelopes.
            var seen: UInt64 = 0
            for _ in 0..<6000 where seen < 3 {
                if let reader = try? LogReader(directory: directory + "/log") { seen = reader.endPosition }
                if seen < 3 { usleep(10_000) }
            }
            #expect(seen == 3, "--durability \(durability)")
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(try LogReader(directory: directory + "/log").check().records == 3)
        }
    }

    static let checkin =
        #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T00:00:00Z"}"#

    /// Help and version go to standard output with exit 0; `--opt=value` works; an unknown or
    /// repeated option is a usage error that names it; `--` ends the options.
    @Test
    func helpVersionAndOptionSpellings() throws {
        for arguments in [["--help"], ["-h"], ["help"], ["ingest", "--help"], ["log", "check", "-h"]] {
            let help = try Self.recount(arguments)
            #expect(help.status == 0 && help.output.hasPrefix("usage: recount") && help.errors.isEmpty, "\(arguments)")
        }
        let version = try Self.recount(["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("recount "))
        // With `--json`, as every result (it was text).
        let versionJSON = try Self.recount(["--json", "--version"])
        #expect(versionJSON.status == 0 && versionJSON.output.hasPrefix(#"{"version":"0."#))
        try withTemporaryDirectory { directory in
            let file = directory + "/--odd name.ndjson"
            try Data((Self.checkin + "\n \n").utf8).write(to: URL(fileURLWithPath: file))
            let data = directory + "/data"
            let ingested = try Self.recount(["--data=" + data, "--json", "ingest", "--durability=none", "--", file])
            #expect(ingested.status == 0)
            #expect(ingested.output.contains("\"appended\":1,"))
            // The blank line is skipped and counted, as `docs/ingest.md` says (it was not shown).
            #expect(ingested.output.contains("\"blankLines\":1,"))
            // A position past the end says where the log ends (it gave the next position bare).
            let past = try Self.recount(["--data", data, "log", "dump", "--from", "99"])
            #expect(past.status == 1)
            #expect(past.errors.contains("past the end of the log (the next record appended gets 2)"), "\(past.errors)")
            #expect(try Self.recount(["log", "stats", "--data", data]).output.contains("records            1"))

            for (arguments, message) in [
                (["--data", data, "log", "stats", "--frob"], "unknown option --frob"),
                (["--data", data, "--data", data, "log", "stats"], "option --data is given twice"),
                (
                    ["--data", data, "ingest", "--no-recompute", "--no-recompute", file],
                    "option --no-recompute is given twice"
                ),
                (["--data", data, "log", "stats", "--user", "u1"], "unknown option --user for log stats"),
                (["--data", data, "ingest", "--durability", "fast", file], "--durability takes every-batch"),
                (["--data", data, "log", "stats", "--json=yes"], "option --json takes no value"),
                (["--data", data, "log", "stats", "-x"], "unknown option -x"),
                (
                    ["--data", data, "rollups", "--user", "u1", "--metric", "steps", "--from", "0000-12-31"],
                    "--from 0000-12-31 is not a YYYY-MM-DD date in the years 0001–9999"
                ),
                (
                    ["--data", data, "rollups", "--user", "u1", "--metric", "steps", "--as-of", "2026-07-14"],
                    "--as-of 2026-07-14 is not an RFC 3339 date-time"
                ),
                (["--data", data, "stale", "--as-of", "nope"], "--as-of nope is not an RFC 3339 date-time"),
                (
                    ["--data", data, "rollups", "--memory-limit", "abc", "--user", "u1", "--metric", "steps"],
                    "--memory-limit takes a positive number"
                ),
                (["--data", data, "log", "stats", "--memory-limit", "0"], "--memory-limit takes a positive number"),
                (
                    ["--data", data, "cursor", "--user", "u1", "--provider", "b a d", "--metric", "steps"],
                    "\"b a d\" is not a provider name"
                ),
            ] {
                let run = try Self.recount(arguments)
                #expect(run.status == 2 && run.errors.hasPrefix("recount: \(message)"), "\(arguments): \(run.errors)")
            }
        }
    }

    /// A usage mistake shows the usage of the command it was made in, not the whole help: its
    /// own lines, or every `log` command's for `log`, or the first two lines for no command.
    @Test
    func aUsageMistakeShowsThatCommandsUsage() throws {
        for (arguments, shown, notShown) in [
            (
                ["rollups", "--user", "u1"], ["needs --metric", "rollups --user U --metric M", "known, partial"],
                ["dump"]
            ),
            (["import", "fitbit", "x"], ["import fitbit DIR|ZIP", "its local times"], ["apple-health", "rollups"]),
            (
                ["log"], ["log needs a command: dump, check, stats or repair", "log dump", "log repair"],
                ["rollups", "demo", "unknown command"]
            ),
            // Names no envelope can carry, and days before 0001, are refused before any answer.
            (["rollups", "--user", "bad name!", "--metric", "steps"], ["is not a user name"], ["date"]),
            (["replay", "--user", ""], ["--user \"\" is not a user name"], ["rollups"]),
            (["frobnicate"], ["unknown command 'frobnicate'", "usage: recount [--data DIR]"], ["commands:", "dump"]),
            (["--frob"], ["unknown option --frob", "usage: recount [--data DIR]"], ["commands:"]),
            // Mistakes found while reading the options show the command read so far.
            (
                ["rollups", "--metric", "steps", "--metric", "steps"],
                ["option --metric is given twice", "rollups --user U --metric M"], ["dump", "COMMAND ..."]
            ),
            (
                ["samples", "--bogus", "x"], ["unknown option --bogus", "samples --user U"], ["rollups", "COMMAND ..."]
            ),
            // A word too many after a command, and an option where a value belongs, are named.
            (["digest", "extra"], ["digest takes no argument 'extra'", "digest "], ["unknown command"]),
            (
                ["rollups", "--metric", "steps", "--user", "--from", "2026-01-01"],
                ["option --user needs a value", "rollups --user U"], ["unknown command"]
            ),
        ] {
            let run = try Self.recount(arguments)
            #expect(run.status == 2 && run.errors.hasSuffix("run `recount help` for every command and option\n"))
            for text in shown { #expect(run.errors.contains(text), "\(arguments) shows \(text): \(run.errors)") }
            for text in notShown {
                #expect(!run.errors.contains(text), "\(arguments) hides \(text): \(run.errors)")
            }
        }
    }

    /// `--durability` chooses when appended envelopes are fsynced; every mode appends them all.
    @Test
    func durabilityCanBeChosen() throws {
        try withTemporaryDirectory { directory in
            for (index, durability) in ["every-batch", "group-commit", "none"].enumerated() {
                let run = try Self.recount(
                    ["--data", directory, "ingest", "--durability", durability, "-"], input: Data(Self.checkin.utf8))
                #expect(run.status == 0)
                #expect(run.output.contains("at positions \(index + 1)..<\(index + 2)"), "\(durability)")
            }
        }
    }

    /// `stats` counts what the projections hold: days an ingest left dirty are dirty days, not
    /// recomputed first (its `dirtyDays` read 0 whatever was left).
    @Test
    func statsCountsTheDaysLeftDirty() throws {
        try withTemporaryDirectory { directory in
            let line =
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T20:00:00Z","provider":"p","samples":[{"id":"a","type":"steps","start":"2026-07-14T10:00:00Z","end":"2026-07-14T10:30:00Z","value":10,"unit":"count","origin":"o"}]}"#
            let ingest = try Self.recount(
                ["--data", directory, "ingest", "--no-recompute", "-"], input: Data(line.utf8))
            #expect(ingest.status == 0)
            let stats = ["--data", directory, "--json", "stats"]
            #expect(try Self.recount(stats).output.contains(#""rollups":0,"dirtyDays":1}"#))
            #expect(try Self.recount(["--data", directory, "recompute"]).status == 0)
            #expect(try Self.recount(stats).output.contains(#""rollups":1,"dirtyDays":0}"#))
        }
    }

    /// `audit` lists a version's sample ids as a JSON array (joined by spaces, ids `x y` + `z`
    /// and `x` + `y z` read the same), and quotes an id with a space in its table.
    @Test
    func auditListsSampleIdsUnambiguously() throws {
        try withTemporaryDirectory { directory in
            let sample = { (id: String, hour: Int) in
                #"{"id":"\#(id)","type":"steps","start":"2026-07-14T\#(hour):00:00Z","end":"2026-07-14T\#(hour):30:00Z","value":10,"unit":"count","origin":"o"}"#
            }
            let line =
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T20:00:00Z","provider":"p","samples":["#
                + sample("x y", 10) + "," + sample("z", 11) + "]}\n"
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(line.utf8)).status == 0)
            let audit = ["--data", directory, "audit", "--user", "u1", "--metric", "steps", "--day", "2026-07-14"]
            let version = try #require(
                try Self.recount(["--json"] + audit).output.split(separator: "\n").first { $0.contains(#""version","#) }
            )
            #expect(version.hasSuffix(#""added":["x y","z"],"removed":[]}"#), "\(version)")
            #expect(try Self.recount(audit).output.contains(#""x y" z"#))
        }
    }

    /// `audit`'s table counts the samples each version took in and out and lists their ids
    /// below it, wrapped: a delivery of many samples made the table's lines thousands of
    /// characters wide.
    @Test
    func auditListsManySampleIdsBelowItsTable() throws {
        try withTemporaryDirectory { directory in
            let ids = (0..<40).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
            let samples = ids.enumerated().map { minute, id in
                #"{"id":"\#(id)","type":"steps","start":"2026-07-14T10:\#(String(format: "%02d", minute)):00Z","end":"2026-07-14T10:\#(String(format: "%02d", minute)):30Z","value":10,"unit":"count","origin":"o"}"#
            }
            let line =
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T20:00:00Z","provider":"p","samples":["#
                + samples.joined(separator: ",") + "]}\n"
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(line.utf8)).status == 0)
            let output = try Self.recount([
                "--data", directory, "audit", "--user", "u1", "--metric", "steps", "--day", "2026-07-14",
            ]).output
            let lines = output.split(separator: "\n")
            let row = lines.first { $0.hasPrefix("1 ") }?.split(separator: " ")
            #expect(row?.suffix(2) == ["40", "0"], "\(output)")
            #expect(lines.allSatisfy { $0.count <= 100 }, "\(output)")
            let listed = Array(lines.drop { $0 != "samples in and out:" }.dropFirst())
            #expect(listed.first?.hasPrefix("version 1 in  00000000-0000-4000-8000-000000000000 ") == true)
            let words: [Substring] = listed.flatMap { $0.split(separator: " ") }
            let listedIds: [String] = words.filter { $0.count == 36 }.map { String($0) }
            #expect(listedIds == ids)
        }
    }

    /// `audit` reads the day as `rollups` does: a day whose samples were all deleted, and
    /// with no check-in since, is unknown, not a 0 (contract §3 rule 8; an attack run found
    /// `audit` calling it 0 while `rollups` said unknown), and a day with data not yet checked
    /// is partial.
    @Test
    func auditReadsTheDayAsRollupsDoes() throws {
        try withTemporaryDirectory { directory in
            let upsert = { (id: String, day: String) in
                #"{"kind":"samples.upsert","user":"a","receivedAt":"2026-07-03T10:00:00Z","provider":"p","samples":[{"id":"\#(id)","type":"steps","start":"\#(day)T08:00:00Z","end":"\#(day)T09:00:00Z","value":100,"unit":"count","origin":"o"}]}"#
            }
            let delete =
                #"{"kind":"samples.delete","user":"a","receivedAt":"2026-07-03T11:00:00Z","provider":"p","ids":["x"]}"#
            let checkin =
                #"{"kind":"checkin","user":"k","receivedAt":"2026-07-05T00:00:00Z","provider":"p","metrics":["steps"],"at":"2026-07-05T00:00:00Z"}"#
            let lines =
                [upsert("x", "2026-07-01"), delete, upsert("y", "2026-07-02"), checkin].joined(separator: "\n") + "\n"
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(lines.utf8)).status == 0)
            func audit(_ day: String, json: Bool, user: String = "a") throws -> String {
                let arguments = ["--data", directory] + (json ? ["--json"] : [])
                let output = try Self.recount(arguments + ["audit", "--user", user, "--metric", "steps", "--day", day])
                return String(output.output.split(separator: "\n").first ?? "")
            }
            // A known day nothing counted towards is a known 0, in JSON too (it had no value).
            #expect(
                try audit("2026-07-01", json: true, user: "k")
                    == #"{"line":"cell","user":"k","metric":"steps","date":"2026-07-01","state":"known","value":0,"unit":"count","version":null}"#
            )
            #expect(
                try audit("2026-07-01", json: false, user: "k")
                    == "no rollup for 2026-07-01: no sample has counted towards it; known: value 0")
            let unknown = (json: try audit("2026-07-01", json: true), text: try audit("2026-07-01", json: false))
            let partial = (json: try audit("2026-07-02", json: true), text: try audit("2026-07-02", json: false))
            #expect(
                unknown.json
                    == #"{"line":"cell","user":"a","metric":"steps","date":"2026-07-01","state":"unknown","reason":"no_checkin_since_day_end","unit":"count","version":2}"#
            )
            #expect(
                unknown.text
                    == "steps 2026-07-01: unknown (no_checkin_since_day_end), no sample counts towards it (version 2)")
            #expect(
                partial.json
                    == #"{"line":"cell","user":"a","metric":"steps","date":"2026-07-02","state":"partial","value":100,"reason":"no_checkin_since_day_end","unit":"count","version":3}"#
            )
            #expect(partial.text.hasSuffix("(version 3); partial: no_checkin_since_day_end"))
        }
    }

    /// `changes` gives the old reading's reason too: a user the log did not know at VERSION
    /// had never synced (only `oldState` was printed, so `never_synced` could not appear; an
    /// attack run).
    @Test
    func changesGiveTheOldReason() throws {
        try withTemporaryDirectory { directory in
            let lines =
                [
                    #"{"kind":"checkin","user":"a","receivedAt":"2026-07-05T00:00:00Z","provider":"p","metrics":["steps"],"at":"2026-07-05T00:00:00Z"}"#,
                    #"{"kind":"samples.upsert","user":"b","receivedAt":"2026-07-05T00:00:00Z","provider":"p","samples":[{"id":"x","type":"steps","start":"2026-07-04T08:00:00Z","end":"2026-07-04T09:00:00Z","value":5,"unit":"count","origin":"o"}]}"#,
                ].joined(separator: "\n") + "\n"
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(lines.utf8)).status == 0)
            let json = try Self.recount(["--data", directory, "--json", "changes", "--since", "1"]).output
            #expect(
                json
                    == #"{"user":"b","metric":"steps","date":"2026-07-04","version":2,"old":null,"oldState":"unknown","oldReason":"never_synced","new":{"value":5},"state":"partial","reason":"no_checkin_since_day_end"}"#
                    + "\n")
            let table = try Self.recount(["--data", directory, "changes", "--since", "1"]).output
            #expect(table.contains("unknown (never_synced)"), "\(table)")
            // A partial old reading says so in the table too: its figures alone read as known, and
            // the row then showed the same value twice as if nothing had changed (a docs audit).
            let checkin =
                #"{"kind":"checkin","user":"b","receivedAt":"2026-07-06T00:00:00Z","provider":"p","metrics":["steps"],"at":"2026-07-06T00:00:00Z"}"#
            #expect(
                try Self.recount(["--data", directory, "ingest", "-"], input: Data((checkin + "\n").utf8)).status == 0)
            let known = try Self.recount(["--data", directory, "changes", "--since", "2"]).output
            #expect(known.contains("value 5 (partial: no_checkin_since_day_end)  value 5  known"), "\(known)")
        }
    }

    /// Errors are sentences that name the file, never Foundation's `Error Domain=...` dumps.
    @Test
    func errorsAreSentences() throws {
        try withTemporaryDirectory { directory in
            let file = directory + "/file"
            try Data().write(to: URL(fileURLWithPath: file))
            let demo = try Self.recount(["--data", file + "/data", "demo"])
            #expect(demo.status == 1)
            #expect(demo.errors == "recount: cannot write \(file)/data: Not a directory\n")
            let ingestInto = try Self.recount(["--data", file, "ingest", "-"], input: Data(Self.checkin.utf8))
            #expect(ingestInto.status == 1)
            #expect(ingestInto.errors == "recount: cannot write \(file): it is a file, not a directory\n")
            let imported = try Self.recount(["import", "apple-health", directory + "/missing.xml", "--user", "u1"])
            #expect(imported.status == 1)
            #expect(imported.errors == "recount: cannot read \(directory)/missing.xml: No such file or directory\n")

            // Every input is opened first: a missing second file appends nothing from the first.
            let good = directory + "/good.ndjson"
            try Data(Self.checkin.utf8).write(to: URL(fileURLWithPath: good))
            let ingest = try Self.recount([
                "--data", directory + "/data", "ingest", good, directory + "/missing.ndjson",
            ])
            #expect(ingest.status == 1)
            #expect(
                ingest.output.hasPrefix(
                    "appended 0 envelopes (0 samples) at positions none; rejected 0; stopped by an error\n"))
            #expect(
                ingest.errors
                    == "recount: ingest stopped: cannot read \(directory)/missing.ndjson: No such file or directory\n")
        }
    }

    /// Reading a data directory that holds no log is an error, not an empty log, and creates nothing.
    @Test
    func readCommandsOnAMissingLogSaySo() throws {
        try withTemporaryDirectory { directory in
            let data = directory + "/mistyped"
            for command in [["log", "check"], ["log", "stats"], ["log", "dump"]] {
                let run = try Self.recount(["--data", data] + command)
                #expect(run.status == 1 && run.errors == "recount: no log at \(data)/log\n", "\(command)")
                #expect(run.output.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: data))
        }
    }

    /// Tables keep non-ASCII text whole: a device named with an emoji (two UTF-16 units) is
    /// printed as written, and its column is padded by characters.
    @Test
    func tablesPrintNonASCIINamesWhole() throws {
        try withTemporaryDirectory { directory in
            let envelope = #"""
                {"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T10:00:00Z","provider":"fitbit","samples":[{"id":"a","type":"steps","start":"2026-07-13T10:00:00Z","value":5,"unit":"count","origin":"app.é","device":"Pixel 😀"},{"id":"b","type":"steps","start":"2026-07-13T11:00:00Z","value":6,"unit":"count","origin":"app.longer.name","device":"Pixel"}]}
                """#
            let ingested = try Self.recount(["--data", directory, "ingest", "-"], input: Data((envelope + "\n").utf8))
            #expect(ingested.status == 0, "\(ingested.errors)")
            let listed = try Self.recount(
                ["--data", directory, "samples", "--user", "u1", "--metric", "steps", "--day", "2026-07-13"])
            let rows = listed.output.split(separator: "\n").map(String.init)
            #expect(rows.count == 3)
            #expect(rows.contains { $0.contains("app.é            Pixel 😀  fitbit") }, "\(listed.output)")
        }
    }

    /// `samples` gives each value with its unit, the metric's, and as written when that was
    /// another unit (170 lb showed as a bare 77.11); `cursor` for a channel that never synced
    /// answers that it has none (it exited 1, a runtime failure).
    @Test
    func queriesAnswerWithUnitsAndWithNoCursor() throws {
        try withTemporaryDirectory { directory in
            let envelope =
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T10:00:00Z","provider":"withings","samples":[{"id":"a","type":"weight","start":"2026-07-13T07:00:00Z","value":170,"unit":"lb","origin":"com.withings"},{"id":"b","type":"weight","start":"2026-07-13T19:00:00Z","value":77,"unit":"kg","origin":"com.withings"}]}"#
            let ingested = try Self.recount(["--data", directory, "ingest", "-"], input: Data((envelope + "\n").utf8))
            #expect(ingested.status == 0, "\(ingested.errors)")
            let query = ["--data", directory, "samples", "--user", "u1", "--metric", "weight", "--day", "2026-07-13"]
            let table = try Self.recount(query).output
            #expect(table.contains("77.1107029 kg (170 lb)") && table.contains("77 kg "), "\(table)")
            #expect(try Self.recount(["--json"] + query).output.contains(#""value":77,"unit":"kg","#))
            // A channel that never synced has no cursor: an answer, not a failure.
            let cursor = try Self.recount([
                "--data", directory, "--json", "cursor", "--user", "u1", "--provider", "healthkit", "--metric", "steps",
            ])
            #expect(cursor.status == 0)
            #expect(
                cursor.output
                    == #"{"user":"u1","provider":"healthkit","metric":"steps","cursor":null,"state":"none"}"# + "\n")
            // A channel's cursor as a table: its values as the other tables show them (they
            // were JSON, quoted).
            let expired =
                #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-14T10:00:00Z","recordTypes":["Steps"],"token":"t1","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":true,"changes":[]}"#
            #expect(
                try Self.recount(["--data", directory, "ingest", "-"], input: Data((expired + "\n").utf8)).status == 0)
            let rows = try Self.recount([
                "--data", directory, "cursor", "--user", "u1", "--provider", "health_connect", "--metric", "steps",
            ]).output.split(separator: "\n").map(String.init)
            #expect(rows.contains("user                    u1"), "\(rows)")
            #expect(rows.contains("cursor                  t2"), "\(rows)")
            #expect(rows.contains("lastSampleAt            -"), "\(rows)")
            #expect(rows.contains { $0.hasPrefix("recoveryWindows         20") && $0.contains(" to ") }, "\(rows)")
        }
    }

    /// A read-only command that finds the checkpoint damaged says so, as a writer does: it said
    /// nothing, and `stats` showed its own fold of the log (no rollups, every day dirty) as
    /// the store's (an attack run, 2026-12-06). The next writer rebuilds it, and then no
    /// reader has anything to say.
    @Test
    func aReaderSaysWhenItReadsTheLogForADamagedCheckpoint() throws {
        try withTemporaryDirectory { directory in
            let samples = (0..<40).map {
                #"{"id":"s\#($0)","type":"steps","start":"2026-07-13T10:\#(10 + $0):00Z","end":"2026-07-13T10:\#(11 + $0):00Z","value":\#($0),"unit":"count","origin":"com.phone"}"#
            }
            let upsert =
                #"{"kind":"samples.upsert","user":"u1","provider":"fitbit","receivedAt":"2026-07-14T00:00:00Z","samples":[\#(samples.joined(separator: ","))]}"#
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(upsert.utf8)).status == 0)
            let checkpoint = directory + "/projections/checkpoint"
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: checkpoint)))
            bytes[bytes.count / 2] ^= 0x40
            try Data(bytes).write(to: URL(fileURLWithPath: checkpoint))
            func notices(_ command: [String]) throws -> [String] {
                let run = try Self.recount(["--json", "--data", directory] + command)
                #expect(run.status == 0, "\(command): \(run.errors)")
                return try run.errors.split(separator: "\n").map {
                    let event = try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                    return "\(event["event"] ?? "") \(event["reason"] ?? "")"
                }
            }
            #expect(try notices(["stats"]) == ["ignored damaged"])
            #expect(try notices(["dirty"]) == ["ignored damaged"])
            #expect(try notices(["recompute"]) == ["rebuilt damaged"])
            #expect(try notices(["stats"]) == [])
        }
    }

    /// With `--json`, errors, rejections and recovery notices are JSON lines on standard error.
    @Test
    func withJSONEveryMessageIsAJSONLine() throws {
        func events(_ errors: String) throws -> [[String: Any]] {
            try errors.split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
            }
        }
        try withTemporaryDirectory { directory in
            let missing = try Self.recount(["--json", "--data", directory + "/none", "log", "check"])
            #expect(missing.status == 1)
            let error = try events(missing.errors)
            #expect(error.count == 1 && error[0]["event"] as? String == "error" && error[0]["exit"] as? Int == 1)
            #expect(error[0]["message"] as? String == "no log at \(directory)/none/log")

            let usage = try events(try Self.recount(["--json", "--frob"]).errors)
            #expect(
                usage.count == 1 && usage[0]["message"] as? String == "unknown option --frob"
                    && usage[0]["exit"] as? Int == 2)

            let ingest = try Self.recount(
                ["--json", "--data", directory, "ingest", "-"], input: Data((Self.checkin + "\nnot json\n").utf8))
            #expect(ingest.status == 3)
            let rejected = try events(ingest.errors)
            #expect(rejected.count == 1 && rejected[0]["event"] as? String == "rejected")
            #expect(rejected[0]["source"] as? String == "-" && rejected[0]["line"] as? Int == 2)
            #expect(rejected[0]["path"] as? String == "$" && rejected[0]["code"] as? String == "invalidJSON")

            // A third frame that a crash left with only part of its header written, after the
            // committed ones: the next writer cuts it off and says so.
            #expect(try Self.recount(["--data", directory, "ingest", "-"], input: Data(Self.checkin.utf8)).status == 0)
            let segment = try #require(
                try FileManager.default.contentsOfDirectory(atPath: directory + "/log").first { $0.hasSuffix(".seg") })
            func tear() throws {
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: directory + "/log/" + segment))
                let header = try #require(try handle.read(upToCount: 20))
                try handle.seekToEnd()
                try handle.write(contentsOf: header + Data(count: 1000))
                try handle.close()
            }
            try tear()
            let recovered = try events(
                try Self.recount(["--json", "--data", directory, "ingest", "-"], input: Data(Self.checkin.utf8)).errors)
            #expect(recovered.count == 1 && recovered[0]["event"] as? String == "recovered", "\(recovered)")
            #expect(recovered[0]["position"] as? Int == 3)
            // Every command that opens the log for writing says so, not ingest alone.
            try tear()
            let recomputed = try Self.recount(["--json", "--data", directory, "recompute"])
            #expect(recomputed.status == 0, "\(recomputed.errors)")
            #expect(try events(recomputed.errors).map { $0["event"] as? String } == ["recovered"])
            // `verify` reads the committed log only: it names the torn tail and leaves it.
            try tear()
            for _ in 0..<2 {
                let verified = try Self.recount(["--json", "--data", directory, "verify"])
                #expect(verified.status == 0 && verified.errors.isEmpty, "\(verified.errors)")
                let line = try #require(
                    try JSONSerialization.jsonObject(with: Data(verified.output.utf8)) as? [String: Any])
                #expect(line["ok"] as? Bool == true)
                #expect((line["uncommittedTail"] as? String)?.isEmpty == false, "\(line)")
            }

            // Damage to a committed frame is an error line with exit 4.
            let damagedHandle = try FileHandle(forUpdating: URL(fileURLWithPath: directory + "/log/" + segment))
            try damagedHandle.seek(toOffset: 45)
            try damagedHandle.write(contentsOf: Data([0xFF]))
            try damagedHandle.close()
            let damaged = try Self.recount(["--json", "--data", directory, "log", "dump"])
            #expect(damaged.status == 4)
            let damage = try events(damaged.errors)
            #expect(damage.count == 1 && damage[0]["exit"] as? Int == 4, "\(damage)")
        }
    }
}
