internal import Glibc

/// The last value built from a field whose text repeats from sample to sample (type, unit,
/// origin, device, zone), keyed by the exact JSON text it was built from.
struct RepeatedField<Value> {
    private var kind = JSONSpan.Kind.absent
    private var text: [UInt8] = []
    private var last: Value?

    /// The value for `span`: the last one when its text is the same, else `make()`'s.
    mutating func value(
        of span: JSONSpan, in bytes: UnsafeRawBufferPointer, _ make: () throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        let raw = span.text(in: bytes)
        if let last, span.kind == kind, raw.count == text.count,
            raw.count == 0 || text.withUnsafeBytes({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) }) == 0
        {
            return last
        }
        let value = try make()
        kind = span.kind
        text.removeAll(keepingCapacity: true)
        text.append(contentsOf: raw)
        last = value
        return value
    }
}

/// The repeating fields of the samples of one array.
struct SampleRepeats {
    var type = RepeatedField<MetricName>()
    var unit = RepeatedField<UnitName>()
    var origin = RepeatedField<String>()
    var device = RepeatedField<String>()
    var timeZone = RepeatedField<String>()
}
