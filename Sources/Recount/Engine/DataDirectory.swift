public import RecountLog

/// Where a data directory keeps what; the one place that knows its layout.
public struct DataDirectory: Sendable {
    /// The data directory itself.
    public let path: String

    /// The data directory at `path`; an empty path is the current directory (it put the log
    /// at the file system's root, `/log`), which the engine refuses (`checkPath`).
    public init(_ path: String) { self.path = path.isEmpty ? "." : path }

    /// Throws `LogError(.notADirectory)` for an empty path: a backend whose path came from an
    /// unset setting kept its users' data wherever the process started (an API audit,
    /// 2026-12-07), where the command line refuses `--data ""`.
    static func checkPath(_ path: String) throws(LogError) {
        guard path.isEmpty else { return }
        throw LogError(.notADirectory, "the data directory's path is empty: name a directory (\".\" for this one)")
    }

    /// The log's directory (`RecountLog`'s).
    public var log: String { path + "/log" }
    /// The projections' directory.
    public var projections: String { path + "/projections" }
    /// The projections' checkpoint file (of their first range of users, when they are split).
    public var checkpoint: String { projections + "/checkpoint" }
    /// The manifest of the projections' ranges of users (`RangeManifest`).
    package var ranges: String { projections + "/ranges" }
}

extension RecountEngine {
    /// A reader of the data directory `directory`'s log, taking no lock.
    /// - Throws: `LogError(.noLog)` when there is no log there, `.notADirectory` for an empty
    ///   path.
    public static func logReader(directory: String) throws(LogError) -> LogReader {
        try DataDirectory.checkPath(directory)
        return try LogReader(directory: DataDirectory(directory).log)
    }

    /// Checks the data directory `directory`'s log as `LogReader.check` does (every frame's
    /// checksum, every frame split into its records, damage after the committed frames) and
    /// decodes every record: a fold stops at one that is not an envelope, whatever its
    /// checksum says. Each frame is decompressed once, by the decoding pass.
    /// - Throws: `LogError` for damage, `UnreadableRecord` for a record that is no envelope.
    package static func checkLog(directory: String) throws -> (stats: LogStats, reader: LogReader) {
        let reader = try logReader(directory: directory)
        // The first problem in log order is reported: a frame that fails its checksum or does not
        // split into its records, or a record that is no envelope.
        var samples = SampleBlock([])
        try reader.forEach { record in
            _ = try record.decoding { bytes throws(EnvelopeCodecError) in
                try EnvelopeCodec.decodeBlock(bytes, into: &samples)
            }
        }
        let stats = try reader.stats()
        if let damage = reader.uncommittedDamage { throw damage }
        return (stats, reader)
    }

    /// Calls `body` with the position and envelope of each of `reader`'s records from `start`
    /// on (those of `user` alone, byte for byte, when given): `log dump`.
    package static func forEachEnvelope(
        in reader: LogReader, from start: UInt64, user: String? = nil, _ body: (UInt64, Envelope) throws -> Void
    ) throws {
        let filter = user.map { UserFilter([$0]) }
        try reader.forEach(from: max(start, reader.snapshot.startPosition)) { record in
            // Optional chaining reads the filter in place (`if let` copied it for every record).
            if filter?.holds(record.bytes) == false { return }
            try body(record.position, try record.envelope())
        }
    }
}
