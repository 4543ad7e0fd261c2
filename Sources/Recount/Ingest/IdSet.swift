internal import RecountLog

/// The ids met so far in one envelope, to refuse a repeat.
///
/// A flat open-addressing table of XXH3 fingerprints over each id's UTF-8 bytes, a match
/// confirmed byte for byte: hashing `String`s in a `Set` cost more than validating the sample.
/// Nothing here leaves the process, so the table's order never matters.
struct IdSet {
    private var ids: [String] = []
    private var prints: [UInt64] = []
    /// Per slot: 1 + the index in `ids`, or 0 when empty. The count is a power of two.
    private var slots: [Int32] = Array(repeating: 0, count: 64)

    /// Adds `id`; `false` when it was already there.
    mutating func insert(_ id: String) -> Bool {
        var text = id
        let print = text.withUTF8 { Checksum.xxh3(UnsafeRawBufferPointer($0)) }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: print) & mask
        while slots[slot] != 0 {
            let index = Int(slots[slot] - 1)
            if prints[index] == print, ids[index].hasSameUTF8(as: id) { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(ids.count + 1)
        ids.append(id)
        prints.append(print)
        if ids.count * 2 > slots.count { grow() }
        return true
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, print) in prints.enumerated() {
            var slot = Int(truncatingIfNeeded: print) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }
}
