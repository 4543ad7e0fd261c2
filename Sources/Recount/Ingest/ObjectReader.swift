/// Reads the members of one JSON object nested in an envelope (a deletion, a change, a
/// reconcile's window, a workout total), naming each field's path in errors; the envelope's own
/// members are read as spans (`RootInput`).
struct ObjectReader {
    let object: JSONObject
    let path: String

    init(_ value: JSONValue, path: String) throws(FieldError) {
        guard case .object(let object) = value else {
            throw FieldError(.wrongType, path: path, reason: "must be an object")
        }
        self.object = object
        self.path = path
    }

    /// The path of member `key`.
    func path(_ key: String) -> String { ElementPath.member(key, of: path) }

    /// Rejects members not in `known` (the first in input order), compared by bytes: the lists
    /// are short, so a scan is cheaper than hashing every key.
    func allowOnly(_ known: [String]) throws(FieldError) {
        for member in object.members where !known.contains(where: { JSONObject.sameScalars($0, member.key) }) {
            throw FieldError.unknown(at: path(member.key))
        }
    }

    func required(_ key: String) throws(FieldError) -> JSONValue {
        guard let value = object[key] else { throw FieldError.missing(at: path(key)) }
        return value
    }

    /// An optional member; an explicit `null` is refused (leave the field out instead).
    func optional(_ key: String) throws(FieldError) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if case .null = value { throw FieldError.nullGiven(at: path(key)) }
        return value
    }

    func string(_ key: String, _ rule: StringRule) throws(FieldError) -> String {
        try rule.check(try required(key), path: path(key))
    }

    func optionalString(_ key: String, _ rule: StringRule) throws(FieldError) -> String? {
        guard let value = try optional(key) else { return nil }
        return try rule.check(value, path: path(key))
    }

    func bool(_ key: String) throws(FieldError) -> Bool { try Self.bool(try required(key), path: path(key)) }

    /// The flag `value` holds.
    static func bool(_ value: JSONValue, path: @autoclosure () -> String) throws(FieldError) -> Bool {
        guard case .bool(let flag) = value else {
            throw FieldError(.wrongType, path: path(), reason: "must be true or false")
        }
        return flag
    }

    /// The RFC 3339 instant of member `key` (`receivedAt`, `at`, a window's ends), whose UTC
    /// time must fall within the years 0001–9999 (`9999-12-31T23:59:59-23:59` does not): the
    /// engine writes these instants in UTC, and each must read back. (Sample times have their
    /// own, narrower range: `EnvelopeDecoder.checkDaysNameable`.)
    func instant(_ key: String) throws(FieldError) -> Instant {
        try Self.checkUTCYears(try Self.instant(try required(key), path: path(key)), path: path(key))
    }

    func optionalInstant(_ key: String) throws(FieldError) -> Instant? {
        guard let value = try optional(key) else { return nil }
        return try Self.checkUTCYears(try Self.instant(value, path: path(key)), path: path(key))
    }

    static func checkUTCYears(_ instant: Instant, path: @autoclosure () -> String) throws(FieldError)
        -> Instant
    {
        guard RFC3339.utcYearsMillis.contains(instant.millis) else {
            throw FieldError(
                .outOfRange, path: path(),
                reason: "is out of range (instants lie between 0001-01-01 and 9999-12-31 UTC)")
        }
        return instant
    }

    /// What the instant of member `key` (which parsed) holds beyond its millisecond.
    func fractionBeyondMillis(_ key: String) -> Int64 {
        guard case .string(let text) = object[key] else { return 0 }
        return RFC3339.fractionBeyondMillis(text)
    }

    /// An RFC 3339 instant; year 0000 is refused, as RFC 3339 date validators (and the schema's) do.
    static func instant(_ value: JSONValue, path: @autoclosure () -> String) throws(FieldError) -> Instant {
        guard case .string(let text) = value else {
            throw FieldError(.wrongType, path: path(), reason: "must be an RFC 3339 date-time string")
        }
        guard let instant = text.withRawUTF8({ Self.instant(text: $0) }) else {
            throw FieldError(
                .invalidTime, path: path(), reason: "is not an RFC 3339 date-time with an offset (\(text))")
        }
        return instant
    }

    /// The instant RFC 3339 `text` (UTF-8) stands for, or `nil`.
    static func instant(text: UnsafeRawBufferPointer) -> Instant? {
        let yearZero = text.count >= 4 && text.prefix(4).allSatisfy { $0 == UInt8(ascii: "0") }
        guard !yearZero, let parsed = RFC3339.parse(text) else { return nil }
        return Instant(
            millis: parsed.millis, offsetSeconds: parsed.offsetSeconds, offsetIsUnknown: parsed.offsetIsUnknown)
    }

    func integer(_ key: String, in range: ClosedRange<Int64>) throws(FieldError) -> Int64 {
        try Self.integer(try required(key), in: range, path: path(key))
    }

    static func integer(
        _ value: JSONValue, in range: ClosedRange<Int64>, path: @autoclosure () -> String
    ) throws(FieldError) -> Int64 {
        guard case .number(let number) = value else {
            throw FieldError(.wrongType, path: path(), reason: "must be an integer")
        }
        let integer = integralValue(number)
        if let integer, range.contains(integer) { return integer }
        // An integer too large for 64 bits (or for a double) is still an integer.
        let double = number.double
        guard integer != nil || !double.isFinite || double == double.rounded() else {
            throw FieldError(.wrongType, path: path(), reason: "must be an integer")
        }
        throw FieldError(
            .outOfRange, path: path(), reason: "must be between \(range.lowerBound) and \(range.upperBound)")
    }

    /// The integer a number stands for, also when written `1.0` or `1e3` (JSON Schema's view:
    /// the value of its nearest double).
    private static func integralValue(_ number: JSONNumber) -> Int64? {
        if let exact = number.int64 { return exact }
        // Every whole double in [-2^63, 2^63) converts exactly.
        let double = number.double
        guard double == double.rounded(), double >= -0x1p63, double < 0x1p63 else { return nil }
        return Int64(double)
    }

    /// The elements of an array member, at most `limit` (and at least `minimum`).
    func array(_ key: String, minimum: Int = 0, limit: Int = EnvelopeLimits.itemsPerArray) throws(FieldError)
        -> [JSONValue]
    {
        try Self.items(try required(key), minimum: minimum, limit: limit, path: path(key))
    }

    /// The elements of the array `value`, at most `limit` (and at least `minimum`).
    static func items(_ value: JSONValue, minimum: Int, limit: Int, path: @autoclosure () -> String)
        throws(FieldError) -> [JSONValue]
    {
        guard case .array(let items) = value else {
            throw FieldError(.wrongType, path: path(), reason: "must be an array")
        }
        try checkCount(items.count, minimum: minimum, limit: limit, path: path())
        return items
    }

    /// Checks the number of items of an array.
    static func checkCount(_ count: Int, minimum: Int, limit: Int, path: @autoclosure () -> String)
        throws(FieldError)
    {
        guard count >= minimum else { throw FieldError(.emptyArray, path: path(), reason: "must not be empty") }
        guard count <= limit else {
            throw FieldError(
                .tooManyItems, path: path(), reason: "has \(count) items; at most \(limit) are accepted")
        }
    }
}

