/// Where `EnvelopeDecoder.sample(_:repeats:)` reads one sample's fields from: the JSON of a sample
/// object (`SampleInput`), or a `Sample` built outside ingest (`WrittenSample`).
///
/// Both go through the one function that holds the contract's sample rules (contract §1
/// "Samples"), so a sample an importer builds meets exactly the checks a sample read from an
/// envelope meets, in the same order and with the same errors.
protocol SampleSource: ~Copyable {
    /// A field's value as this source holds it.
    associatedtype Span

    /// What the decoder returns for a sample that passes: the `Sample` read, or nothing for a
    /// sample that was built already (it is only checked).
    associatedtype Checked

    /// Where the sample is in its envelope, for error paths.
    var element: ElementPath { get }

    /// The name of the first member that is no sample field, if any.
    var unknownKey: String? { get }

    /// A required field's value; `.missingField` when the sample has none.
    func required(_ field: SampleFields.Field) throws(FieldError) -> Span

    /// An optional field's value, or `nil` when the sample has none; an explicit `null` is refused.
    func optional(_ field: SampleFields.Field) throws(FieldError) -> Span?

    /// Whether the sample has `field` at all.
    func has(_ field: SampleFields.Field) -> Bool

    /// The JSON value of a field.
    func value(_ span: Span) -> JSONValue

    /// The `Double` of a field that is a JSON number (`JSONNumber.double` of its value), or `nil`
    /// when it is not a number.
    func number(_ span: Span) -> Double?

    /// A string field checked against `rule`.
    func string(_ span: Span, _ field: SampleFields.Field, _ rule: StringRule) throws(FieldError) -> String

    /// The sample's id, checked against the id rule.
    func id(_ span: Span) throws(FieldError) -> SampleID

    /// An RFC 3339 instant field.
    func instant(_ span: Span, _ field: SampleFields.Field) throws(FieldError) -> Instant

    /// What an instant field holds beyond its millisecond (`RFC3339.fractionBeyondMillis`):
    /// instants are kept to the millisecond, but an end before its start within one is still
    /// refused.
    func fractionBeyondMillis(_ span: Span) -> Int64

    /// What the decoder returns for a sample that passed, given the sample it read (built only
    /// when this source needs it).
    func checked(_ sample: () -> Sample) -> Checked

    /// The value `make` builds from a field, reused while consecutive samples repeat its text.
    func repeated<Value>(
        _ span: Span, _ cache: inout RepeatedField<Value>, _ make: (JSONValue) throws(FieldError) -> Value
    ) throws(FieldError) -> Value
}

extension SampleSource where Self: ~Copyable {
    /// The path of `field` in this sample.
    func path(_ field: SampleFields.Field) -> String { element.field(field.name) }
}
