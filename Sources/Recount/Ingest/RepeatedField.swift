internal import Glibc

/// The values last built from a field whose text repeats from sample to sample (type, unit,
/// origin, device, zone), keyed by the exact JSON text each was built from.
///
/// A few values are kept, not one: an ingest keeps its fields' caches from envelope to envelope,
/// and consecutive envelopes alternate between a few types, units and devices (each first sample
/// of an envelope built its strings again: 5% of an ingest's instructions).
struct RepeatedField<Value> {
    private struct Entry {
        var kind: JSONSpan.Kind
        var text: [UInt8]
        var value: Value

        /// Whether this entry was built from the text `raw` of a span of `kind`.
        @inline(__always)
        func holds(_ raw: UnsafeRawBufferPointer, kind: JSONSpan.Kind) -> Bool {
            kind == self.kind && raw.count == text.count
                && (raw.count == 0
                    || text.withUnsafeBytes { memcmp($0.baseAddress!, raw.baseAddress!, raw.count) } == 0)
        }
    }

    /// How many values are kept.
    private static var capacity: Int { 4 }
    private var entries: [Entry] = []
    /// The entry found or made last, tried first.
    private var recent = 0
    /// The entry the next new value replaces once all are taken.
    private var oldest = 0
    /// The value last built by `value(ofString:_:)`, with the string it came from.
    private var lastString: (string: String, value: Value)?

    /// The value for `span`: a kept one when its text is the same, else `make()`'s.
    mutating func value(
        of span: JSONSpan, in bytes: UnsafeRawBufferPointer, _ make: () throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        let raw = span.text(in: bytes)
        if recent < entries.count, entries[recent].holds(raw, kind: span.kind) { return entries[recent].value }
        if let found = entries.indices.first(where: { entries[$0].holds(raw, kind: span.kind) }) {
            recent = found
            return entries[found].value
        }
        let value = try make()
        let entry = Entry(kind: span.kind, text: Array(raw), value: value)
        if entries.count < Self.capacity {
            recent = entries.count
            entries.append(entry)
        } else {
            recent = oldest
            entries[oldest] = entry
            oldest = (oldest + 1) % Self.capacity
        }
        return value
    }

    /// The value for a string field of a `WrittenSample`: the last one when the text is the same
    /// (settled without reading it when it is the very string of last time), else `make()`'s.
    mutating func value(ofString string: String, _ make: () throws(FieldError) -> Value) throws(FieldError)
        -> Value
    {
        if let lastString, lastString.string.hasSameUTF8(as: string) { return lastString.value }
        let value = try make()
        lastString = (string, value)
        return value
    }
}

/// The repeating fields of samples, kept across the envelopes of one ingest.
struct SampleRepeats {
    var type = RepeatedField<MetricName>()
    var unit = RepeatedField<UnitName>()
    var origin = RepeatedField<String>()
    var device = RepeatedField<String>()
    var timeZone = RepeatedField<String>()
}
