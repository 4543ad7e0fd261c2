/// The dirty-day set: (user, provider, metric, local date) cells whose inputs changed since
/// they were last recomputed, each with the log position of the last change (contract §3.4).
package struct DirtyDays: Sendable {
    /// One dirty day of one provider's samples.
    package struct Key: Hashable, Sendable {
        package var user: UInt32
        package var provider: UInt32
        package var metric: Metric
        package var day: CivilDay
    }

    package private(set) var days: [Key: UInt64] = [:]

    package init() {}

    package var isEmpty: Bool { days.isEmpty }
    package var count: Int { days.count }

    /// Marks `key` dirty as of `position` (insert-if-absent; the position only grows).
    /// - Returns: whether the day was clean before.
    @discardableResult
    package mutating func mark(_ key: Key, at position: UInt64) -> Bool {
        // One hash of the key: a missing day is inserted at 0 (below every position) and raised.
        let count = days.count
        func raise(_ version: inout UInt64) { if position > version { version = position } }
        raise(&days[key, default: 0])
        return days.count > count
    }

    /// Takes every dirty day out of the set.
    package mutating func drain() -> [Key: UInt64] {
        defer { days = [:] }
        return days
    }
}
