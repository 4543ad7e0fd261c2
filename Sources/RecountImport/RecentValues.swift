internal import Glibc

/// Values computed from byte strings, kept for the few keys seen last.
///
/// An export repeats a handful of source names, devices and units record after record, so
/// comparing a record's bytes with the last few keys replaces building and hashing a `String`
/// per record. A key not among them is computed again (the values are pure functions of their
/// keys), so the cache never holds more than `capacity` entries, however many keys a file has.
struct RecentValues<Value> {
    /// The keys, most recently used near the front.
    private var keys: [[UInt8]] = []
    /// The value of each key.
    private var values: [Value] = []
    /// The most entries kept.
    private let capacity: Int

    /// Creates an empty cache.
    /// - Parameter capacity: the most keys kept (at least 1).
    init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// The value of `key`: a kept one, else `make()`'s, which is then kept.
    /// - Parameters:
    ///   - key: the key's bytes.
    ///   - make: computes the value of `key`.
    mutating func value(for key: UnsafeBufferPointer<UInt8>, _ make: () throws -> Value) rethrows -> Value {
        values[try index(of: key, make)]
    }

    /// Runs `body` on the kept value of `key` in place (computed by `make()` and kept first when
    /// it is not kept), so a value that is a copy-on-write type can be changed without a copy.
    /// - Parameters:
    ///   - key: the key's bytes.
    ///   - make: computes the value of `key`.
    ///   - body: reads or changes the value.
    /// - Returns: what `body` returns.
    mutating func withValue<Result>(
        for key: UnsafeBufferPointer<UInt8>, _ make: () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        body(&values[index(of: key, make)])
    }

    /// The index of `key`'s entry, made by `make()` when there is none.
    private mutating func index(of key: UnsafeBufferPointer<UInt8>, _ make: () throws -> Value) rethrows -> Int {
        for index in keys.indices where Self.equal(keys[index], key) {
            // Move the key one place forward, so the keys in use gather at the front.
            // Swapped in place: no retain or release of the keys and values moved.
            guard index > 0 else { return index }
            keys.withUnsafeMutableBufferPointer { $0.swapAt(index, index - 1) }
            values.withUnsafeMutableBufferPointer { $0.swapAt(index, index - 1) }
            return index - 1
        }
        let value = try make()
        if keys.count == capacity {
            keys.removeLast()
            values.removeLast()
        }
        keys.insert(Array(key), at: 0)
        values.insert(value, at: 0)
        return 0
    }

    /// Whether a kept key has the bytes of `key`.
    private static func equal(_ kept: [UInt8], _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard kept.count == key.count else { return false }
        guard let base = key.baseAddress, !kept.isEmpty else { return true }
        return kept.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, key.count) == 0 }
    }
}
