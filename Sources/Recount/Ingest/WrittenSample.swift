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

    /// The sample exists already: the decoder only checks it, and builds no copy.
    func checked(_: () -> Sample) {}

    /// A written sample has only sample fields.
    var unknownKey: String? { nil }

    func required(_ field: SampleFields.Field) throws(FieldError) -> SampleFields.Field {
        guard has(field) else { throw FieldError.missing(at: path(field)) }
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

    /// The `Double` the decoder reads from the number `EnvelopeJSON.number` writes for a field,
    /// without writing it. For `value`, the field on every quantity sample: a finite double reads
    /// back as itself (integral values under 10^15 are written as integers, exact; others in
    /// Swift's shortest form that round-trips, which is JSON number syntax and which the reader,
    /// correctly rounded, reads back exactly), except that `-0` is written `0`; a non-finite one
    /// is written `inf` or `nan`, which is no number. Other fields are written and read.
    func number(_ field: SampleFields.Field) -> Double? {
        if field == .value, let number = sample.pointee.value {
            guard number.isFinite else { return nil }
            return number == 0 ? 0 : number
        }
        guard case .number(let number) = value(field) else { return nil }
        return number.double
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

    /// Nothing: a `Sample`'s instants are whole milliseconds.
    func fractionBeyondMillis(_: SampleFields.Field) -> Int64 { 0 }

    /// The instant as the decoder reads its written text back (a year the writer cannot write
    /// as RFC 3339, or year 0000, is refused as it would be in an envelope).
    func instant(_ field: SampleFields.Field, _: SampleFields.Field) throws(FieldError) -> Instant {
        guard
            let instant = field == .start
                ? sample.pointee.start : field == .end ? sample.pointee.end : sample.pointee.lastModified
        else {
            throw FieldError.missing(at: path(field))
        }
        if let read = Self.readBack(instant) { return read }
        let read = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RFC3339.maximumLength) { text in
            let count = RFC3339.write(
                millis: instant.millis, offsetSeconds: instant.offsetSeconds,
                offsetIsUnknown: instant.offsetIsUnknown, to: text.baseAddress!)
            return ObjectReader.instant(text: UnsafeRawBufferPointer(start: text.baseAddress!, count: count))
        }
        if let read { return read }
        return try ObjectReader.instant(value(field), path: path(field))
    }

    /// The instant the decoder reads back from the text `RFC3339.write` gives `instant`, without
    /// writing it, when that text is certain to read back: a whole-minute offset within ±23:59
    /// and a local time in years 0001–9999 (see `RFC3339.format`: then `parse(format(m, o, u))`
    /// is `(m, o, u)`, and `ObjectReader.instant` refuses only year 0000). `nil` for any other
    /// instant, which is written and read.
    static func readBack(_ instant: Instant) -> Instant? {
        guard instant.offsetSeconds % 60 == 0, instant.offsetSeconds.magnitude <= maximumOffsetSeconds,
            instant.millis >= -maximumEpochMillis, instant.millis <= maximumEpochMillis
        else { return nil }
        let local = instant.millis + Int64(instant.offsetSeconds) * 1000
        guard local >= firstLocalMillis, local < endLocalMillis else { return nil }
        return Instant(
            millis: instant.millis, offsetSeconds: instant.offsetSeconds, offsetIsUnknown: instant.offsetIsUnknown)
    }

    /// The largest offset RFC 3339 text can hold (±23:59), in seconds.
    private static let maximumOffsetSeconds: UInt32 = 23 * 3600 + 59 * 60
    /// Instants further from 1970 than this are never read back without writing them (the
    /// local-time arithmetic stays far from overflow); years 0001–9999 lie well within.
    private static let maximumEpochMillis: Int64 = 1 << 50
    /// 0001-01-01T00:00:00 local, in milliseconds since 1970-01-01T00:00:00 local.
    private static let firstLocalMillis = CivilDay.daysFromCivil(year: 1, month: 1, day: 1) * Timestamp.millisPerDay
    /// 10000-01-01T00:00:00 local, the end of the years RFC 3339 text can write.
    private static let endLocalMillis = CivilDay.daysFromCivil(year: 10_000, month: 1, day: 1) * Timestamp.millisPerDay

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
        return .object(
            JSONObject(members: [.init(key: "value", value: value), .init(key: "unit", value: .string(unit.symbol))]))
    }
}
