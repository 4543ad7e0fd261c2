/// Gives each distinct string a small integer id, in the order strings are first seen.
///
/// The fold interns in log order, so the ids are a function of the log; nothing that leaves
/// the process depends on them (outputs and the digest use the strings).
///
/// Strings are told apart by their UTF-8 bytes, not by `String`'s `==` (canonical equivalence):
/// `"\u{E9}"` and `"e\u{301}"` are two users, two origins, two sync identifiers.
package struct Interner: Sendable {
    /// A string hashed and compared by its UTF-8 bytes.
    private struct Exact: Hashable, Sendable {
        var string: String
        static func == (a: Exact, b: Exact) -> Bool { a.string.hasSameUTF8(as: b.string) }
        func hash(into hasher: inout Hasher) {
            var string = string
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private var ids: [Exact: UInt32] = [:]
    /// The strings by id.
    package private(set) var strings: [String] = []
    /// The string interned last and its id: runs of one string (a unit, a user's envelopes)
    /// are compared, not hashed.
    private var last: (string: String, id: UInt32)?

    package init() {}

    /// The id of `string`, assigned now when it is new.
    package mutating func intern(_ string: String) -> UInt32 {
        if let last, last.string.hasSameUTF8(as: string) { return last.id }
        let id: UInt32
        if let known = ids[Exact(string: string)] {
            id = known
        } else {
            id = UInt32(strings.count)
            ids[Exact(string: string)] = id
            strings.append(string)
        }
        last = (string, id)
        return id
    }

    /// The id of `string`, when it was seen.
    package func id(of string: String) -> UInt32? { ids[Exact(string: string)] }

    package subscript(id: UInt32) -> String { strings[Int(id)] }

    /// Each id's place among the strings in `<` order: `ranks()[a] < ranks()[b]` exactly when
    /// `self[a] < self[b]`.
    package func ranks() -> [UInt32] {
        var ranks = [UInt32](repeating: 0, count: strings.count)
        for (rank, id) in idsInStringOrder().enumerated() { ranks[Int(id)] = UInt32(rank) }
        return ranks
    }

    /// The ids in the `<` order of their strings.
    package func idsInStringOrder() -> [UInt32] {
        strings.indices.sorted { strings[$0] < strings[$1] }.map(UInt32.init)
    }
}
