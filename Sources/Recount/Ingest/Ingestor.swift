package import RecountLog

/// Appends validated envelopes from NDJSON input to the log, envelope by envelope atomically:
/// a rejected line changes nothing, the valid lines around it go through.
package struct Ingestor {
    private let log: Log
    private let decoder = EnvelopeDecoder()
    /// The clock that stamps `receivedAt` when a client left it out (never read by folding).
    private let now: () -> Instant
    /// Envelopes per appended batch (one log frame).
    private let batchSize: Int

    package init(log: Log, batchSize: Int = 1000, now: @escaping () -> Instant) {
        self.log = log
        self.batchSize = batchSize
        self.now = now
    }

    /// Reads every line of `input`, appending what is valid; returns what happened.
    ///
    /// - Parameter progress: called after each appended batch with the report so far (long
    ///   inputs take minutes; the CLI prints a line every million samples).
    package func ingest(
        _ input: LineReader, source: String, progress: ((IngestReport) -> Void)? = nil
    ) throws -> IngestReport {
        var report = IngestReport()
        var batch = LogBatch()
        var record: [UInt8] = []
        var pendingSamples = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            let positions = try log.append(batch)
            report.note(positions: positions)
            report.appended += batch.count
            report.samples += pendingSamples
            batch.removeAll()
            pendingSamples = 0
            progress?(report)
        }
        while let outcome = try input.next(
            limit: EnvelopeLimits.lineBytes,
            { line -> LineOutcome in
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .blank }
                do throws(IngestError) {
                    return .accepted(try decoder.decode(line: line, number: input.lineNumber))
                } catch {
                    return .rejected(error)
                }
            })
        {
            switch outcome {
            case .blank: report.blankLines += 1
            case .rejected(let error): report.rejected.append(IngestRejection(source: source, error: error))
            case .accepted(let input):
                let envelope = input.stamped(at: now())
                record.removeAll(keepingCapacity: true)
                EnvelopeCodec.encode(envelope, into: &record)
                record.withUnsafeBytes { batch.append($0) }
                pendingSamples += envelope.samples.count
                if batch.count >= batchSize { try flush() }
            }
        }
        try flush()
        return report
    }
}

/// What became of one input line.
private enum LineOutcome {
    case blank
    case rejected(IngestError)
    case accepted(EnvelopeInput)
}

/// A line that was rejected, with the input it came from.
public struct IngestRejection: Sendable, CustomStringConvertible {
    /// The input's name (its path, `-`, or what the caller called it).
    public var source: String
    /// The line, JSON path and reason.
    public var error: IngestError
    /// `FILE: line N: PATH REASON`.
    public var description: String { "\(source): \(error)" }
}

/// What one ingest did.
public struct IngestReport: Sendable {
    /// Envelopes appended to the log.
    public package(set) var appended = 0
    /// Samples in the appended envelopes.
    public package(set) var samples = 0
    /// Whitespace-only lines, skipped.
    public package(set) var blankLines = 0
    /// Lines rejected, in input order.
    public package(set) var rejected: [IngestRejection] = []
    /// The log positions the appended envelopes got.
    public package(set) var positions: Range<UInt64>?

    /// An empty report.
    public init() {}

    mutating func note(positions new: Range<UInt64>) {
        positions = positions.map { $0.lowerBound..<new.upperBound } ?? new
    }

    /// Adds another input's report.
    public mutating func merge(_ other: IngestReport) {
        appended += other.appended
        samples += other.samples
        blankLines += other.blankLines
        rejected += other.rejected
        if let new = other.positions { note(positions: new) }
    }
}
