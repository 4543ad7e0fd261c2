internal import Glibc

/// The members of an envelope's root object as spans of its line, sorted into fields as they
/// are read, as `SampleFields` does for a sample: no JSON tree and no string is built for them.
///
/// The root was a tree of `JSONValue`s with a `String` per key, and read by key: about 16,000
/// instructions an envelope, a fifth of an ingest's.
struct RootFields {
    /// The members an envelope may have, whatever its kind (contract §1).
    enum Field: Int, CaseIterable {
        case kind, user, receivedAt, type, anchor, newAnchor, added, deleted, recordTypes, token, nextChangesToken,
            hasMore, changesTokenExpired, changes, provider, samples, ids, metrics, at, metric, window, priority,
            expectedCheckinSeconds, cohort, origins

        /// The member name.
        var name: String { literal.description }

        /// The member name as a static string.
        var literal: StaticString {
            switch self {
            case .kind: "kind"
            case .user: "user"
            case .receivedAt: "receivedAt"
            case .type: "type"
            case .anchor: "anchor"
            case .newAnchor: "newAnchor"
            case .added: "added"
            case .deleted: "deleted"
            case .recordTypes: "recordTypes"
            case .token: "token"
            case .nextChangesToken: "nextChangesToken"
            case .hasMore: "hasMore"
            case .changesTokenExpired: "changesTokenExpired"
            case .changes: "changes"
            case .provider: "provider"
            case .samples: "samples"
            case .ids: "ids"
            case .metrics: "metrics"
            case .at: "at"
            case .metric: "metric"
            case .window: "window"
            case .priority: "priority"
            case .expectedCheckinSeconds: "expectedCheckinSeconds"
            case .cohort: "cohort"
            case .origins: "origins"
            }
        }

        /// The field a member name's exact (unescaped) bytes name, if any. Names are mostly
        /// taken from the member order of the line before (`MemberOrder`), so this runs for few.
        init?(name: UnsafeRawBufferPointer) {
            guard
                let field = Self.allCases.first(where: {
                    $0.literal.utf8CodeUnitCount == name.count
                        && memcmp($0.literal.utf8Start, name.baseAddress!, name.count) == 0
                })
            else { return nil }
            self = field
        }

        /// This field as a member of a `FieldSet`.
        var bit: UInt32 { 1 << UInt32(rawValue) }
    }

    /// A set of fields, as bits by raw value.
    struct FieldSet {
        var bits: UInt32 = 0

        init(_ fields: [Field]) {
            for field in fields { bits |= field.bit }
        }

        func contains(_ field: Field) -> Bool { bits & field.bit != 0 }
    }

    private var spans = InlineArray<25, JSONSpan>(repeating: JSONSpan())
    /// Each present field's place among the members (0 for the first), for naming the first
    /// member a kind does not allow.
    private var places = InlineArray<25, Int32>(repeating: 0)
    /// The fields present.
    private(set) var present = FieldSet([])
    /// The key of the first member that names no field (the span of its name), and its place.
    private(set) var firstUnknown: (key: JSONSpan, place: Int)? = nil
    /// How many members name no field.
    private(set) var unknownCount = 0

    /// The span of `field`; kind `.absent` when the envelope left it out.
    subscript(field: Field) -> JSONSpan {
        @inline(__always) get { spans[field.rawValue] }
    }

    /// Records `value` as `field`'s, the member at `place`; `false` when the field was there already.
    mutating func set(_ field: Field, _ value: JSONSpan, place: Int) -> Bool {
        guard !present.contains(field) else { return false }
        present.bits |= field.bit
        spans[field.rawValue] = value
        places[field.rawValue] = Int32(place)
        return true
    }

    /// Counts a member whose key (`key`, the span of its name) is no field, at `place`.
    mutating func noteUnknown(_ key: JSONSpan, place: Int) {
        if firstUnknown == nil { firstUnknown = (key, place) }
        unknownCount += 1
    }

    /// The first member, in input order, that is no field (`.unknown`, with the span of its
    /// key) or not one of `allowed`.
    func firstMember(notIn allowed: FieldSet) -> Member? {
        var first = firstUnknown.map { (member: Member.unknown(key: $0.key), place: $0.place) }
        var others = present.bits & ~allowed.bits
        while others != 0 {
            let field = Field(rawValue: others.trailingZeroBitCount)!
            others &= others - 1
            let place = Int(places[field.rawValue])
            if first.map({ place < $0.place }) ?? true { first = (.field(field), place) }
        }
        return first?.member
    }

    /// A member of the root: a field, or one that names none.
    enum Member {
        case field(Field)
        case unknown(key: JSONSpan)
    }
}
