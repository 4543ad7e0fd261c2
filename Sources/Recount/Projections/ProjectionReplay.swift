package import RecountLog

/// Folds a log into projections from scratch: the first step of `replay`, `digest` and
/// `verify`, and of every engine until projections are stored.
package enum ProjectionReplay {
    /// What a replay read.
    package struct Summary: Sendable {
        /// Records read, other users' records skipped unread included.
        package var read = 0
        /// Records folded.
        package var records = 0
        /// Samples in them.
        package var samples = 0
        /// The last position folded.
        package var lastPosition: UInt64 = 0
        /// What the folded envelopes changed.
        package var effect = Projections.Effect()

        /// The steps of `step` samples folded and of `step` records read, together: progress is
        /// reported each time they grow.
        func steps(of step: Int) -> Int { samples / step + read / step }

        /// How far the fold has got, as progress is reported.
        var progress: ReplayProgress { ReplayProgress(records: read, samples: samples) }

        /// `progress` for a fold that starts after this one's records read and samples folded.
        func reporting(after progress: ((ReplayProgress) -> Void)?) -> ((ReplayProgress) -> Void)? {
            progress.map { report in
                { report(ReplayProgress(records: read + $0.records, samples: samples + $0.samples)) }
            }
        }

        /// Adds what a fold after this one read and folded.
        static func += (total: inout Summary, next: Summary) {
            total.read += next.read
            total.records += next.records
            total.samples += next.samples
            total.effect += next.effect
            total.lastPosition = max(total.lastPosition, next.lastPosition)
        }
    }

    /// The projections of `reader`'s records up to `until` (exclusive), folded from scratch
    /// (only `users`' envelopes and the `*` config defaults when given, and only the envelopes
    /// received by `receivedBy`, epoch millis, when given) and recomputed; and what was folded.
    package static func recomputed(
        _ reader: LogReader, users: Set<String>? = nil, until: UInt64 = .max, receivedBy: Int64? = nil,
        progress: ((ReplayProgress) -> Void)? = nil
    ) throws -> (projections: Projections, summary: Summary) {
        var projections = Projections()
        let summary = try fold(
            reader, into: &projections, until: until, users: users, receivedBy: receivedBy, progress: progress)
        projections.recompute()
        return (projections, summary)
    }

    /// Folds every record of `reader` (from its start up to `until`, exclusive) into `projections`.
    ///
    /// - Parameters:
    ///   - users: fold only these users' envelopes and the `*` config defaults (an auditor's
    ///     replay of one user; other users' records are skipped without being decoded).
    ///   - receivedBy: fold only the envelopes received by this instant (epoch millis): the
    ///     projections as they stood then (`rollups --as-of`).
    ///   - progress: called with the records read and samples folded so far each time either
    ///     passes another `progressStep` (a replay of one user reads far more than it folds).
    /// - Throws: `LogError` for damage, `UnreadableRecord` for a record that is not an envelope.
    package static func fold(
        _ reader: LogReader, into projections: inout Projections, until: UInt64 = .max, users: Set<String>? = nil,
        receivedBy: Int64? = nil, progress: ((ReplayProgress) -> Void)? = nil, progressStep: Int = 1_000_000
    ) throws -> Summary {
        let filter = users.map(UserFilter.init)
        return try fold(
            reader, from: projections.position + 1, until: until,
            // Optional chaining reads the filter in place: binding it with `if let` copied it,
            // retaining its arrays, for every record.
            picking: { _, bytes in filter?.concerns(bytes) != false }, progress: progress, progressStep: progressStep
        ) { envelope, samples, position in
            if let receivedBy, envelope.receivedAt.millis > receivedBy { return Projections.Effect() }
            return projections.apply(envelope, samples: samples, at: position)
        }
    }

    /// The loop every fold shares: decodes each record of `reader` from `start` up to `until`
    /// (exclusive) that `picking` chooses by its position and bytes, and hands its envelope,
    /// samples and position to `apply`, which folds it and returns what it changed.
    package static func fold(
        _ reader: LogReader, from start: UInt64, until: UInt64, picking: (UInt64, UnsafeRawBufferPointer) -> Bool,
        progress: ((ReplayProgress) -> Void)?, progressStep: Int = 1_000_000,
        apply: (Envelope, SampleBlock, UInt64) -> Projections.Effect
    ) throws -> Summary {
        var summary = Summary()
        var reported = 0
        let repeated = RepeatedStrings()
        var samples = SampleBlock([])
        // The block and summary are handed on as `inout` parameters: read from the closure's
        // captures, the block was copied for each record (retaining its arrays) and the summary
        // checked for exclusive access.
        func fold(_ record: LogRecord, _ samples: inout SampleBlock, _ summary: inout Summary) throws {
            let envelope = try record.decoding { bytes throws(EnvelopeCodecError) in
                try EnvelopeCodec.decodeBlock(bytes, into: &samples, repeated: repeated)
            }
            summary.effect += apply(envelope, samples, record.position)
            summary.records += 1
            summary.samples += samples.entries.count
            summary.lastPosition = record.position
        }
        try reader.forEach(from: max(reader.snapshot.startPosition, start), to: until) { record in
            summary.read += 1
            if picking(record.position, record.bytes) { try fold(record, &samples, &summary) }
            if let progress, summary.steps(of: progressStep) > reported {
                reported = summary.steps(of: progressStep)
                progress(summary.progress)
            }
        }
        return summary
    }
}
