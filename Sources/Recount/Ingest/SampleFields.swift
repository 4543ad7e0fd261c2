internal import Glibc

/// The members of one sample object as spans of its JSON text, sorted into fields in one pass.
///
/// Samples are ingest's hot path (thousands per envelope). A span is three integers, so reading
/// a sample allocates nothing and copying one retains nothing; the decoder turns each span into
/// a value only once it checks the field. Spans point into the bytes the sample was read from,
/// which must outlive the fields.
struct SampleFields {
    /// The fields of a sample, by member name.
    enum Field: Int {
        case id, type, start, end, timeZone, value, unit, stage, origin, device, syncIdentifier, syncVersion,
            lastModified, activity, distance, energy

        /// The member name.
        var name: String { literal.description }

        /// The member name as a static string.
        var literal: StaticString {
            switch self {
            case .id: "id"
            case .type: "type"
            case .start: "start"
            case .end: "end"
            case .timeZone: "timeZone"
            case .value: "value"
            case .unit: "unit"
            case .stage: "stage"
            case .origin: "origin"
            case .device: "device"
            case .syncIdentifier: "syncIdentifier"
            case .syncVersion: "syncVersion"
            case .lastModified: "lastModified"
            case .activity: "activity"
            case .distance: "distance"
            case .energy: "energy"
            }
        }

        /// The field a member name's exact bytes name, if any.
        init?(name: UnsafeRawBufferPointer) {
            // The length and first byte pick the one candidate (the last byte tells start from
            // stage); the bytes then confirm it.
            guard name.count >= 2 else { return nil }
            let candidate: Field
            switch (name.count, name[0]) {
            case (2, UInt8(ascii: "i")): candidate = .id
            case (4, UInt8(ascii: "t")): candidate = .type
            case (5, UInt8(ascii: "s")): candidate = name[4] == UInt8(ascii: "t") ? .start : .stage
            case (3, UInt8(ascii: "e")): candidate = .end
            case (8, UInt8(ascii: "t")): candidate = .timeZone
            case (5, UInt8(ascii: "v")): candidate = .value
            case (4, UInt8(ascii: "u")): candidate = .unit
            case (6, UInt8(ascii: "o")): candidate = .origin
            case (6, UInt8(ascii: "d")): candidate = .device
            case (14, UInt8(ascii: "s")): candidate = .syncIdentifier
            case (11, UInt8(ascii: "s")): candidate = .syncVersion
            case (12, UInt8(ascii: "l")): candidate = .lastModified
            case (8, UInt8(ascii: "a")): candidate = .activity
            case (8, UInt8(ascii: "d")): candidate = .distance
            case (6, UInt8(ascii: "e")): candidate = .energy
            default: return nil
            }
            guard memcmp(candidate.literal.utf8Start, name.baseAddress!, name.count) == 0 else { return nil }
            self = candidate
        }
    }

    private var spans = InlineArray<16, JSONSpan>(repeating: JSONSpan())
    /// The key of the first member that names no field, if any (a span of kind `.string`).
    private(set) var unknownKey: JSONSpan?

    /// The span of `field`; kind `.absent` when the sample left it out.
    subscript(field: Field) -> JSONSpan {
        @inline(__always) get { spans[field.rawValue] }
    }

    /// Reads the object at the reader (its `{`) into `fields`, which must be empty (as
    /// `SampleFields()`); `false` when a field repeats (the tree parser then names the duplicate
    /// key). Filled in place: returned, the fields (about 200 bytes) were copied three times a
    /// sample, and once more into the lifted array.
    /// - Parameters:
    ///   - openLevels: containers open around the object's members that the reader has not
    ///     counted (see `JSONReader.span(openLevels:)`).
    ///   - order: the fields of the previous sample in member order; a member whose bytes are
    ///     the expected name in quotes is taken without scanning its key. Updated as read.
    /// - Throws: `JSONReadFailure` when the object is not valid JSON.
    static func read(
        _ reader: inout JSONReader, openLevels: Int, order: inout MemberOrder<Field>, into fields: inout SampleFields
    ) throws(JSONReadFailure) -> Bool {
        reader.index &+= 1  // {
        reader.skipWhitespace()
        if reader.next(is: 0x7D) { return true }  // }
        var member = 0
        repeat {
            reader.skipWhitespace()
            guard reader.index < reader.count, reader.byte(reader.index) == 0x22 else {
                throw JSONReadFailure(.syntax, offset: reader.index, reason: "expected a member name")
            }
            let key: JSONSpan
            let field: Field?
            if let expected = order[member], let span = reader.quotedName(expected.literal) {
                (key, field) = (span, expected)
            } else {
                key = try reader.span(openLevels: openLevels)
                field = key.kind == .string ? Field(name: key.text(in: reader.bytes)) : nil
                order[member] = field
            }
            member &+= 1
            reader.skipWhitespace()
            guard reader.next(is: 0x3A) else {
                throw JSONReadFailure(.syntax, offset: reader.index, reason: "expected ':'")
            }
            reader.skipWhitespace()
            let value = try reader.span(openLevels: openLevels)
            if let field {
                guard fields.spans[field.rawValue].kind == .absent else { return false }
                fields.spans[field.rawValue] = value
            } else if fields.unknownKey == nil {
                fields.unknownKey = key
            }
            reader.skipWhitespace()
        } while try reader.nextSeparator(close: 0x7D)
        return true
    }
}
