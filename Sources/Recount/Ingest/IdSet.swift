/// The ids met so far in one envelope, to refuse a repeat.
///
/// A flat open-addressing table of id fingerprints, a match confirmed by comparing the ids:
/// hashing ids through `Hasher` cost more than validating the sample. Nothing here leaves the
/// process, so the table's order never matters. The importers' envelope writer keeps one per
/// envelope too.
package struct IdSet {
    private var ids: [SampleID] = []
    private var prints: [UInt64] = []
    /// Per slot: 1 + the index in `ids`, or 0 when empty. The count is a power of two, and 0
    /// until the first id comes (most envelopes' deletion lists are empty: a set made for one
    /// allocated its slots all the same).
    private var slots: [Int32] = []

    /// An empty set.
    package init() {}

    /// The slots a set has once it holds an id.
    private static var initialSlots: Int { 64 }

    /// Adds `id`; `false` when it was already there.
    package mutating func insert(_ id: SampleID) -> Bool { number(inserting: id).inserted }

    /// Adds `id` unless it is there; either way its number, the order in which the ids were
    /// first added (so a caller can keep what it knows of each id in an array).
    package mutating func number(inserting id: SampleID) -> (number: Int, inserted: Bool) {
        if slots.isEmpty { slots = Array(filledWith: 0, count: Self.initialSlots) }
        let print = id.fingerprint
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: print) & mask
        while slots[slot] != 0 {
            let index = Int(slots[slot] - 1)
            if prints[index] == print, ids[index] == id { return (index, false) }
            slot = (slot + 1) & mask
        }
        let number = ids.count
        slots[slot] = Int32(number + 1)
        ids.append(id)
        prints.append(print)
        if ids.count * 2 > slots.count { grow() }
        return (number, true)
    }

    /// Adds the id whose text is `text`; `false` when it was already there.
    mutating func insert(_ text: String) -> Bool { insert(SampleID(text)) }

    /// Removes every id, keeping the table's size (the next envelope holds as many). Only the
    /// ids' slots are cleared, each found as `number(inserting:)` placed it: after one envelope
    /// of many ids, clearing the whole table cost every small envelope after it as much.
    package mutating func removeAll() {
        let mask = slots.count - 1
        for (index, print) in prints.enumerated() {
            var slot = Int(truncatingIfNeeded: print) & mask
            while slots[slot] != Int32(index + 1) { slot = (slot + 1) & mask }
            slots[slot] = 0
        }
        ids.removeAll(keepingCapacity: true)
        prints.removeAll(keepingCapacity: true)
    }

    private mutating func grow() {
        slots = Array(filledWith: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, print) in prints.enumerated() {
            var slot = Int(truncatingIfNeeded: print) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }
}
