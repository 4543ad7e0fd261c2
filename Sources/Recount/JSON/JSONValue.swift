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
    ///
    /// Walks nested containers with an explicit work list rather than recursion, so comparing
    /// deeply nested values needs no more stack than comparing flat ones.
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: `true` when they are identical as JSON.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        var pending: [(JSONValue, JSONValue)] = []
        var left = lhs
        var right = rhs
        while true {
            switch left {
            case .null:
                guard case .null = right else { return false }
            case .bool(let a):
                guard case .bool(let b) = right, a == b else { return false }
            case .number(let a):
                guard case .number(let b) = right, a == b else { return false }
            case .string(let a):
                guard case .string(let b) = right, JSONObject.sameScalars(a, b) else {
                    return false
                }
            case .array(let a):
                guard case .array(let b) = right, a.count == b.count else { return false }
                for (x, y) in zip(a, b) { pending.append((x, y)) }
            case .object(let a):
                guard case .object(let b) = right, a.members.count == b.members.count else {
                    return false
                }
                for (x, y) in zip(a.members, b.members) {
                    guard JSONObject.sameScalars(x.key, y.key) else { return false }
                    pending.append((x.value, y.value))
                }
            }
            guard let next = pending.popLast() else { return true }
            (left, right) = next
        }
    }
}
