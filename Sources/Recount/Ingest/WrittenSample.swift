/// A `Sample` built outside ingest (by an importer), offered to the decoder field by field as
/// `EnvelopeJSON` writes it: a field is present exactly when the writer writes it, and its value is
/// the JSON the writer writes for it, read back the way the decoder reads that JSON (numbers and
/// instants go through their text).
struct WrittenSample: SampleSource {
    /// A field, standing for the value the sample holds in it.
    typealias Span = SampleFields.Field

    /// The sample, read in place: it outlives the check, and copying it would retain each of its
    /// strings.
    let sample: UnsafePointer<Sample>
    let element: ElementPath

    /// A written sample has only sample fields.
    var unknownKey: String? { nil }

    func required(_ field: SampleFields.Field) throws(FieldError) -> SampleFields.Field {
        guard has(field) else { throw FieldError(.missingField, path: path(field), reason: "is required") }
        return field
    }

    /// The field when present; the writer leaves an absent field out, so it is never `null`.
    func optional(_ field: SampleFields.Field) throws(FieldError) -> SampleFields.Field? {
        has(field) ? field : nil
    }

    func has(_ field: SampleFields.Field) -> Bool {
        switch field {
        case .id, .type, .start, .origin: true
        case .end: sample.pointee.end != nil
        case .timeZone: sample.pointee.timeZone != nil
        case .value: sample.pointee.value != nil
        case .unit: sample.pointee.unit != nil
        case .stage: sample.pointee.stage != nil
        case .device: sample.pointee.device != nil
        case .syncIdentifier: sample.pointee.syncIdentifier != nil
        case .syncVersion: sample.pointee.syncVersion != nil
        case .lastModified: sample.pointee.lastModified != nil
        case .activity: sample.pointee.workout?.activity != nil
        case .distance: sample.pointee.workout?.distance != nil
        case .energy: sample.pointee.workout?.energy != nil
        }
    }

    func value(_ field: SampleFields.Field) -> JSONValue {
        if let text = string(field) { return .string(text) }
        switch field {
        case .start: return .string(sample.pointee.start.rfc3339)
        case .end: return sample.pointee.end.map { .string($0.rfc3339) } ?? .null
        case .lastModified: return sample.pointee.lastModified.map { .string($0.rfc3339) } ?? .null
        case .value: return sample.pointee.value.map { Self.number(EnvelopeJSON.number($0)) } ?? .null
        case .syncVersion: return sample.pointee.syncVersion.map { Self.number(String($0)) } ?? .null
        case .distance: return Self.total(sample.pointee.workout?.distance)
        case .energy: return Self.total(sample.pointee.workout?.energy)
        default: return .null
        }
    }

    /// The text of a field written as a JSON string, if the sample has it.
    private func string(_ field: SampleFields.Field) -> String? {
        switch field {
        case .id: sample.pointee.id.text
        case .type: sample.pointee.type.name
        case .timeZone: sample.pointee.timeZone
        case .unit: sample.pointee.unit?.symbol
        case .stage: sample.pointee.stage?.name
        case .origin: sample.pointee.origin
        case .device: sample.pointee.device
        case .syncIdentifier: sample.pointee.syncIdentifier
        case .activity: sample.pointee.workout?.activity?.name
        case .start, .end, .lastModified, .value, .syncVersion, .distance, .energy: nil
        }
    }

    func string(_ field: SampleFields.Field, _: SampleFields.Field, _ rule: StringRule) throws(FieldError) -> String {
        try rule.check(value(field), path: path(field))
    }

    func id(_: SampleFields.Field) throws(FieldError) -> SampleID {
        if sample.pointee.id.uuid == nil {
            try sample.pointee.id.text.withRawUTF8 { text throws(FieldError) in
                try StringRule.id.check(utf8: text, path: path(.id))
            }
        }
        return sample.pointee.id
    }

    /// The instant as the decoder reads its written text back (a year the writer cannot write
    /// as RFC 3339, or year 0000, is refused as it would be in an envelope).
    func instant(_ field: SampleFields.Field, _: SampleFields.Field) throws(FieldError) -> Instant {
        guard
            let instant = field == .start
                ? sample.pointee.start : field == .end ? sample.pointee.end : sample.pointee.lastModified
        else {
            throw FieldError(.missingField, path: path(field), reason: "is required")
        }
        let read = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RFC3339.maximumLength) { text in
            let count = RFC3339.write(
                millis: instant.millis, offsetSeconds: instant.offsetSeconds,
                offsetIsUnknown: instant.offsetIsUnknown, to: text.baseAddress!)
            return ObjectReader.instant(text: UnsafeRawBufferPointer(start: text.baseAddress!, count: count))
        }
        if let read { return read }
        return try ObjectReader.instant(value(field), path: path(field))
    }

    func repeated<Value>(
        _ field: SampleFields.Field, _ cache: inout RepeatedField<Value>,
        _ make: (JSONValue) throws(FieldError) -> Value
    ) throws(FieldError) -> Value {
        guard let text = string(field) else { return try make(value(field)) }
        return try cache.value(ofString: text) { () throws(FieldError) in try make(.string(text)) }
    }

    /// The number the decoder reads from a number's written text.
    private static func number(_ literal: String) -> JSONValue {
        literal.withRawUTF8 { JSONSpan(kind: .other, start: 0, end: Int32($0.count)).value(in: $0) }
    }

    /// A workout total as written: a bare number, or `{"value", "unit"}`.
    private static func total(_ total: WorkoutTotal?) -> JSONValue {
        guard let total else { return .null }
        let value = number(EnvelopeJSON.number(total.value))
        guard let unit = total.unit else { return value }
        return .object(JSONObject(members: [("value", value), ("unit", .string(unit.symbol))]))
    }
}
