internal import Glibc

/// One sample object as the decoder checks it: its fields, the bytes they point into, and the
/// sample's path for error messages.
struct SampleInput: ~Copyable {
    let fields: SampleFields
    let bytes: UnsafeRawBufferPointer
    /// Where the sample is in the envelope.
    let element: ElementPath

    /// The path of `field` in this sample.
    func path(_ field: SampleFields.Field) -> String { element.field(field.name) }

    /// The name of the first member that is no sample field, if any.
    var unknownKey: String? {
        guard let key = fields.unknownKey, case .string(let name) = key.value(in: bytes) else { return nil }
        return name
    }

    /// A required field's span.
    @inline(__always)
    func required(_ field: SampleFields.Field) throws(FieldError) -> JSONSpan {
        let span = fields[field]
        guard span.kind != .absent else { throw FieldError(path: path(field), reason: "is required") }
        return span
    }

    /// An optional field's span; an explicit `null` is refused (leave the field out instead).
    @inline(__always)
    func optional(_ field: SampleFields.Field) throws(FieldError) -> JSONSpan? {
        let span = fields[field]
        switch span.kind {
        case .absent: return nil
        case .other where bytes[Int(span.start)] == UInt8(ascii: "n"):
            throw FieldError(path: path(field), reason: "must not be null (leave it out)")
        default: return span
        }
    }

    /// Whether the sample has `field` at all.
    @inline(__always)
    func has(_ field: SampleFields.Field) -> Bool { fields[field].kind != .absent }

    /// The value of a span of this sample.
    func value(_ span: JSONSpan) -> JSONValue { span.value(in: bytes) }

    /// A string field checked against `rule`, straight from the bytes when it is a plain string.
    func string(_ span: JSONSpan, _ field: SampleFields.Field, _ rule: StringRule) throws(FieldError) -> String {
        guard span.kind == .string else { return try rule.check(value(span), path: path(field)) }
        let text = span.text(in: bytes)
        try rule.check(utf8: text, path: path(field))
        return String(decoding: text, as: UTF8.self)
    }

    /// The sample's id, checked against the id rule; a plain UUID is read straight from the
    /// bytes (its shape already satisfies the rule).
    func id(_ span: JSONSpan) throws(FieldError) -> SampleID {
        guard span.kind == .string else { return SampleID(try StringRule.id.check(value(span), path: path(.id))) }
        let text = span.text(in: bytes)
        let id = SampleID(utf8: text)
        if id.uuid == nil { try StringRule.id.check(utf8: text, path: path(.id)) }
        return id
    }

    /// An RFC 3339 instant, parsed straight from the bytes when it is a plain string.
    func instant(_ span: JSONSpan, _ field: SampleFields.Field) throws(FieldError) -> Instant {
        if span.kind == .string, let instant = ObjectReader.instant(text: span.text(in: bytes)) { return instant }
        return try ObjectReader.instant(value(span), path: path(field))
    }

    /// The value `make` builds from a span, reused while consecutive samples repeat its bytes.
    func repeated<Value>(
        _ span: JSONSpan, _ cache: inout RepeatedField<Value>, _ make: (JSONValue) throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        try cache.value(of: span, in: bytes) { () throws(FieldError) in try make(value(span)) }
    }
}

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
    var unit = RepeatedField<(text: String, measure: MeasureUnit?)>()
    var origin = RepeatedField<String>()
    var device = RepeatedField<String>()
    var timeZone = RepeatedField<String>()
}

/// The path of an array element (`samples[3]`, `changes[2].upsertion`), rendered only when an
/// error names it: building it for every sample cost more than validating the sample.
struct ElementPath {
    var array: String
    var index: Int
    var member: String? = nil

    var text: String { "\(array)[\(index)]" + (member.map { "." + $0 } ?? "") }

    /// The path of member `key` of this element.
    func field(_ key: String) -> String { text + "." + key }
}
