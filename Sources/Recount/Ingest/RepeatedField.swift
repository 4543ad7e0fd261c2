internal import Glibc

/// The values last built from a field whose text repeats from sample to sample (type, unit,
/// origin, device, zone), keyed by the exact JSON text each was built from.
///
/// A few values are kept, not one: an ingest keeps its fields' caches from envelope to envelope,
/// and consecutive envelopes alternate between a few types, units and devices (each first sample
/// of an envelope built its strings again: 5% of an ingest's instructions).
struct RepeatedField<Value> {
    /// What a kept value was built from: its span's kind and JSON text, in place. Plain bytes,
    /// apart from the values: comparing with a key retains nothing, where an entry holding its
    /// text as an array and its value beside it was copied, retaining both, at each comparison
    /// (3% of an ingest's time went to those retains).
    private struct Key: BitwiseCopyable {
        var kind: JSONSpan.Kind
        var count: Int
        var text: InlineArray<64, UInt8>

        /// Whether this key is the text `raw` of a span of `kind`.
        @inline(__always)
        func holds(_ raw: UnsafeRawBufferPointer, kind: JSONSpan.Kind) -> Bool {
            kind == self.kind && raw.count == count
                && (count == 0
                    || text.span.withUnsafeBytes { memcmp($0.baseAddress!, raw.baseAddress!, count) } == 0)
        }
    }

    /// How many values are kept.
    private static var capacity: Int { 4 }
    /// The longest text whose value is kept (longer ones are built each time they come).
    static var longestText: Int { 64 }
    private var keys: [Key] = []
    /// The kept values, by the number of their key.
    private var values: [Value] = []
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
        if recent < keys.count, keys[recent].holds(raw, kind: span.kind) { return values[recent] }
        if let found = keys.indices.first(where: { keys[$0].holds(raw, kind: span.kind) }) {
            recent = found
            return values[found]
        }
        let value = try make()
        guard raw.count <= Self.longestText else { return value }
        var key = Key(kind: span.kind, count: raw.count, text: InlineArray(repeating: 0))
        for index in 0..<raw.count { key.text[index] = raw[index] }
        if keys.count < Self.capacity {
            recent = keys.count
            keys.append(key)
            values.append(value)
        } else {
            recent = oldest
            keys[oldest] = key
            values[oldest] = value
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
