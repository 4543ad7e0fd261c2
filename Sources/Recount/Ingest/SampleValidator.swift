/// Checks samples built outside ingest (an importer's) one at a time, with the decoder's own
/// sample rules: a sample passes exactly when `EnvelopeDecoder` accepts it as an element of a
/// `samples.upsert` envelope, and is refused with the error the decoder would report.
///
/// What concerns the envelope as a whole (its user, line length, number of samples, ids repeated
/// across samples) is not checked here. Cheaper than writing the envelope and decoding it again:
/// the sample's fields are checked as values, without reading JSON.
package struct SampleValidator {
    /// The decoder whose rules apply.
    private let decoder: EnvelopeDecoder
    /// Values built from the fields the previous samples repeat, one set per metric (by raw
    /// value): exports interleave types (a heart rate, then steps, distance, energy), and each
    /// type repeats its own type name, unit and sources, which one shared set would build again
    /// at every change of type. The values depend only on the fields' text, so which set holds
    /// them changes no outcome.
    private var repeats = [SampleRepeats](repeating: SampleRepeats(), count: Metric.allCases.count)

    /// Creates a validator.
    /// - Parameter zones: the time-zone cache sample `timeZone` names are checked with.
    package init(zones: ZoneOffsets = ZoneOffsets()) {
        decoder = EnvelopeDecoder(zones: zones)
    }

    /// Checks one sample.
    /// - Parameter sample: the sample, as `EnvelopeJSON` would write it.
    /// - Throws: `IngestError` as the decoder reports it for the sample as the first element of
    ///   an envelope's `samples` on line 1 (path `samples[0].value`, say).
    package mutating func check(_ sample: Sample) throws(IngestError) {
        do {
            try withUnsafePointer(to: sample) { sample throws(FieldError) in
                try decoder.sample(
                    WrittenSample(sample: sample, element: ElementPath(array: "samples", index: 0)),
                    repeats: &repeats[Int(sample.pointee.type.metric.rawValue)])
            }
        } catch {
            throw IngestError(error.code, line: 1, path: error.path, reason: error.reason)
        }
    }
}
