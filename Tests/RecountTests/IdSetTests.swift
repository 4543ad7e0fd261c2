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

    /// An id's number is the order it was first added in, whether added now or before.
    @Test func numbersFollowTheOrderIdsWereFirstAdded() {
        var set = IdSet()
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

    /// A set emptied after it grew clears every id's slot (and only those): the same ids are new
    /// again, numbered from 0, and their repeats refused.
    @Test func aSetEmptiedAfterGrowingTakesTheSameIdsAfresh() {
        var set = IdSet()
        for round in 0..<2 {
            let added = (0..<5000).map { set.number(inserting: SampleID("id-\($0)")) }
            #expect(added.map(\.number) == Array(0..<5000) && added.allSatisfy(\.inserted), "round \(round)")
            #expect(!set.insert("id-4999") && set.insert("id-5000"))
            set.removeAll()
        }
    }
}