/// The shape a string field must have.
struct StringRule: Sendable {
    var minimum = 1
    var maximum: Int
    /// Allowed ASCII bytes, or `nil` for any text without control characters.
    var ascii: ASCIISet? = nil
    var describe: String
    /// The code of a string with bytes outside `ascii`.
    var outsideASCII: IngestError.Code = .invalidCharacters

    /// The string in `value` if it has this shape; `path` is rendered only for an error.
    func check(_ value: JSONValue, path: @autoclosure () -> String) throws(FieldError) -> String {
        guard case .string(let text) = value else {
            throw FieldError(.wrongType, path: path(), reason: "must be a string")
        }
        try text.withRawUTF8 { utf8 throws(FieldError) in try check(utf8: utf8, path: path()) }
        return text
    }

    /// The string whose UTF-8 bytes are `utf8` (valid UTF-8, as JSON strings are) if it has this
    /// shape.
    func string(utf8: UnsafeRawBufferPointer, path: @autoclosure () -> String) throws(FieldError) -> String {
        try check(utf8: utf8, path: path())
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Checks a string's UTF-8 bytes (valid UTF-8, as JSON strings are) against this shape.
    func check(utf8: UnsafeRawBufferPointer, path: @autoclosure () -> String) throws(FieldError) {
        // A scalar is 1 to 4 UTF-8 bytes, so the byte count settles most length checks; else
        // count the bytes that start a scalar (all but continuation bytes).
        let bytes = utf8.count
        let settled = bytes <= maximum && (bytes + 3) / 4 >= minimum
        let count = settled ? minimum : utf8.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        guard count >= minimum, count <= maximum else {
            throw FieldError(
                .invalidLength, path: path(),
                reason: minimum == maximum
                    ? "must be \(minimum) characters" : "must be \(minimum) to \(maximum) characters")
        }
        if let ascii {
            guard utf8.allSatisfy({ ascii.contains($0) }) else {
                throw FieldError(outsideASCII, path: path(), reason: "must be \(describe)")
            }
        } else if utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            // Control characters are single bytes in UTF-8, so the bytes tell.
            throw FieldError(.invalidCharacters, path: path(), reason: "must not contain control characters")
        }
    }

    static let user = StringRule(
        maximum: 128, ascii: .alphanumerics(and: ".-_:@"),
        describe: "letters, digits and . _ : @ -")
    static let provider = StringRule(
        maximum: 64, ascii: .alphanumerics(and: "._-"), describe: "letters, digits and . _ -")
    static let cohort = StringRule(
        maximum: 64, ascii: .alphanumerics(and: "._:-"), describe: "letters, digits and . _ : -")
    static let timeZone = StringRule(
        maximum: 64, ascii: .alphanumerics(and: "_+-/"), describe: "an IANA time zone name",
        outsideASCII: .unknownTimeZone)
    static let base64 = StringRule(
        minimum: 0, maximum: 65_536, ascii: .alphanumerics(and: "+/="), describe: "base64",
        outsideASCII: .invalidBase64)
    static let id = StringRule(maximum: EnvelopeLimits.idLength, describe: "an id")
    static let text = StringRule(maximum: 256, describe: "text")
    static let device = StringRule(minimum: 0, maximum: 256, describe: "text")
    static let token = StringRule(maximum: 4096, describe: "a token")
}

/// The limits that protect the engine (documented in `docs/ingest.md`).
package enum EnvelopeLimits {
    /// Bytes in one NDJSON line.
    package static let lineBytes = 8 << 20
    /// Items in any one array of an envelope (samples, deletions, changes, ids).
    package static let itemsPerArray = 50_000
    /// Characters in a sample id.
    package static let idLength = 256
    /// Nesting depth of the JSON.
    package static let depth = 64
}
