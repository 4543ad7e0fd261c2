package import RecountLog

/// Appends validated envelopes from NDJSON input to the log, envelope by envelope atomically:
/// a rejected line changes nothing, the valid lines around it go through.
///
/// Valid envelopes are gathered into batches, each appended as one log frame. A batch is
/// appended when it holds `batchSize` envelopes, when the next record would take it past the
/// frame limit, when the input has been idle for `linger.idle`, when it is `linger.maxAge`
/// old, and at the end of the input. So a slow producer's envelopes reach the log without
/// waiting for the batch to fill.
package struct Ingestor {
    /// How long a batch may wait for more input before it is appended.
    package struct Linger: Sendable {
        /// Append once no input arrived for this long.
        package var idle: Duration
        /// Append once the batch's first envelope waited this long, however the input trickles.
        package var maxAge: Duration

        /// The engine's: 50 ms idle, 1 s at most.
        package static let standard = Linger(idle: .milliseconds(50), maxAge: .seconds(1))

        package init(idle: Duration, maxAge: Duration) {
            self.idle = idle
            self.maxAge = maxAge
        }
    }

    /// The raw bytes one log frame holds (`Log.maximumBatchBytes`, 64 MiB).
    package static let frameBytes = Log.maximumBatchBytes

    private let log: Log
    private let decoder = EnvelopeDecoder()
    /// Stamps `receivedAt` when a client left it out (never read by folding).
    private let clock: ReceiptClock
    /// Envelopes per appended batch at most.
    private let batchSize: Int
    /// Bytes per appended batch at most, length prefixes included.
    private let batchBytes: Int
    private let linger: Linger

    /// - Parameters:
    ///   - batchBytes: the most bytes one batch holds; a record that cannot fit alone is rejected.
    ///   - clock: stamps a missing `receivedAt`.
    package init(
        log: Log, batchSize: Int = 1000, batchBytes: Int = Ingestor.frameBytes, linger: Linger = .standard,
        clock: ReceiptClock
    ) {
        self.log = log
        self.batchSize = batchSize
        self.batchBytes = batchBytes
        self.linger = linger
        self.clock = clock
    }

    /// Reads every line of `input`, appending what is valid, and adds what happened to `report`.
    ///
    /// When this throws, `report` holds everything appended and rejected before the failure,
    /// and where to resume (`IngestReport.stoppedAt`).
    ///
    /// - Parameters:
    ///   - rejected: called with each rejected line as it is found.
    ///   - progress: called after each appended batch with the report so far (long inputs take
    ///     minutes; the CLI prints a line every million samples).
    ///   - appended: called after each appended batch with its envelopes (as stamped and
    ///     encoded), their samples as the blocks written, and their positions, so a caller can
    ///     fold them without reading them back; what it throws ends the ingest. The caller may
    ///     move the envelopes out (they are dropped after the call); it must leave each block
    ///     in its place (the next batch refills them).
    /// - Throws: `IngestFileError` when the input cannot be read, `LogError` when an append fails.
    package func ingest(
        _ input: LineReader, source: String, into report: inout IngestReport,
        rejected: ((IngestRejection) -> Void)? = nil, progress: ((IngestReport) -> Void)? = nil,
        appended: (
            (_ envelopes: inout [Envelope], _ samples: inout [SampleBlock?], _ positions: Range<UInt64>) throws -> Void
        )? = nil
    ) throws {
        var batch = LogBatch()
        var envelopes: [Envelope] = []
        var blocks: [SampleBlock?] = []
        // The blocks of the batch before, refilled by this one's envelopes: a block per envelope
        // allocated its arrays and freed them, four of each per envelope.
        var spareBlocks: [SampleBlock] = []
        var record: [UInt8] = []
        var pendingSamples = 0
        var deadline = ContinuousClock.now
        var scratch = EnvelopeDecoder.Scratch()
        // The last line handled (appended, batched, rejected or blank), and the first line of
        // the batch not appended yet: where a failure leaves the input.
        var handled = input.lineNumber
        var batchedFrom: Int?
        func flush() throws {
            guard !batch.isEmpty else { return }
            let positions = try log.append(batch)
            batchedFrom = nil
            report.note(positions: positions)
            report.appended += batch.count
            report.samples += pendingSamples
            batch.removeAll()
            pendingSamples = 0
            try appended?(&envelopes, &blocks, positions)
            envelopes.removeAll(keepingCapacity: true)
            while let block = blocks.popLast() {
                if let block { spareBlocks.append(block) }
            }
            progress?(report)
        }
        func reject(_ error: IngestError) {
            let rejection = IngestRejection(source: source, error: error)
            report.note(rejection)
            rejected?(rejection)
        }
        // The line closure uses the decoder alone: reading it through `self` copied the whole
        // ingestor for every line, retaining each reference it holds.
        let decoder = decoder
        do {
            while true {
                let wait = batch.isEmpty ? nil : LineReader.WaitLimit(idle: linger.idle, deadline: deadline)
                let next = try input.next(limit: EnvelopeLimits.lineBytes, wait: wait) { line -> LineOutcome in
                    switch line {
                    case .tooLong(let length):
                        return .rejected(
                            IngestError(
                                .lineTooLong, line: input.lineNumber, path: "$",
                                reason:
                                    "is \(length) bytes; lines of at most \(EnvelopeLimits.lineBytes) bytes are accepted"
                            ))
                    case .bytes(let line):
                        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .blank }
                        do throws(IngestError) {
                            return .accepted(
                                try decoder.decode(line: line, number: input.lineNumber, scratch: &scratch))
                        } catch {
                            return .rejected(error)
                        }
                    }
                }
                switch next {
                case .end:
                    try flush()
                    return
                case .timedOut:
                    // The producer paused: what it sent becomes durable and readable now, in every mode.
                    try flush()
                    try log.sync()
                case .line(.blank):
                    report.blankLines += 1
                    handled = input.lineNumber
                case .line(.rejected(let error)):
                    reject(error)
                    handled = input.lineNumber
                case .line(.accepted(let decoded)):
                    if let receivedAt = decoded.receivedAt, let reason = clock.refusal(of: receivedAt) {
                        reject(
                            IngestError(.receivedInFuture, line: input.lineNumber, path: "receivedAt", reason: reason))
                        handled = input.lineNumber
                        continue
                    }
                    let envelope = decoded.stamped(at: clock.stamp(user: decoded.user))
                    record.removeAll(keepingCapacity: true)
                    var block = spareBlocks.popLast() ?? SampleBlock([])
                    let hasSamples = EnvelopeCodec.encode(envelope, into: &record, block: &block)
                    let size = Self.lengthPrefixBytes(record.count) + record.count
                    guard size <= batchBytes else {
                        reject(
                            IngestError(
                                .recordTooLarge, line: input.lineNumber, path: "$",
                                reason:
                                    "makes a log record of \(size) bytes; at most \(batchBytes) fit in one log frame"))
                        spareBlocks.append(block)
                        handled = input.lineNumber
                        continue
                    }
                    if batch.byteCount + size > batchBytes { try flush() }
                    if batch.isEmpty {
                        deadline = .now + linger.maxAge
                        batchedFrom = input.lineNumber
                    }
                    record.withUnsafeBytes { batch.append($0) }
                    handled = input.lineNumber
                    pendingSamples += block.entries.count
                    if appended != nil {
                        envelopes.append(consume envelope)
                        blocks.append(hasSamples ? block : nil)
                        if !hasSamples { spareBlocks.append(block) }
                    } else {
                        spareBlocks.append(block)
                    }
                    if batch.count >= batchSize { try flush() }
                }
            }
        } catch {
            report.stoppedAt = InputLine(source: source, line: batchedFrom ?? handled + 1)
            throw error
        }
    }
}

