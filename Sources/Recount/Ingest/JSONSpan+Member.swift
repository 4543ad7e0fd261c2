/// The rules a member read as a span meets, whether a sample's (`SampleInput`) or an envelope's
/// own (`RootInput`): one place for what is missing, `null`, a string or an instant, and for the
/// errors that name it.
extension JSONSpan {
    /// This member's span; `.missingField` at `path` when the object left it out.
    @inline(__always)
    func required(path: @autoclosure () -> String) throws(FieldError) -> JSONSpan {
        guard kind != .absent else { throw FieldError.missing(at: path()) }
        return self
    }

    /// This member's span, or `nil` when the object left it out; an explicit `null` is refused
    /// (leave the member out instead).
    @inline(__always)
    func optional(in bytes: UnsafeRawBufferPointer, path: @autoclosure () -> String) throws(FieldError)
        -> JSONSpan?
    {
        guard kind != .absent else { return nil }
        if isNull(in: bytes) { throw FieldError.nullGiven(at: path()) }
        return self
    }

    /// Whether the span holds `null` (no other value of kind `.other` starts with `n`).
    @inline(__always)
    func isNull(in bytes: UnsafeRawBufferPointer) -> Bool {
        kind == .other && bytes[Int(start)] == UInt8(ascii: "n")
    }

    /// The string the span holds, checked against `rule`: straight from the bytes when it is a
    /// plain string.
    @inline(__always)
    func string(in bytes: UnsafeRawBufferPointer, _ rule: StringRule, path: @autoclosure () -> String)
        throws(FieldError) -> String
    {
        guard kind == .string else { return try rule.check(value(in: bytes), path: path()) }
        return try rule.string(utf8: text(in: bytes), path: path())
    }

    /// The RFC 3339 instant the span holds: parsed straight from the bytes when it is a plain
    /// string.
    @inline(__always)
    func instant(in bytes: UnsafeRawBufferPointer, path: @autoclosure () -> String) throws(FieldError) -> Instant {
        if kind == .string, let instant = ObjectReader.instant(text: text(in: bytes)) { return instant }
        return try ObjectReader.instant(value(in: bytes), path: path())
    }
}
