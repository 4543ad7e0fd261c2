import Foundation
import Recount
import RecountLog

/// `recount ingest FILE... | -`: appends the envelopes of NDJSON inputs to the log.
enum IngestCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["no-recompute", "durability"])
        let inputs = Array(invocation.words.dropFirst())
        guard !inputs.isEmpty else { throw UsageError(message: "ingest needs FILE... or - for standard input") }
        let durability = try Self.durability(invocation.options["durability"] ?? "every-batch")
        try invocation.createDataDirectory()
        let engine = try RecountEngine(
            directory: invocation.dataDirectory, durability: durability, memoryLimit: invocation.memoryLimit(),
            progress: ProjectionCommands.progress(invocation))
        Output.opened(engine, json: invocation.json)
        var reported = 0
        var report: IngestReport
        var failure: (any Error)? = nil
        do {
            report = try engine.ingest(
                files: inputs, recompute: invocation.options["no-recompute"] == nil,
                rejected: { Output.rejection($0, json: invocation.json) },
                progress: { sofar in
                    // A line per million samples, so long inputs show they are moving.
                    guard sofar.samples / 1_000_000 > reported else { return }
                    reported = sofar.samples / 1_000_000
                    Output.notice(
                        "\(sofar.appended) envelopes, \(sofar.samples) samples appended", event: "progress",
                        [("appended", .int(Int64(sofar.appended))), ("samples", .int(Int64(sofar.samples)))],
                        json: invocation.json)
                })
        } catch {
            report = error.report
            failure = error.error
        }
        // Closing syncs: what the summary calls appended is durable once it is printed.
        do { try engine.close() } catch { failure = failure ?? error }
        Output.closed(engine, json: invocation.json)
        let range = report.positions.map { "\($0)" } ?? "none"
        if invocation.json {
            let first: Output.Value = report.positions.map { .int(Int64($0.lowerBound)) } ?? .null
            let end: Output.Value = report.positions.map { .int(Int64($0.upperBound)) } ?? .null
            Output.jsonLine([
                ("appended", .int(Int64(report.appended))), ("rejected", .int(Int64(report.rejectedLines))),
                ("samples", .int(Int64(report.samples))), ("firstPosition", first), ("endPosition", end),
                ("newSamples", .int(Int64(report.newSamples))), ("knownSamples", .int(Int64(report.knownSamples))),
                ("replacedSamples", .int(Int64(report.replacedSamples))),
                ("deletedSamples", .int(Int64(report.deletedSamples))),
                ("daysDirtied", .int(Int64(report.daysDirtied))),
                ("daysRecomputed", .int(Int64(report.daysRecomputed))),
                ("blankLines", .int(Int64(report.blankLines))), ("complete", .bool(failure == nil)),
                (
                    "stoppedAt",
                    report.stoppedAt.map {
                        .raw(Output.json([("source", .string($0.source)), ("line", .int(Int64($0.line)))]))
                    } ?? .null
                ),
            ])
        } else {
            print(
                "appended \(report.appended.counted("envelope")) (\(report.samples.counted("sample"))) at positions \(range); "
                    + "rejected \(report.rejectedLines)"
                    + (report.blankLines == 0 ? "" : "; skipped \(report.blankLines.counted("blank line"))")
                    + (failure == nil ? "" : "; stopped by an error")
                    + (report.stoppedAt.map { " at \($0)" } ?? ""))
            print(
                "samples: \(report.newSamples) new, \(report.knownSamples) already known, "
                    + "\(report.replacedSamples) replaced, \(report.deletedSamples) deleted; "
                    + "days dirtied \(report.daysDirtied), recomputed \(report.daysRecomputed)")
        }
        if let failure {
            Output.failure(
                "ingest stopped: \(Output.sentence(for: failure))\(resending(report, after: failure))",
                status: .failure, json: invocation.json)
            return .failure
        }
        return report.rejectedLines == 0 ? .success : .someInputRejected
    }

    /// What an ingest stopped by `failure` leaves to send again (a line sent twice changes
    /// nothing): the input from where it stopped, or all of it when a sync failed once it was
    /// read; and the positions a failed sync left open.
    private static func resending(_ report: IngestReport, after failure: any Error) -> String {
        let unsynced = (failure as? LogError)?.unsynced
        let open =
            unsynced.map {
                " (positions \($0) were written but not synced: the log keeps them "
                    + "if they reached the disk whole)"
            } ?? ""
        if let stoppedAt = report.stoppedAt {
            let stored = unsynced == nil ? "was appended" : "is known to be stored"
            return "; nothing from \(stoppedAt) on \(stored)\(open): send the input again from there"
        }
        return unsynced == nil ? "" : "; what was appended may not be on disk\(open): send the input again"
    }

    /// The log durability `--durability` names.
    static func durability(_ name: String) throws(UsageError) -> LogConfiguration.Durability {
        switch name {
        case "every-batch": .everyBatch
        case "group-commit": .groupCommit(maxBytes: 8 << 20, maxDelay: .milliseconds(200))
        case "none": LogConfiguration.Durability.none
        default: throw UsageError(message: "--durability takes every-batch, group-commit or none, not '\(name)'")
        }
    }
}

/// `recount log dump [--from POS] [--user U]`: the log's envelopes as NDJSON with their positions.
enum DumpCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["from", "user"])
        let from =
            try invocation.options["from"].map { text -> UInt64 in
                guard let value = UInt64(text) else { throw UsageError(message: "--from needs a log position") }
                return value
            } ?? Log.firstPosition
        let user = try invocation.user()
        let reader = try RecountEngine.logReader(directory: invocation.dataDirectory)
        var out = ""
        do {
            try RecountEngine.forEachEnvelope(in: reader, from: from, user: user) { position, envelope in
                out += "{\"position\":\(position),\"envelope\":\(EnvelopeJSON.string(envelope))}\n"
                if out.utf8.count > 1 << 16 {
                    try StandardStream.writeOutput(out)
                    out = ""
                }
            }
        } catch {
            // Records read before damage are printed before the damage is reported.
            if !(error is StandardStream.WriteError) { try? StandardStream.writeOutput(out) }
            throw error
        }
        try StandardStream.writeOutput(out)
        return .success
    }
}
