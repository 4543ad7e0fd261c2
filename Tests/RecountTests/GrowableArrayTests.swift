import TestSupport
import Testing

@testable import Recount

@Suite struct GrowableArrayTests {
    /// Through growth, appends and writes agree with an `Array`; a copy keeps its elements when
    /// the original changes afterwards (and the other way round), as an `Array`'s copy does.
    @Test func growsAndCopiesOnWriteLikeAnArray() {
        var random = SplitMix64(seed: testSeed(22))
        var grown = GrowableArray<UInt64>()
        var model: [UInt64] = []
        for _ in 0..<50_000 {
            let value = random.next()
            grown.append(value)
            model.append(value)
            let index = Int(value % UInt64(model.count))
            grown[index] &+= 1
            model[index] &+= 1
        }
        #expect(Array(grown) == model)

        let copy = grown
        grown[0] = 7
        grown.append(8)
        #expect(Array(copy) == model)
        #expect(grown.count == model.count + 1 && grown[0] == 7 && grown.last == 8)

        var other = copy
        other.removeAll()
        #expect(other.isEmpty && Array(copy) == model)
        other.append(1)
        #expect(Array(other) == [1])
    }
}
