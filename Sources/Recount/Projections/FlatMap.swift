/// A dictionary over a `FlatTable`: each key's value at the key's number, so a lookup hashes
/// with the key's own `flatHash` (no per-process seed, no `Hasher`), and iteration goes in the
/// order keys were first stored, the same in every process. Keys are never removed.
package struct FlatMap<Key: FlatKey, Value: Sendable>: Sequence, Sendable {
    private var table = FlatTable<Key>()
    private var values: [Value] = []

    package init() {}

    /// An empty map with room for `count` keys appended unplaced (`appendUnplaced`).
    package init(unplacedCapacity count: Int) {
        table.reserveKeys(count)
        values.reserveCapacity(count)
    }

    package var count: Int { values.count }
    package var isEmpty: Bool { values.isEmpty }

    /// The value of `key`; setting one stores it (setting `nil` is not allowed: keys stay).
    package subscript(key: Key) -> Value? {
        get { table.number(of: key).map { values[$0] } }
        set {
            guard let newValue else { preconditionFailure("a FlatMap keeps its keys") }
            self[key, default: newValue] = newValue
        }
    }

    /// The value of `key`, `defaultValue` stored first when it has none.
    package subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { table.number(of: key).map { values[$0] } ?? defaultValue() }
        _modify {
            let (number, inserted) = table.insert(key)
            if inserted { values.append(defaultValue()) }
            yield &values[number]
        }
    }

    /// Changes the value of `key` in place, when it has one (no copy of it is made).
    /// - Returns: whether it had one.
    package mutating func modify(_ key: Key, _ body: (inout Value) -> Void) -> Bool {
        guard let number = table.number(of: key) else { return false }
        body(&values[number])
        return true
    }

    /// Stores `value` under `key`, numbered next, without placing the key in the table: the map
    /// finds it only after `placeAppendedKeys()` (see `FlatTable.appendUnplaced`).
    package mutating func appendUnplaced(_ key: Key, _ value: Value) {
        table.appendUnplaced(key)
        values.append(value)
    }

    /// The number of `key`, stored first with `placeholder` when it has no value (one probe
    /// for a lookup that may insert; the value is then read and written by number).
    package mutating func number(of key: Key, storingIfAbsent placeholder: Value) -> (number: Int, inserted: Bool) {
        let (number, inserted) = table.insert(key)
        if inserted { values.append(placeholder) }
        return (number, inserted)
    }

    /// The value of the key numbered `number`.
    package subscript(number number: Int) -> Value {
        get { values[number] }
        set { values[number] = newValue }
    }

    /// Places every key appended unplaced; `false` when a key came twice.
    package mutating func placeAppendedKeys() -> Bool { table.placeAppendedKeys() }

    /// The keys and values in the order the keys were first stored.
    package func makeIterator() -> some IteratorProtocol<(key: Key, value: Value)> {
        zip(table.keys, values).lazy.map { (key: $0, value: $1) }.makeIterator()
    }

    package var underestimatedCount: Int { values.count }
}

extension FlatMap where Key: Comparable {
    /// The keys and values in ascending key order. The keys' numbers are sorted, not the pairs:
    /// sorting pairs moved each value, retaining and releasing what it held.
    package func sortedByKey() -> some Sequence<(key: Key, value: Value)> {
        let keys = table.keys
        let order = keys.indices.sorted { keys[$0] < keys[$1] }
        return order.lazy.map { [values] in (key: keys[$0], value: values[$0]) }
    }
}
