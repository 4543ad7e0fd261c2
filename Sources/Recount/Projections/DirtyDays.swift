/// The dirty-day set: (user, provider, metric, local date) cells whose inputs changed since
/// they were last recomputed, each with the log position of the last change (contract §3.4).
package struct DirtyDays: Sendable {
    /// One dirty day of one provider's samples.
    package struct Key: Hashable, Sendable, FlatKey {
        package var user: UInt32
        package var provider: UInt32
        package var metric: Metric
        package var day: CivilDay

        package var flatHash: UInt64 {
            FlatHash.mix(
                UInt64(user) << 32 | UInt64(UInt32(bitPattern: day.daysSinceEpoch)),
                UInt64(provider) << 8 | UInt64(metric.rawValue))
        }
    }

    private var table = FlatTable<Key>()
    /// The position of the last change of each day, by the day's number in `table`.
    private var positions: [UInt64] = []
    /// The day `mark` marked last and its number (a cache, no part of the set): an envelope's
    /// samples mostly fall on one day, which is then marked once per sample.
    private var lastMarked: (key: Key, number: Int)?

    package init() {}

    package var isEmpty: Bool { table.count == 0 }
    package var count: Int { table.count }

    /// The dirty days and their positions, in the order they became dirty.
    package var days: [(key: Key, value: UInt64)] {
        zip(table.keys, positions).map { (key: $0, value: $1) }
    }

    /// Whether `key` is dirty.
    package func contains(_ key: Key) -> Bool { table.number(of: key) != nil }

    /// Marks `key` dirty as of `position` (insert-if-absent; the position only grows).
    /// - Returns: whether the day was clean before.
    @discardableResult
    package mutating func mark(_ key: Key, at position: UInt64) -> Bool {
        let (number, inserted) =
            if let lastMarked, lastMarked.key == key { (lastMarked.number, false) } else { table.insert(key) }
        lastMarked = (key, number)
        if inserted {
            positions.append(position)
        } else if position > positions[number] {
            positions[number] = position
        }
        return inserted
    }

    /// Takes every dirty day out of the set.
    package mutating func drain() -> [(key: Key, value: UInt64)] {
        defer {
            table.removeAll()
            positions.removeAll(keepingCapacity: true)
            lastMarked = nil
        }
        return days
    }
}
