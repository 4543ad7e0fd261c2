import Foundation
public import RecountLog

/// The embedding API: the engine over one data directory, whose log lives in `DIR/log`.
///
/// One engine per directory may be open at a time (the log's lock enforces it). Methods may be
/// called from any thread; appends are serialised by the log.
public final class RecountEngine: Sendable {
    /// The data directory.
    public let directory: String
    private let log: Log

    /// Opens (creating it when missing) the data directory.
    ///
    /// - Parameters:
    ///   - directory: the data directory; the log is kept in its `log` folder.
    ///   - durability: when appended envelopes reach the disk (`.everyBatch` by default).
    /// - Throws: `LogError` when the log is locked by another writer, damaged, or unreadable.
    public init(directory: String, durability: LogConfiguration.Durability = .everyBatch) throws {
        self.directory = directory
        log = try Log(directory: directory + "/log", configuration: LogConfiguration(durability: durability))
    }

    /// A torn frame that recovery cut off when the engine opened, if any.
    public var recovery: TornTail? { log.recovery }

    /// Appends the valid envelopes of NDJSON files (`-` reads standard input), in order; each
    /// line is applied whole or rejected whole.
    ///
    /// Every file is opened before anything is appended, so a missing one changes nothing.
    /// A slow input's envelopes are appended within about a second (see `docs/ingest.md`).
    ///
    /// - Parameters:
    ///   - paths: the files, or `-`.
    ///   - rejected: called with each rejected line as it is found (the report keeps only the
    ///     first `IngestReport.rejectionsKept`).
    ///   - progress: called after each appended batch with the report so far.
    /// - Returns: what was appended and what was rejected (with line, path and reason).
    /// - Throws: `IngestFailure` when a file cannot be opened or read, or appending fails: it
    ///   carries the report of what was appended and rejected before.
    public func ingest(
        files paths: [String], rejected: ((IngestRejection) -> Void)? = nil,
        progress: ((IngestReport) -> Void)? = nil
    ) throws(IngestFailure) -> IngestReport {
        var report = IngestReport()
        let readers: [LineReader]
        do {
            readers = try paths.map { path throws(IngestFileError) in
                path == "-" ? LineReader() : try LineReader(path: path)
            }
        } catch {
            throw IngestFailure(report: report, error: error)
        }
        for (path, reader) in zip(paths, readers) {
            try ingest(reader, source: path, into: &report, rejected: rejected, progress: progress)
        }
        return report
    }

    /// Appends the valid envelopes of NDJSON text held in memory.
    ///
    /// - Parameters:
    ///   - ndjson: the envelopes, one per line.
    ///   - source: the name rejections give the input.
    ///   - rejected: called with each rejected line as it is found.
    /// - Throws: `IngestFailure` when appending fails, with the report of what was appended before.
    public func ingest(
        ndjson: [UInt8], source: String, rejected: ((IngestRejection) -> Void)? = nil
    ) throws(IngestFailure) -> IngestReport {
        var report = IngestReport()
        try ingest(LineReader(bytes: ndjson, source: source), source: source, into: &report, rejected: rejected)
        return report
    }

    private func ingest(
        _ reader: LineReader, source: String, into report: inout IngestReport,
        rejected: ((IngestRejection) -> Void)?, progress: ((IngestReport) -> Void)? = nil
    ) throws(IngestFailure) {
        do {
            try ingestor.ingest(reader, source: source, into: &report, rejected: rejected, progress: progress)
        } catch {
            throw IngestFailure(report: report, error: error)
        }
    }

    /// Makes every appended envelope durable.
    public func sync() throws { try log.sync() }

    /// Syncs and releases the data directory.
    public func close() throws { try log.close() }

    /// An ingestor that stamps a missing `receivedAt` with the current time, in UTC.
    private var ingestor: Ingestor {
        Ingestor(log: log) {
            Instant(millis: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)), offsetSeconds: 0)
        }
    }
}
