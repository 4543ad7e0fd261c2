/// An envelope's root members as the decoder checks them: their spans, the bytes they point
/// into, and errors that name each member by its path.
///
/// Plain strings are read straight from the bytes; any other value (a string with escapes, a
/// number, an array) is parsed from its span when it is read, through the same checks the
/// members of nested objects meet (`ObjectReader`), so each error reads the same.
///
/// The fields are read through a pointer to the scan's: they are about 450 bytes, and reading a
/// member through a copy of them copied them all (320,000 copies for 40,000 envelopes).
struct RootInput {
    private let fieldsPointer: UnsafePointer<RootFields>
    let bytes: UnsafeRawBufferPointer

    typealias Field = RootFields.Field

    /// The input of the fields at `fields`, which must stay valid and unchanged while it is used.
    init(fields: UnsafePointer<RootFields>, bytes: UnsafeRawBufferPointer) {
        fieldsPointer = fields
        self.bytes = bytes
    }

    private var fields: RootFields {
        @inline(__always) _read { yield fieldsPointer.pointee }
    }

    /// The path of member `field`: its name (the root is the envelope).
    func path(_ field: Field) -> String { field.name }

    /// Rejects the first member, in input order, that is no field or not one of `allowed`.
    func allowOnly(_ allowed: RootFields.FieldSet) throws(FieldError) {
        let name: String
        switch fields.firstMember(notIn: allowed) {
        case nil: return
        case .field(let field): name = field.name
        case .unknown(let key):
            guard case .string(let text) = value(key) else { preconditionFailure("a member's key is a string") }
            name = text
        }
        throw FieldError.unknown(at: ElementPath.member(name, of: nil))
    }

    /// A required member's span.
    func required(_ field: Field) throws(FieldError) -> JSONSpan { try fields[field].required(path: path(field)) }

    /// An optional member's span; an explicit `null` is refused (leave the member out instead).
    func optional(_ field: Field) throws(FieldError) -> JSONSpan? {
        try fields[field].optional(in: bytes, path: path(field))
    }

    /// The JSON value of a span.
    func value(_ span: JSONSpan) -> JSONValue { span.value(in: bytes) }

    /// `body` of the UTF-8 bytes of a span that holds a string (unescaped), or `nil` when it
    /// holds anything else.
    func withText<Result>(_ span: JSONSpan, _ body: (UnsafeRawBufferPointer) throws(FieldError) -> Result)
        throws(FieldError) -> Result?
    {
        if span.kind == .string { return try body(span.text(in: bytes)) }
        guard case .string(let text) = value(span) else { return nil }
        return try text.withRawUTF8 { utf8 throws(FieldError) in try body(utf8) }
    }

    /// A string member checked against `rule`.
    func string(_ field: Field, _ rule: StringRule) throws(FieldError) -> String {
        try required(field).string(in: bytes, rule, path: path(field))
    }

    func optionalString(_ field: Field, _ rule: StringRule) throws(FieldError) -> String? {
        try optional(field)?.string(in: bytes, rule, path: path(field))
    }

    func bool(_ field: Field) throws(FieldError) -> Bool {
        try ObjectReader.bool(value(try required(field)), path: path(field))
    }

    /// An RFC 3339 instant member, whose UTC time must fall within the years 0001–9999 (see
    /// `ObjectReader.instant(_:)`).
    func instant(_ field: Field) throws(FieldError) -> Instant {
        try utcInstant(try required(field), field)
    }

    func optionalInstant(_ field: Field) throws(FieldError) -> Instant? {
        guard let span = try optional(field) else { return nil }
        return try utcInstant(span, field)
    }

    private func utcInstant(_ span: JSONSpan, _ field: Field) throws(FieldError) -> Instant {
        try ObjectReader.checkUTCYears(try span.instant(in: bytes, path: path(field)), path: path(field))
    }

    func integer(_ field: Field, in range: ClosedRange<Int64>) throws(FieldError) -> Int64 {
        try ObjectReader.integer(value(try required(field)), in: range, path: path(field))
    }

    /// The elements of an array member, at most `limit` (and at least `minimum`).
    func array(_ field: Field, minimum: Int = 0, limit: Int = EnvelopeLimits.itemsPerArray) throws(FieldError)
        -> [JSONValue]
    {
        let span = try required(field)
        // An empty array, as most deliveries' `deleted`, needs no parse.
        if span.kind == .other, span.end - span.start == 2, bytes[Int(span.start)] == UInt8(ascii: "["),
            minimum == 0
        {
            return []
        }
        return try ObjectReader.items(value(span), minimum: minimum, limit: limit, path: path(field))
    }

    /// Checks the number of items of array member `field`.
    func checkCount(_ field: Field, _ count: Int, minimum: Int = 0, limit: Int = EnvelopeLimits.itemsPerArray)
        throws(FieldError)
    {
        try ObjectReader.checkCount(count, minimum: minimum, limit: limit, path: path(field))
    }

    /// An object member, read as a tree.
    func object(_ field: Field) throws(FieldError) -> ObjectReader {
        try ObjectReader(value(try required(field)), path: path(field))
    }
}
