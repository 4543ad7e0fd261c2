/// Gives each distinct string a small integer id, in the order strings are first seen.
///
/// The fold interns in log order, so the ids are a function of the log; nothing that leaves
/// the process depends on them (outputs and the digest use the strings).
package struct Interner: Sendable {
    private var ids: [String: UInt32] = [:]
    /// The strings by id.
    package private(set) var strings: [String] = []

    package init() {}

    /// The id of `string`, assigned now when it is new.
    package mutating func intern(_ string: String) -> UInt32 {
        if let id = ids[string] { return id }
        let id = UInt32(strings.count)
        ids[string] = id
        strings.append(string)
        return id
    }

    /// The id of `string`, when it was seen.
    package func id(of string: String) -> UInt32? { ids[string] }

    package subscript(id: UInt32) -> String { strings[Int(id)] }

    /// Each id's place among the strings in `<` order: `ranks()[a] < ranks()[b]` exactly when
    /// `self[a] < self[b]`.
    package func ranks() -> [UInt32] {
        var ranks = [UInt32](repeating: 0, count: strings.count)
        for (rank, id) in strings.indices.sorted(by: { strings[$0] < strings[$1] }).enumerated() {
            ranks[id] = UInt32(rank)
        }
        return ranks
    }
}
