import Recount

/// The bookkeeping every importer shares: samples go to the `EnvelopeWriter`, counts to an
/// `ImportTally`, and samples ingest's decoder refuses move from the imported counts to the
/// invalid ones (with the decoder's reason), so the report always says what was really written.
final class ImportSession {
    /// Envelope output.
    let writer: EnvelopeWriter
    /// Counts for the report (`imported` without the samples of `pendingType` not settled yet).
    var tally = ImportTally()
    /// Samples imported that `tally.imported` does not count yet, by type: an export has a few
    /// types, mostly interleaved, whose names are the same few strings sample after sample, so
    /// finding one here is an identity check rather than hashing the name per sample.
    private var pending = PendingCounts()

    /// Creates a session writing through `writer`.
    init(writer: EnvelopeWriter) {
        self.writer = writer
    }

    /// Counts a sample as imported and hands it to the writer.
    /// - Parameters:
    ///   - sample: the sample.
    ///   - type: the record's type, as the report counts it.
    ///   - file: the record's file in a multi-file export.
    ///   - line: the record's line, or its 1-based index in `file`.
    /// - Throws: whatever the writer throws (the emit closure's error, or `.envelopeRejected`).
    func add(_ sample: Sample, type: String, file: String? = nil, line: Int) throws {
        countImported(type)
        defer { countRejections() }
        try writer.add(sample, type: type, file: file, line: line)
    }

    /// Counts a record of a supported type that could not be converted.
    func addInvalid(type: String, file: String? = nil, line: Int, reason: String) {
        tally.addInvalid(type: type, file: file, line: line, reason: reason)
    }

    /// Counts records of a type the importer does not import.
    func skip(_ type: String, count: Int = 1) {
        guard count > 0 else { return }
        tally.skipped[type, default: 0] += count
    }

    /// Writes the last envelope.
    /// - Throws: whatever the writer throws.
    func flush() throws {
        defer { countRejections() }
        try writer.flush()
    }

    /// Writes the envelope still held and says how many samples were printed: what an import
    /// that damage to its input stops adds to its error. The samples read before the damage are
    /// valid, and the repaired export upserts them again.
    /// - Throws: whatever the writer throws.
    func flushBeforeStopping() throws -> String {
        try flush()
        let (samples, envelopes) = (writer.samplesWritten, writer.envelopesWritten)
        return " (printed before it: \(samples.counted("sample")) in \(envelopes.counted("envelope")))"
    }

    /// Runs `body`; when an `ImportError` of the input stops it, writes what is still held first
    /// and adds the count to the error (`flushBeforeStopping`).
    func stoppingAtDamage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as ImportError where error.code != .envelopeRejected {
            error.message += try flushBeforeStopping()
            throw error
        }
    }

    /// The report of what was done so far.
    /// - Parameters:
    ///   - unknownTimeZones: zone names that could not be resolved.
    ///   - rezoning: what was done to samples without `HKTimeZone` (Apple Health only).
    func report(unknownTimeZones: Set<String> = [], rezoning: Rezoning? = nil) -> ImportReport {
        settleImported()
        return tally.report(unknownTimeZones: unknownTimeZones, rezoning: rezoning, writer: writer)
    }

    /// Moves the samples ingest refused from imported to invalid.
    private func countRejections() {
        guard writer.hasRejections else { return }
        settleImported()
        for rejection in writer.takeRejections() {
            tally.imported[rejection.type, default: 0] -= 1
            if tally.imported[rejection.type] == 0 { tally.imported[rejection.type] = nil }
            tally.addInvalid(
                type: rejection.type, file: rejection.file, line: rejection.line, reason: rejection.reason)
        }
    }

    /// Counts one sample of `type` as imported, in `pending`.
    private func countImported(_ type: String) {
        if !pending.add(type) {
            settleImported()
            _ = pending.add(type)
        }
    }

    /// Adds the pending samples to `tally.imported`.
    private func settleImported() {
        for (type, count) in pending.counts { tally.imported[type, default: 0] += count }
        pending.removeAll()
    }

    /// Samples counted per type, in one value: counting a sample is then one access to the
    /// session's state (each is checked for exclusivity at run time).
    private struct PendingCounts {
        /// The most types held.
        private static let limit = 16
        /// The types met and their counts.
        private(set) var counts: [(type: String, count: Int)] = []

        /// Counts one sample of `type`.
        /// - Returns: `false` when `type` is new and `limit` types are held already (nothing
        ///   counted).
        mutating func add(_ type: String) -> Bool {
            for index in counts.indices where counts[index].type == type {
                counts[index].count += 1
                return true
            }
            guard counts.count < Self.limit else { return false }
            counts.append((type, 1))
            return true
        }

        /// Forgets every count.
        mutating func removeAll() {
            counts.removeAll(keepingCapacity: true)
        }
    }
}
