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

    /// Appends the valid envelopes of an NDJSON file (`-` reads standard input); each line is
    /// applied whole or rejected whole.
    ///
    /// - Parameters:
    ///   - path: the file, or `-`.
    ///   - progress: called after each appended batch with the report so far.
    /// - Returns: what was appended and what was rejected (with line, path and reason).
    /// - Throws: `IngestFileError` when the file cannot be read, `LogError` when appending fails.
    public func ingest(file path: String, progress: ((IngestReport) -> Void)? = nil) throws -> IngestReport {
        let reader = path == "-" ? LineReader() : try LineReader(path: path)
        return try ingestor.ingest(reader, source: path, progress: progress)
    }

    /// Appends the valid envelopes of NDJSON text held in memory.
    ///
    /// - Parameters:
    ///   - ndjson: the envelopes, one per line.
    ///   - source: the name rejections give the input.
    public func ingest(ndjson: [UInt8], source: String) throws -> IngestReport {
        try ingestor.ingest(LineReader(bytes: ndjson, source: source), source: source)
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
