import Foundation
import Recount
import RecountLog

/// `recount demo`: writes a small day of envelopes of every kind to `DIR/demo.ndjson` (one line
/// broken on purpose), ingests it into the data directory, shows what the log holds, and
/// answers questions from the projections: days of rollups, one day's per-source explanation,
/// and `verify`. Then it does the same with two generated weeks of five users
/// (`DIR/demo-weeks.ndjson`, see `DemoWorkload`).
///
/// It runs in an empty data directory or one it ran in before: its envelopes include a `*`
/// `config.sources`, which would rank the sources of every user of a real store.
enum DemoCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let input = invocation.dataDirectory + "/demo.ndjson"
        try refuseAStoreItDidNotWrite(invocation)
        try Data(envelopes.utf8).write(to: URL(fileURLWithPath: input))
        let json = invocation.json
        narrate(
            "wrote \(input): \(envelopes.split(separator: "\n").count) envelopes, the sixth broken on purpose\n", json)

        narrate("$ recount ingest \(input)", json)
        var ingest = invocation
        ingest.words = ["ingest", input]
        let ingestStatus = try IngestCommand.run(ingest)
        narrate(
            ingestStatus == .someInputRejected
                ? "(exit 3: a line was rejected, the rest applied)\n" : "(exit \(ingestStatus.rawValue))\n", json)

        narrate("$ recount log stats", json)
        _ = try LogCommands.stats(invocation)
        narrate("\n$ recount log check", json)
        let checkStatus = try LogCommands.check(invocation)
        narrate("\n$ recount log dump (last two envelopes)", json)
        let reader = try RecountEngine.logReader(directory: invocation.dataDirectory)
        try RecountEngine.forEachEnvelope(in: reader, from: reader.endPosition > 2 ? reader.endPosition - 2 : 0) {
            position, envelope in
            if json {
                Output.jsonLine([
                    ("position", .int(Int64(position))), ("envelope", .raw(EnvelopeJSON.string(envelope))),
                ])
            } else {
                print("\(position): \(EnvelopeJSON.string(envelope))")
            }
        }
        let questions: [[String]] = [
            ["rollups", "--user", "alice", "--metric", "steps", "--from", "2026-07-13", "--to", "2026-07-16"],
            ["rollups", "--user", "alice", "--metric", "sleep"],
            ["rollups", "--user", "bob", "--metric", "steps", "--from", "2026-07-14", "--to", "2026-07-15"],
            ["audit", "--user", "alice", "--metric", "steps", "--day", "2026-07-14"],
            ["audit", "--user", "alice", "--metric", "sleep", "--day", "2026-07-14"],
            ["cursor", "--user", "alice", "--provider", "healthkit", "--metric", "steps"],
            ["cursor", "--user", "bob", "--provider", "health_connect", "--metric", "steps"],
            ["verify"],
        ]
        var status = try ask(questions, invocation) ?? checkStatus

        let weeks = invocation.dataDirectory + "/demo-weeks.ndjson"
        let workload = DemoWorkload.ndjson
        try Data(workload.utf8).write(to: URL(fileURLWithPath: weeks))
        narrate(
            "\nwrote \(weeks): \(workload.split(separator: "\n").count) envelopes, two weeks of five users "
                + "(a silent weekend, a reinstall, a revised night, a deletion, an expired token)\n", json)
        narrate("$ recount ingest \(weeks)", json)
        ingest.words = ["ingest", weeks]
        if try IngestCommand.run(ingest) != .success { status = .failure }
        status =
            try ask(
                [
                    ["rollups", "--user", "u1", "--metric", "steps", "--from", "2026-07-13", "--to", "2026-07-19"],
                    [
                        "rollups", "--user", "u2", "--metric", "steps", "--from", "2026-07-16", "--to", "2026-07-19",
                        "--as-of", "2026-07-20T03:00:00-07:00",
                    ],
                    ["rollups", "--user", "u5", "--metric", "steps", "--from", "2026-07-14", "--to", "2026-07-17"],
                    ["audit", "--user", "u4", "--metric", "sleep", "--day", "2026-07-15"],
                    ["cursor", "--user", "u3", "--provider", "healthkit", "--metric", "steps"],
                    ["stats"],
                    ["verify"],
                ], invocation) ?? status
        return status
    }

    /// Refuses, before writing anything, a data directory whose log holds an envelope the demo
    /// does not write (read record by record, so a real store's first record decides), and one a
    /// writer refuses (stored projections without their log). Its example envelopes (a default
    /// source ranking for every user among them) would change a real store's answers.
    private static func refuseAStoreItDidNotWrite(_ invocation: Invocation) throws {
        if FileManager.default.fileExists(atPath: invocation.logDirectory) {
            let own = Set(ownEnvelopes())
            struct Foreign: Error {}
            do {
                try RecountEngine.forEachEnvelope(
                    in: try RecountEngine.logReader(directory: invocation.dataDirectory), from: 0
                ) {
                    _, envelope in
                    guard own.contains(EnvelopeJSON.string(envelope)) else { throw Foreign() }
                }
            } catch is Foreign {
                throw CommandError(
                    "\(invocation.dataDirectory) holds a log the demo did not write; its example envelopes "
                        + "(a default source ranking for every user among them) would change that store's answers: "
                        + "run it in a directory of its own (recount --data DIR demo)")
            }
        }
        try RecountEngine.refuseProjectionsWithoutLog(invocation.dataDirectory)
        try invocation.createDataDirectory()
    }

    /// The envelopes the demo ingests, as the log gives them back (`EnvelopeJSON`); every one
    /// carries its `receivedAt`, so a second run logs them alike.
    private static func ownEnvelopes() -> [String] {
        let decoder = EnvelopeDecoder()
        return (envelopes + "\n" + DemoWorkload.ndjson).split(separator: "\n").compactMap { line in
            let input = Array(line.utf8).withUnsafeBytes { try? decoder.decode(line: $0, number: 1) }
            return input.map { EnvelopeJSON.string($0) }
        }
    }

    /// Prints a line of the demo's story; with `--json` as a JSON line (`"event":"demo"`), so
    /// that standard output holds JSON lines only.
    static func narrate(_ text: String, _ json: Bool) {
        if json {
            Output.jsonLine([("event", .string("demo")), ("text", .string(text.trimmingCharacters(in: .newlines)))])
        } else {
            print(text)
        }
    }

    /// Runs each command as `recount` would, printing it first; returns the last failing status.
    static func ask(_ questions: [[String]], _ invocation: Invocation) throws -> ExitStatus? {
        var failed: ExitStatus? = nil
        for words in questions {
            narrate("\n$ recount \(words.joined(separator: " "))", invocation.json)
            let asked = try Invocation(
                ["--data", invocation.dataDirectory] + (invocation.json ? ["--json"] : []) + words)
            let answered = Commands.run(asked)
            if answered != .success { failed = answered }
        }
        return failed
    }

    /// Alice's iPhone and Apple Watch counting the same walk, her night of sleep revised,
    /// a reinstall that re-delivers her steps from a nil anchor; Bob's Health Connect page
    /// with a deletion, a Fitbit upsert, a check-in, a bad sample, and a changes token that
    /// expires; config.
    static let envelopes = """
        {"kind":"config.sources","user":"*","receivedAt":"2026-07-14T06:00:00Z","metric":"steps","priority":["com.apple.health.watch","com.apple.health.phone"]}
        {"kind":"healthkit.delivery","user":"alice","receivedAt":"2026-07-14T07:15:02Z","type":"HKQuantityTypeIdentifierStepCount","anchor":null,"newAnchor":"YW5jaG9yLTE=","added":[{"id":"8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-13T23:50:00-07:00","end":"2026-07-14T00:10:00-07:00","timeZone":"America/Los_Angeles","value":400,"unit":"count","origin":"com.apple.health.watch","device":"Apple Watch"},{"id":"8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0002","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-14T07:00:00-07:00","end":"2026-07-14T07:10:00-07:00","value":812,"unit":"count","origin":"com.apple.health.phone","device":"iPhone"},{"id":"8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0003","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-14T07:02:00-07:00","end":"2026-07-14T07:12:00-07:00","value":900,"unit":"count","origin":"com.apple.health.watch","device":"Apple Watch"}],"deleted":[]}
        {"kind":"healthkit.delivery","user":"alice","receivedAt":"2026-07-14T14:20:00Z","type":"sleep","anchor":"YW5jaG9yLTE=","newAnchor":"YW5jaG9yLTI=","added":[{"id":"5B0C1D2E-0000-4000-8000-000000000009","type":"HKCategoryTypeIdentifierSleepAnalysis","start":"2026-07-14T00:20:00-07:00","end":"2026-07-14T06:40:00-07:00","stage":"asleep","origin":"com.apple.health.watch","device":"Apple Watch"}],"deleted":[]}
        {"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-14T08:00:00+02:00","recordTypes":["StepsRecord"],"token":"t-41","nextChangesToken":"t-42","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"hc-1","type":"Steps","start":"2026-07-14T07:00:00+02:00","end":"2026-07-14T07:30:00+02:00","value":2100,"unit":"count","origin":"com.google.android.apps.fitness","lastModified":"2026-07-14T07:31:00+02:00"}},{"deletion":{"recordId":"hc-0"}}]}
        {"kind":"samples.upsert","user":"bob","receivedAt":"2026-07-14T09:00:00Z","provider":"fitbit","samples":[{"id":"fb-9","type":"heart_rate","start":"2026-07-14T08:59:00+02:00","value":71,"unit":"bpm","origin":"com.fitbit.versa3"}]}
        {"kind":"samples.upsert","user":"bob","provider":"fitbit","samples":[{"id":"fb-10","type":"weight","start":"2026-07-14T09:00:00+02:00","value":81.5,"unit":"stone","origin":"com.fitbit.aria"}]}
        {"kind":"checkin","user":"bob","receivedAt":"2026-07-15T00:30:00Z","provider":"fitbit","metrics":["steps","heart_rate"],"at":"2026-07-15T00:29:58Z"}
        {"kind":"healthkit.delivery","user":"alice","receivedAt":"2026-07-14T19:02:11Z","type":"sleep","anchor":"YW5jaG9yLTI=","newAnchor":"YW5jaG9yLTM=","added":[{"id":"5B0C1D2E-0000-4000-8000-000000000010","type":"HKCategoryTypeIdentifierSleepAnalysis","start":"2026-07-13T23:45:00-07:00","end":"2026-07-14T06:40:00-07:00","stage":"asleep","origin":"com.apple.health.watch","device":"Apple Watch"}],"deleted":[{"uuid":"5B0C1D2E-0000-4000-8000-000000000009"}]}
        {"kind":"healthkit.delivery","user":"alice","receivedAt":"2026-07-15T18:30:00Z","type":"HKQuantityTypeIdentifierStepCount","anchor":null,"newAnchor":"YW5jaG9yLTQ=","added":[{"id":"8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0002","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-14T07:00:00-07:00","end":"2026-07-14T07:10:00-07:00","value":812,"unit":"count","origin":"com.apple.health.phone","device":"iPhone"},{"id":"8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0004","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-15T09:00:00-07:00","end":"2026-07-15T09:40:00-07:00","value":3100,"unit":"count","origin":"com.apple.health.watch","device":"Apple Watch"}],"deleted":[]}
        {"kind":"checkin","user":"alice","receivedAt":"2026-07-15T18:31:00Z","provider":"healthkit","metrics":["sleep"],"at":"2026-07-15T18:31:00Z"}
        {"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-20T07:00:00Z","recordTypes":["StepsRecord"],"token":"t-42","nextChangesToken":"t-60","hasMore":false,"changesTokenExpired":true,"changes":[]}
        """
}
