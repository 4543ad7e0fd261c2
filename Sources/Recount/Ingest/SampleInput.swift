/// One sample object as the decoder checks it: its fields, the bytes they point into, and the
/// sample's path for error messages.
///
/// The fields are read through a pointer to the caller's: they are 200 bytes, and each call
/// through the `SampleSource` witness copied them (some 20 copies a sample).
struct SampleInput: SampleSource, ~Copyable {
    private let fieldsPointer: UnsafePointer<SampleFields>
    let bytes: UnsafeRawBufferPointer
    /// Where the sample is in the envelope.
    let element: ElementPath

    /// The input of the fields at `fields`, which must stay valid and unchanged while it is used.
    init(fields: UnsafePointer<SampleFields>, bytes: UnsafeRawBufferPointer, element: ElementPath) {
        self.fieldsPointer = fields
        self.bytes = bytes
        self.element = element
    }

    private var fields: SampleFields {
        @inline(__always) _read { yield fieldsPointer.pointee }
    }

    /// The sample is read from JSON: the decoder builds it.
    func checked(_ sample: () -> Sample) -> Sample { sample() }

    /// The name of the first member that is no sample field, if any.
    var unknownKey: String? {
        guard let key = fields.unknownKey, case .string(let name) = key.value(in: bytes) else { return nil }
        return name
    }

    /// A required field's span.
    @inline(__always)
    func required(_ field: SampleFields.Field) throws(FieldError) -> JSONSpan {
        try fields[field].required(path: path(field))
    }

    /// An optional field's span; an explicit `null` is refused (leave the field out instead).
    @inline(__always)
    func optional(_ field: SampleFields.Field) throws(FieldError) -> JSONSpan? {
        try fields[field].optional(in: bytes, path: path(field))
    }

    /// Whether the sample has `field` at all.
    @inline(__always)
    func has(_ field: SampleFields.Field) -> Bool { fields[field].kind != .absent }

    /// The value of a span of this sample.
    func value(_ span: JSONSpan) -> JSONValue { span.value(in: bytes) }

    /// The `Double` of a span that holds a number.
    func number(_ span: JSONSpan) -> Double? {
        let text = span.text(in: bytes)
        guard span.kind == .other, let base = text.baseAddress, JSONReader.startsNumber(text[0]) else { return nil }
        // Most values are plain integers: up to 15 digits (the scan checked the grammar, so no
        // leading zero) are their own value, exactly, without reading the number again.
        if text.count <= 15 {
            var value: UInt64 = 0
            var index = 0
            while index < text.count, text[index] &- 0x30 < 10 {
                value = value &* 10 &+ UInt64(text[index] &- 0x30)
                index &+= 1
            }
            if index == text.count { return Double(value) }
        }
        var reader = JSONReader(base: base, count: text.count, maxDepth: EnvelopeLimits.depth)
        return try? reader.parseDouble()
    }

    /// A string field checked against `rule`, straight from the bytes when it is a plain string.
    func string(_ span: JSONSpan, _ field: SampleFields.Field, _ rule: StringRule) throws(FieldError) -> String {
        try span.string(in: bytes, rule, path: path(field))
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
        try span.instant(in: bytes, path: path(field))
    }

    /// What an instant holds beyond its millisecond (read once it parsed).
    func fractionBeyondMillis(_ span: JSONSpan) -> Int64 {
        if span.kind == .string { return RFC3339.fractionBeyondMillis(span.text(in: bytes)) }
        guard case .string(let text) = value(span) else { return 0 }
        return RFC3339.fractionBeyondMillis(text)
    }

    /// The value `make` builds from a span, reused while consecutive samples repeat its bytes.
    func repeated<Value>(
        _ span: JSONSpan, _ cache: inout RepeatedField<Value>, _ make: (JSONValue) throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        try cache.value(of: span, in: bytes) { () throws(FieldError) in try make(value(span)) }
    }
}
