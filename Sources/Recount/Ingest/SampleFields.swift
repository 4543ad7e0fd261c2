/// The members of one sample object, sorted into fields in a single pass.
///
/// Samples are ingest's hot path (thousands per envelope), so they skip `ObjectReader`'s
/// per-field lookups; member names are matched by their exact bytes.
struct SampleFields {
    let path: ElementPath
    var id: JSONValue?
    var type: JSONValue?
    var start: JSONValue?
    var end: JSONValue?
    var timeZone: JSONValue?
    var value: JSONValue?
    var unit: JSONValue?
    var stage: JSONValue?
    var origin: JSONValue?
    var device: JSONValue?
    var syncIdentifier: JSONValue?
    var syncVersion: JSONValue?
    var lastModified: JSONValue?

    /// No fields yet; `set` fills them.
    init(path: ElementPath) { self.path = path }

    /// Sorts the members of a parsed sample object into fields.
    init(_ object: JSONValue, path: ElementPath) throws(FieldError) {
        guard case .object(let members) = object else { throw FieldError(path: path.text, reason: "must be an object") }
        self.path = path
        for (key, value) in members.members where !set(key, value) {
            throw FieldError(path: path.field(key), reason: "is not a known field")
        }
    }

    /// The fields of a sample, by member name.
    enum Field: Int, CaseIterable {
        case id, type, start, end, timeZone, value, unit, stage, origin, device, syncIdentifier, syncVersion,
            lastModified

        private static let names: [[UInt8]] = [
            "id", "type", "start", "end", "timeZone", "value", "unit", "stage", "origin", "device", "syncIdentifier",
            "syncVersion", "lastModified",
        ].map { Array($0.utf8) }

        /// The field a member name's exact bytes name, if any.
        init?(name: UnsafeRawBufferPointer) {
            for (index, candidate) in Self.names.enumerated()
            where candidate.count == name.count && name.elementsEqual(candidate) {
                self.init(rawValue: index)
                return
            }
            return nil
        }

        /// For fields whose text repeats from sample to sample (type, origin, unit, device,
        /// zone), a slot where the scan keeps the last one to reuse.
        var repeatSlot: Int? {
            switch self {
            case .type: 0
            case .origin: 1
            case .unit: 2
            case .device: 3
            case .timeZone: 4
            default: nil
            }
        }
    }

    /// Stores member `key`; `false` when the key is not a sample field or was already set.
    mutating func set(_ key: String, _ value: JSONValue) -> Bool {
        var key = key
        guard let field = key.withUTF8({ Field(name: UnsafeRawBufferPointer($0)) }) else { return false }
        return set(field, value)
    }

    /// Stores `field`; `false` when it was already set.
    mutating func set(_ field: Field, _ value: JSONValue) -> Bool {
        switch field {
        case .id: Self.fill(&id, value)
        case .type: Self.fill(&type, value)
        case .start: Self.fill(&start, value)
        case .end: Self.fill(&end, value)
        case .timeZone: Self.fill(&timeZone, value)
        case .value: Self.fill(&self.value, value)
        case .unit: Self.fill(&unit, value)
        case .stage: Self.fill(&stage, value)
        case .origin: Self.fill(&origin, value)
        case .device: Self.fill(&device, value)
        case .syncIdentifier: Self.fill(&syncIdentifier, value)
        case .syncVersion: Self.fill(&syncVersion, value)
        case .lastModified: Self.fill(&lastModified, value)
        }
    }

    private static func fill(_ slot: inout JSONValue?, _ value: JSONValue) -> Bool {
        guard slot == nil else { return false }
        slot = value
        return true
    }

    /// A required field's value.
    func required(_ value: JSONValue?, _ key: String) throws(FieldError) -> JSONValue {
        guard let value else { throw FieldError(path: path.field(key), reason: "is required") }
        return value
    }

    /// An optional field's value; an explicit `null` is refused (leave the field out instead).
    func optional(_ value: JSONValue?, _ key: String) throws(FieldError) -> JSONValue? {
        if case .null = value { throw FieldError(path: path.field(key), reason: "must not be null (leave it out)") }
        return value
    }
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
