import Foundation
import Recount
import RecountLog

/// `recount ingest FILE... | -`: appends the envelopes of NDJSON inputs to the log.
enum IngestCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        // `--no-recompute` (contract §4) is accepted; there are no projections to recompute yet.
        try invocation.allowOnly(["no-recompute"])
        let inputs = Array(invocation.words.dropFirst())
        guard !inputs.isEmpty else { throw UsageError(message: "ingest needs FILE... or - for standard input") }
        let engine = try RecountEngine(directory: invocation.dataDirectory)
        defer { try? engine.close() }
        if let torn = engine.recovery {
            Output.standardError("recount: recovered the log: cut a torn frame of \(torn)\n")
        }
        var report = IngestReport()
        for input in inputs {
            var reported = 0
            let done = report
            report.merge(
                try engine.ingest(file: input) { sofar in
                    // A line per million samples, so long inputs show they are moving.
                    guard (done.samples + sofar.samples) / 1_000_000 > reported else { return }
                    reported = (done.samples + sofar.samples) / 1_000_000
                    Output.standardError(
                        "recount: \(input): \(done.appended + sofar.appended) envelopes, "
                            + "\(done.samples + sofar.samples) samples appended\n")
                })
        }
        try engine.sync()
        for rejection in report.rejected { Output.standardError("rejected: \(rejection)\n") }
        let range = report.positions.map { "\($0.lowerBound)..<\($0.upperBound)" } ?? "none"
        if invocation.json {
            let first: Output.Value = report.positions.map { .int(Int64($0.lowerBound)) } ?? .null
            let end: Output.Value = report.positions.map { .int(Int64($0.upperBound)) } ?? .null
            Output.jsonLine([
                ("appended", .int(Int64(report.appended))), ("rejected", .int(Int64(report.rejected.count))),
                ("samples", .int(Int64(report.samples))), ("firstPosition", first), ("endPosition", end),
            ])
        } else {
            print(
                "appended \(report.appended) envelopes (\(report.samples) samples) at positions \(range); rejected \(report.rejected.count)"
            )
        }
        return report.rejected.isEmpty ? .success : .someInputRejected
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
        let user = invocation.options["user"]
        let reader = try LogReader(directory: invocation.logDirectory)
        var out = ""
        // Records read before damage are printed before the damage is reported.
        defer { FileHandle.standardOutput.write(Data(out.utf8)) }
        try reader.forEach(from: max(from, reader.snapshot.startPosition)) { record in
            if let user, !EnvelopeCodec.record(record.bytes, isFor: user) { return }
            let envelope: Envelope
            do { envelope = try EnvelopeCodec.decode(record.bytes) } catch {
                throw DumpError(position: record.position, reason: "\(error)")
            }
            out += "{\"position\":\(record.position),\"envelope\":\(EnvelopeJSON.string(envelope))}\n"
            if out.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out = ""
            }
        }
        return .success
    }

    struct DumpError: Error, CustomStringConvertible {
        var position: UInt64
        var reason: String
        var description: String { "log record \(position) is not an envelope: \(reason)" }
    }
}
