import Foundation
import TestSupport
import Testing

/// The `recount` binary end to end: import an Apple Health export, ingest it, dump and check
/// the log, and the exit statuses of the contract.
@Suite struct CommandLineTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("recount").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("RecountImportTests/Fixtures")

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func recount(_ arguments: [String], input: Data? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: binary), "build the recount product first (swift build)"))
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
        }
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: binary), "build the recount product first (swift build)"))
    func theDemoIngestsItsExampleDayAndChecksTheLog() throws {
        try withTemporaryDirectory { directory in
            let demo = try Self.recount(["--data", directory, "demo"])
            #expect(demo.status == 0)
            #expect(demo.output.contains("appended 6 envelopes (5 samples) at positions 1..<7; rejected 1"))
            #expect(demo.output.contains("log ok: 6 records"))
            #expect(demo.errors.contains("line 6: samples[0].unit is not a unit of weight (stone)"))
        }
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: binary), "build the recount product first (swift build)"))
    func exitStatusesFollowTheContract() throws {
        try withTemporaryDirectory { directory in
            let good =
                #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T00:00:00Z"}"#
            let bad = #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":[],"at":"2026-07-14T00:00:00Z"}"#
            let partly = try Self.recount(
                ["--data", directory, "ingest", "-"], input: Data((good + "\n" + bad + "\n").utf8))
            #expect(partly.status == 3)
            #expect(partly.errors.contains("rejected: -: line 2: metrics must not be empty"))
            #expect(partly.output.contains("appended 1 envelopes"))
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
}
