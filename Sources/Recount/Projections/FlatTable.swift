/// A key a `FlatTable` can hold: a small value type with its own well-mixed 64-bit hash.
package protocol FlatKey: Equatable, Sendable, BitwiseCopyable {
    /// A hash whose every bit depends on every bit of the key (see `FlatHash.mix`).
    var flatHash: UInt64 { get }
}

/// The mixing `FlatKey` hashes use: a fixed function (no per-process seed), so nothing about a
/// table depends on the process; the table's order is the order keys were inserted.
package enum FlatHash {
    /// The 64-bit finaliser of MurmurHash3: spreads every input bit over every output bit.
    @inline(__always)
    package static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }

    /// Combines two words into one mixed hash.
    @inline(__always)
    package static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        mix(a ^ (b &* 0x9e37_79b9_7f4a_7c15) ^ (b >> 29))
    }
}

/// A set of keys numbered densely in the order they were inserted: open addressing with linear
/// probing over a flat array of buckets, no per-process hash seed, no per-key allocation.
///
/// Callers keep each key's data in their own arrays at the key's number, so the table holds
/// small buckets and growing it moves 8 bytes per key. Keys are never removed one by one (the
/// projections keep deleted ids as tombstones); `removeAll` empties the table.
package struct FlatTable<Key: FlatKey>: Sendable {
    /// Each bucket: the upper 32 bits of the key's hash, and its number + 1 (0: empty).
    private var buckets: [UInt64]
    /// The keys by number.
    package private(set) var keys = GrowableArray<Key>()

    /// An empty table sized for `capacity` keys before it grows.
    package init(capacity: Int = 0) {
        buckets = [UInt64](repeating: 0, count: Self.bucketCount(for: capacity))
        keys.reserveCapacity(capacity)
    }

    /// How many keys the table holds.
    package var count: Int { keys.count }

    /// The number of `key`, when the table holds it.
    @inline(__always)
    package func number(of key: Key) -> Int? {
        let tag = Self.tag(key)
        let mask = buckets.count - 1
        var bucket = Int(tag) & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == tag {
                let number = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if keys[number] == key { return number }
            }
            bucket = (bucket + 1) & mask
        }
    }

    /// The number of `key`, which is numbered next when the table does not hold it yet.
    /// - Returns: the key's number, and whether it was inserted now.
    @inline(__always)
    package mutating func insert(_ key: Key) -> (number: Int, inserted: Bool) {
        let tag = Self.tag(key)
        var mask = buckets.count - 1
        var bucket = Int(tag) & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 { break }
            if UInt32(truncatingIfNeeded: entry >> 32) == tag {
                let number = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if keys[number] == key { return (number, false) }
            }
            bucket = (bucket + 1) & mask
        }
        let number = keys.count
        keys.append(key)
        // At most half full, so probes stay short.
        if 2 * keys.count > buckets.count {
            grow()
            mask = buckets.count - 1
            bucket = Int(tag) & mask
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        }
        buckets[bucket] = UInt64(tag) << 32 | UInt64(number + 1)
        return (number, true)
    }

    /// The first bucket `key` probes, read ahead of its lookup (see `IdIndex.prefetch`).
    @inline(__always)
    package func firstBucket(of key: Key) -> UInt64 { buckets[Int(Self.tag(key)) & (buckets.count - 1)] }

    /// Removes every key, keeping the buckets' capacity.
    package mutating func removeAll() {
        guard !keys.isEmpty else { return }
        keys.removeAll()
        for index in buckets.indices { buckets[index] = 0 }
    }

    @inline(__always)
    private static func tag(_ key: Key) -> UInt32 { UInt32(truncatingIfNeeded: key.flatHash >> 32) }

    private static func bucketCount(for capacity: Int) -> Int {
        var count = 16
        while count < 2 * capacity + 2 { count *= 2 }
        return count
    }

    /// Doubles the buckets and places every key again (from its tag: a bucket's position is its
    /// tag's low bits, so no key is hashed twice).
    private mutating func grow() {
        var grown = [UInt64](repeating: 0, count: buckets.count * 2)
        let mask = grown.count - 1
        for entry in buckets where entry != 0 {
            var bucket = Int(entry >> 32) & mask
            while grown[bucket] != 0 { bucket = (bucket + 1) & mask }
            grown[bucket] = entry
        }
        buckets = grown
    }
}
