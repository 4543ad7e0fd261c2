/// One JSON value, as RFC 8259 defines it.
///
/// Values come from `JSONParser` (which guarantees the invariants below) or are built by hand for
/// `JSONWriter`.
///
/// Equality is structural and exact: strings and object keys compare by Unicode scalars (their
/// UTF-8 bytes), not by Swift's canonical equivalence, so `"é"` (U+00E9) and `"e\u{301}"` differ,
/// as they do in JSON (RFC 8259 §8.3). Numbers compare by their literal as well as their value
/// (`1.0` is not `1`), and object members compare in order.
package enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as written alongside its value.
    case number(JSONNumber)
    /// A string, unescaped.
    case string(String)
    /// An array, elements in input order.
    case array([JSONValue])
    /// An object, members in input order.
    case object(JSONObject)

    /// Whether two values are the same JSON: same kind, same scalars, same literals, same order.
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: `true` when they are identical as JSON.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): JSONObject.sameScalars(a, b)
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }
}
