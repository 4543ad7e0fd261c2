import TestSupport
import Testing

@testable import Recount

@Suite struct FlatTableTests {
    /// A key whose hash collides on purpose: only `bucket` feeds it, so many keys share a tag.
    struct CollidingKey: FlatKey {
        var value: UInt64
        var bucket: UInt64
        var flatHash: UInt64 { FlatHash.mix(bucket) }
    }

    /// Numbers follow first insertion, lookups agree with a dictionary through growth and heavy
    /// collisions, and `removeAll` empties the table for reuse.
    @Test func numbersKeysInInsertionOrderLikeADictionary() {
        var random = SplitMix64(seed: testSeed(21))
        var table = FlatTable<CollidingKey>()
        var model: [UInt64: Int] = [:]
        for round in 0..<2 {
            for _ in 0..<20_000 {
                let value = random.next() % 30_000
                let key = CollidingKey(value: value, bucket: value % 512)
                let expected = model[value]
                let (number, inserted) = table.insert(key)
                #expect(inserted == (expected == nil))
                if let expected { #expect(number == expected) } else { model[value] = number }
                #expect(table.number(of: key) == number)
            }
            #expect(table.count == model.count)
            for (value, number) in model {
                #expect(table.keys[number].value == value)
                #expect(table.number(of: CollidingKey(value: value, bucket: value % 512)) == number)
            }
            #expect(table.number(of: CollidingKey(value: 99_999, bucket: 3)) == nil)
            if round == 0 {
                table.removeAll()
                model.removeAll()
                #expect(table.count == 0 && table.number(of: CollidingKey(value: 1, bucket: 1)) == nil)
            }
        }
    }

    /// A key whose hash is given: keys of one hash share a tag, so a home bucket.
    struct GivenHashKey: FlatKey {
        var value: UInt64
        var flatHash: UInt64
    }

    /// Keys placed all at once (as a checkpoint loads them) are found at the numbers they
    /// were appended at, as inserted ones are: with heavy collisions, with runs that pass the
    /// last bucket (every key of the top tag has the last bucket as home, whatever the size),
    /// and then through more inserts and growth. A key appended twice is refused, however
    /// many keys of its tag lie between.
    @Test func keysPlacedAtOnceAreFoundAsInsertedOnes() {
        var random = SplitMix64(seed: testSeed(23))
        for size in [0, 1, 7, 100, 5_000, 20_000] {
            var keys: [GivenHashKey] = []
            var values = Set<UInt64>()
            while keys.count < size {
                let value = random.next()
                guard values.insert(value).inserted else { continue }
                let hash: UInt64 =
                    switch random.next() % 32 {
                    case 0: 0xFFFF_FFFF << 32 | random.next() % 4  // home: the last bucket
                    case 1: UInt64(random.next() % 64) << 32  // homes among the first buckets
                    default: FlatHash.mix(value)
                    }
                keys.append(GivenHashKey(value: value, flatHash: hash))
            }
            var placed = FlatTable<GivenHashKey>()
            var inserted = FlatTable<GivenHashKey>()
            for key in keys {
                placed.appendUnplaced(key)
                _ = inserted.insert(key)
            }
            let placedAll = placed.placeAppendedKeys()
            #expect(placedAll)
            for (number, key) in keys.enumerated() {
                #expect(placed.number(of: key) == number)
            }
            for _ in 0..<200 {
                let absent = GivenHashKey(value: random.next(), flatHash: 0xFFFF_FFFF << 32 | random.next() % 4)
                #expect(placed.number(of: absent) == inserted.number(of: absent))
            }
            // Inserting after placing: known keys keep their numbers, new ones come next.
            for round in 0..<(size + 20) {
                let key =
                    round % 2 == 0 && !keys.isEmpty
                    ? keys[round % keys.count] : GivenHashKey(value: random.next(), flatHash: random.next())
                let (placedNumber, insertedNumber) = (placed.insert(key), inserted.insert(key))
                #expect(placedNumber == insertedNumber)
            }
            for number in 0..<inserted.count { #expect(placed.number(of: inserted.keys[number]) == number) }

            guard size >= 2 else { continue }
            var twice = FlatTable<GivenHashKey>()
            for key in keys { twice.appendUnplaced(key) }
            twice.appendUnplaced(keys[Int(random.next() % UInt64(keys.count))])
            let placedTwice = twice.placeAppendedKeys()
            #expect(!placedTwice)
        }
    }

    /// A `FlatMap` answers as a dictionary does, stores through `default`, and iterates in the
    /// order keys were first stored.
    @Test func aFlatMapIsADictionaryInInsertionOrder() {
        var random = SplitMix64(seed: testSeed(22))
        var map = FlatMap<CollidingKey, Int>()
        var model: [UInt64: Int] = [:]
        var order: [UInt64] = []
        for _ in 0..<5_000 {
            let value = random.next() % 3_000
            let key = CollidingKey(value: value, bucket: value % 64)
            if model[value] == nil { order.append(value) }
            if value % 2 == 0 {
                map[key] = Int(value)
                model[value] = Int(value)
            } else {
                map[key, default: 0] += 1
                model[value, default: 0] += 1
            }
            #expect(map[key] == model[value])
        }
        #expect(map.count == model.count)
        #expect(map.map(\.key.value) == order)
        #expect(map.allSatisfy { model[$0.key.value] == $0.value })
        #expect(map[CollidingKey(value: 99_999, bucket: 3)] == nil)
    }

    /// The id index's records stay at 112 bytes: 1.5 million live samples take 168 MB.
    @Test func anIdIndexRecordIs112Bytes() {
        #expect(MemoryLayout<IdIndex.Record>.stride == 112)
    }
}
