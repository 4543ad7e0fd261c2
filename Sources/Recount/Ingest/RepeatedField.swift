internal import Glibc

/// The last value built from a field whose text repeats from sample to sample (type, unit,
/// origin, device, zone), keyed by the exact JSON text it was built from.
struct RepeatedField<Value> {
    private var kind = JSONSpan.Kind.absent
    private var text: [UInt8] = []
    private var last: Value?
    /// The string `last` was built from, when it came from `value(ofString:_:)`.
    private var lastString: String?

    /// The value for `span`: the last one when its text is the same, else `make()`'s.
    mutating func value(
        of span: JSONSpan, in bytes: UnsafeRawBufferPointer, _ make: () throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        try value(of: span.text(in: bytes), kind: span.kind, make)
    }

    /// The value for a string field of a `WrittenSample`: the last one when the text is the same
    /// (settled without reading it when it is the very string of last time), else `make()`'s.
    mutating func value(ofString string: String, _ make: () throws(FieldError) -> Value) throws(FieldError)
        -> Value
    {
        if let last, let lastString, lastString.hasSameUTF8(as: string) { return last }
        let value = try make()
        // A span is never `.absent`, so spans never match what a string left here.
        kind = .absent
        text.removeAll(keepingCapacity: true)
        lastString = string
        last = value
        return value
    }

    /// The value for text `raw` of a span of `kind`.
    private mutating func value(
        of raw: UnsafeRawBufferPointer, kind: JSONSpan.Kind, _ make: () throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        if let last, kind == self.kind, raw.count == text.count,
            raw.count == 0 || text.withUnsafeBytes({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) }) == 0
        {
            return last
        }
        let value = try make()
        lastString = nil
        self.kind = kind
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
