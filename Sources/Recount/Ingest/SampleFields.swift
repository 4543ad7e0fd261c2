/// The members of one sample object, sorted into fields in a single pass.
///
/// Samples are ingest's hot path (thousands per envelope), so they skip `ObjectReader`'s
/// per-field lookups. Field names hold no `K`, `;` or `` ` `` (the only ASCII characters another
/// Unicode scalar is canonically equivalent to), so `String ==` on them is byte equality.
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

    /// Stores member `key`; `false` when the key is not a sample field or was already set.
    mutating func set(_ key: String, _ value: JSONValue) -> Bool {
        // Dispatch on the length first: one string comparison per member.
        switch key.utf8.count {
        case 2 where key == "id": return fill(&id, value)
        case 3 where key == "end": return fill(&end, value)
        case 4 where key == "type": return fill(&type, value)
        case 4 where key == "unit": return fill(&unit, value)
        case 5 where key == "start": return fill(&start, value)
        case 5 where key == "value": return fill(&self.value, value)
        case 5 where key == "stage": return fill(&stage, value)
        case 6 where key == "origin": return fill(&origin, value)
        case 6 where key == "device": return fill(&device, value)
        case 8 where key == "timeZone": return fill(&timeZone, value)
        case 11 where key == "syncVersion": return fill(&syncVersion, value)
        case 12 where key == "lastModified": return fill(&lastModified, value)
        case 14 where key == "syncIdentifier": return fill(&syncIdentifier, value)
        default: return false
        }
    }

    private func fill(_ slot: inout JSONValue?, _ value: JSONValue) -> Bool {
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
