/// The instants `[start, end)` a set of samples covers at most: from the earliest start to the
/// latest end (an instantaneous sample counts as its millisecond). A day's overlap merge takes
/// in the samples of neighbouring days whose span meets its own (`Projections.recompute`).
package struct SampleSpan: Equatable, Sendable {
    package var start: Int64
    package var end: Int64

    /// The span of no sample.
    package static let empty = SampleSpan(start: .max, end: .min)

    package init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// The span of an id-index record.
    init(_ record: IdIndex.Record) {
        start = record.startMillis
        end = max(record.endMillis, record.startMillis &+ 1)
    }

    /// Whether the two spans share an instant (never, when either is empty).
    func overlaps(_ other: SampleSpan) -> Bool { start < other.end && other.start < end }

    /// This span widened to take in `other`.
    func union(_ other: SampleSpan) -> SampleSpan {
        SampleSpan(start: min(start, other.start), end: max(end, other.end))
    }
}
