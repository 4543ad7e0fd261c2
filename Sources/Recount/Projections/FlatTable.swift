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

    /// An empty table (keys it is to hold at once are appended unplaced, then placed).
    package init() {
        buckets = [UInt64](filledWith: 0, count: Self.bucketCount(for: 0))
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

    /// Numbers `key` next without placing it in the buckets: the table does not find it (nor
    /// tell it from a key already held) until `placeAppendedKeys()`. For loading millions of
    /// keys: placing each as it comes is a cache miss a key.
    package mutating func appendUnplaced(_ key: Key) { keys.append(key) }

    /// Makes room for `count` keys in all (not in the buckets: for `appendUnplaced`).
    package mutating func reserveKeys(_ count: Int) { keys.reserveCapacity(count) }

    /// Places every key in freshly sized buckets at once: the keys' tags are sorted by home
    /// bucket (a radix sort, a few sequential passes), then laid out in that order, each at
    /// its home or the first free bucket after the previous one, as linear probing finds them.
    /// - Returns: `false` when a key comes twice (the table is then unusable).
    package mutating func placeAppendedKeys() -> Bool {
        let count = keys.count
        buckets = [UInt64](filledWith: 0, count: Self.bucketCount(for: count))
        let mask = UInt64(buckets.count - 1)
        // Each key's tag (high half) and number (low half), by home bucket (`tag & mask`).
        var entries = [UInt64](filledWith: 0, count: count)
        var spare = [UInt64](filledWith: 0, count: count)
        for number in 0..<count { entries[number] = UInt64(Self.tag(keys[number])) << 32 | UInt64(number) }
        let homeBits = UInt64.bitWidth - mask.leadingZeroBitCount
        for shift in stride(from: 0, to: homeBits, by: Self.radixBits) {
            Self.radixPass(&entries, into: &spare, shift: 32 + shift, mask: mask)
            swap(&entries, &spare)
        }
        var next: UInt64 = 0
        var wrapped: [UInt64] = []
        var homeStart = 0
        for index in entries.indices {
            let entry = entries[index]
            let home = (entry >> 32) & mask
            // A key twice has one tag, so one home: compare it with the same tags before it there.
            if index > 0, (entries[index - 1] >> 32) & mask != home { homeStart = index }
            for earlier in homeStart..<index where entries[earlier] >> 32 == entry >> 32 {
                if keys[Int(truncatingIfNeeded: entries[earlier] & 0xFFFF_FFFF)]
                    == keys[Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)]
                {
                    return false
                }
            }
            let place = Swift.max(home, next)
            guard place <= mask else {
                wrapped.append(entry)
                continue
            }
            buckets[Int(place)] = entry + 1
            next = place + 1
        }
        // Keys whose run passed the last bucket continue from the first, as probes wrap.
        var place = 0
        for entry in wrapped {
            while buckets[place] != 0 { place += 1 }
            buckets[place] = entry + 1
            place += 1
        }
        return true
    }

    /// The bits of the home bucket a radix pass sorts by.
    private static var radixBits: Int { 11 }

    /// One stable counting-sort pass of `entries` into `sorted` by the `radixBits` bits at
    /// `shift` (of the home bucket, `mask` bounds it).
    private static func radixPass(_ entries: inout [UInt64], into sorted: inout [UInt64], shift: Int, mask: UInt64) {
        let digitMask = UInt64(1 << radixBits - 1)
        var starts = [Int](filledWith: 0, count: 1 << radixBits + 1)
        entries.withUnsafeBufferPointer { entries in
            starts.withUnsafeMutableBufferPointer { starts in
                for entry in entries {
                    starts[Int(truncatingIfNeeded: ((entry & mask << 32) >> shift) & digitMask) + 1] += 1
                }
                for digit in 1..<starts.count { starts[digit] += starts[digit - 1] }
                sorted.withUnsafeMutableBufferPointer { sorted in
                    for entry in entries {
                        let digit = Int(truncatingIfNeeded: ((entry & mask << 32) >> shift) & digitMask)
                        sorted[starts[digit]] = entry
                        starts[digit] += 1
                    }
                }
            }
        }
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
        var grown = [UInt64](filledWith: 0, count: buckets.count * 2)
        let mask = grown.count - 1
        for entry in buckets where entry != 0 {
            var bucket = Int(entry >> 32) & mask
            while grown[bucket] != 0 { bucket = (bucket + 1) & mask }
            grown[bucket] = entry
        }
        buckets = grown
    }
}