extension Ingestor {
    /// The bytes of the LEB128 length prefix a record of `length` bytes gets in a `LogBatch`.
    static func lengthPrefixBytes(_ length: Int) -> Int {
        max(1, (UInt64(length).bitWidth - UInt64(length).leadingZeroBitCount + 6) / 7)
    }
}

/// What became of one input line.
private enum LineOutcome {
    case blank
    case rejected(IngestError)
    case accepted(EnvelopeInput)
}

/// A line of an input.
public struct InputLine: Sendable, Equatable, CustomStringConvertible {
    /// The input's name (its path, `-`, or what the caller called it).
    public var source: String
    /// The line number, from 1.
    public var line: Int
    /// `FILE line N`.
    public var description: String { "\(source) line \(line)" }
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
///
/// Rejections are counted; only the first `IngestReport.rejectionsKept` are kept, so a
/// mostly-broken input of millions of lines does not fill memory (the engine hands every
/// rejection to a callback as it is found).
public struct IngestReport: Sendable {
    /// How many rejections `rejected` keeps.
    public static let rejectionsKept = 100

    /// Envelopes appended to the log.
    public package(set) var appended = 0
    /// Samples in the appended envelopes.
    public package(set) var samples = 0
    /// Whitespace-only lines, skipped.
    public package(set) var blankLines = 0
    /// Lines rejected.
    public package(set) var rejectedLines = 0
    /// The first `rejectionsKept` rejected lines, in input order.
    public package(set) var rejected: [IngestRejection] = []
    /// Samples whose id was not live before (after the fold).
    public package(set) var newSamples = 0
    /// Samples already known: re-delivered, older than what is held, own writes read back, or
    /// deleted before.
    public package(set) var knownSamples = 0
    /// Samples that replaced an older version of themselves.
    public package(set) var replacedSamples = 0
    /// Live samples that deletions removed.
    public package(set) var deletedSamples = 0
    /// Days whose inputs changed, per (provider, metric, day), counted each time one is marked
    /// dirty while clean: work done, not distinct days. An engine under its memory limit
    /// recomputes a range of users before it stores it, part way through an ingest, so the
    /// same day can count again (and does more often the lower the limit); the projections
    /// are the same whatever the limit.
    public package(set) var daysDirtied = 0
    /// Days (user, metric, day) rebuilt during the ingest: at its end, and, under the memory
    /// limit, before a range is stored part way (so, like `daysDirtied`, work done).
    public package(set) var daysRecomputed = 0
    /// The log positions the appended envelopes got.
    public package(set) var positions: Range<UInt64>?
    /// Where an ingest that stopped part-way left its input: nothing from this line on (nor
    /// from the inputs after it) was appended, and every line before it was appended, rejected
    /// or blank, so sending the input again from here misses nothing (and a line sent twice
    /// changes nothing). After a failed sync, the envelopes the error's `LogError.unsynced`
    /// names may be kept too. `nil` when every input was read, or none could be opened.
    public package(set) var stoppedAt: InputLine?

    /// An empty report.
    public init() {}

    mutating func note(_ effect: Projections.Effect) {
        newSamples += effect.newSamples
        knownSamples += effect.knownSamples
        replacedSamples += effect.replacedSamples
        deletedSamples += effect.deletedSamples
        daysDirtied += effect.daysDirtied
    }

    mutating func note(positions new: Range<UInt64>) {
        positions = positions.map { $0.lowerBound..<new.upperBound } ?? new
    }

    mutating func note(_ rejection: IngestRejection) {
        rejectedLines += 1
        if rejected.count < Self.rejectionsKept { rejected.append(rejection) }
    }
}

/// An ingest that stopped part-way: what it appended and rejected before, and why it stopped.
///
/// The envelopes in `report.positions` are in the log (durable as the engine's durability
/// promises); the input after the failure was not read.
public struct IngestFailure: Error, CustomStringConvertible {
    /// Everything appended and rejected before the failure.
    public var report: IngestReport
    /// Why it stopped: `IngestFileError` when an input cannot be opened or read, `LogError`
    /// when an append fails.
    public var error: any Error
    /// The underlying error's description.
    public var description: String { "\(error)" }
}
