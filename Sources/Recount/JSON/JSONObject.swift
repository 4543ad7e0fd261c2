/// A JSON object: members in input order.
///
/// Objects from `JSONParser` have unique keys (compared by Unicode scalars, after unescaping);
/// objects built with `init(members:)` have whatever keys they were given.
package struct JSONObject: Equatable, Sendable {
    /// One member: a name and its value.
    ///
    /// A struct, not a tuple: an array of tuples is destroyed through the runtime's generic
    /// tuple code, element by element, which cost the ingest about 1% for the root members of
    /// each envelope.
    package struct Member: Sendable {
        package var key: String
        package var value: JSONValue

        package init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in input order; keys are unique in parsed objects.
    package var members: [Member]

    /// Creates an object from members, kept in the order given.
    /// - Parameter members: the members; keys should be unique.
    package init(members: [Member] = []) {
        self.members = members
    }

    /// The value of the member named `key`, or `nil` when there is none.
    ///
    /// A linear scan comparing UTF-8 bytes (objects in envelopes are small).
    /// - Parameter key: the member name, unescaped.
    package subscript(key: String) -> JSONValue? {
        for member in members where JSONObject.sameScalars(member.key, key) {
            return member.value
        }
        return nil
    }

    /// The member names, in order.
    package var keys: [String] {
        members.map(\.key)
    }

    /// Whether two objects have the same members in the same order.
    /// - Parameters:
    ///   - lhs: an object.
    ///   - rhs: another object.
    /// - Returns: `true` when keys (by scalars) and values are equal pairwise, in order.
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        JSONValue.object(lhs) == JSONValue.object(rhs)
    }

    /// Whether two strings have the same Unicode scalars, that is the same UTF-8 bytes.
    ///
    /// Swift's `==` on `String` uses canonical equivalence; JSON compares code points.
    /// - Parameters:
    ///   - a: a string.
    ///   - b: another string.
    /// - Returns: `true` when their UTF-8 bytes are identical.
    static func sameScalars(_ a: String, _ b: String) -> Bool {
        a.hasSameUTF8(as: b)
    }
}
