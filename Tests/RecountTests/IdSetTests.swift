import Testing

@testable import Recount

@Suite struct IdSetTests {
    @Test func refusesExactRepeatsOnlyAcrossGrowth() {
        var set = IdSet()
        var fresh = 0
        for number in 0..<5000 where set.insert("id-\(number)") { fresh += 1 }
        #expect(fresh == 5000)
        var repeats = 0
        for number in stride(from: 0, to: 5000, by: 37) where !set.insert("id-\(number)") { repeats += 1 }
        #expect(repeats == 136)
        // Canonically equivalent but different bytes: distinct ids.
        let precomposed = set.insert("caf\u{E9}")
        let decomposed = set.insert("cafe\u{301}")
        let again = set.insert("caf\u{E9}")
        #expect(precomposed && decomposed && !again)
    }

    /// An id's number is the order it was first added in, whether added now or before, with any
    /// room reserved (less or more than the ids added).
    @Test(arguments: [nil, 0, 3, 200, 5000])
    func numbersFollowTheOrderIdsWereFirstAdded(capacity: Int?) {
        var set = capacity.map { IdSet(capacity: $0) } ?? IdSet()
        let first = (0..<200).map { set.number(inserting: SampleID("id-\($0)")) }
        #expect(first.map(\.number) == Array(0..<200) && first.allSatisfy(\.inserted))
        let again = set.number(inserting: SampleID("id-137"))
        #expect(again.number == 137 && !again.inserted)
    }

    /// A set emptied before it held an id (its slots not made yet), and again after, takes ids
    /// afresh and refuses their repeats.
    @Test func aSetEmptiedBeforeAndAfterItsFirstIdStartsAfresh() {
        var set = IdSet()
        set.removeAll()
        let first = (set.insert("a"), set.insert("a"))
        #expect(first == (true, false))
        set.removeAll()
        let second = (set.insert("a"), set.insert("b"), set.insert("b"))
        #expect(second == (true, true, false))
    }
}
