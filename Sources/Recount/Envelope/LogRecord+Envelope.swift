package import RecountLog

extension LogRecord {
    /// The envelope this record holds.
    package func envelope() throws(UnreadableRecord) -> Envelope {
        try decoding { bytes throws(EnvelopeCodecError) in try EnvelopeCodec.decode(bytes) }
    }

    /// What `decode` reads from this record's bytes; its failure names the record's position.
    package func decoding<T>(
        _ decode: (UnsafeRawBufferPointer) throws(EnvelopeCodecError) -> T
    ) throws(UnreadableRecord) -> T {
        do { return try decode(bytes) } catch { throw UnreadableRecord(position: position, cause: error) }
    }
}

/// A logged record, its frame's checksum matching, that is not an envelope this Recount reads:
/// one written by a newer Recount, or by a faulty writer. Every reader stops at it: a fold that
/// skipped it would answer from part of the history.
package struct UnreadableRecord: Error, Sendable, CustomStringConvertible {
    /// The record's log position.
    package var position: UInt64
    /// Why it could not be read.
    package var cause: EnvelopeCodecError

    package var description: String {
        let why =
            cause.code == .unknownFormat
            ? "a newer Recount wrote it" : "its frame's checksum matches, so it was written this way"
        return "the log record at position \(position) is not an envelope this Recount reads (\(why)): \(cause)"
    }
}
