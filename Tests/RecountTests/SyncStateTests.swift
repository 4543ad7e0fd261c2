import TestSupport
import Testing

@testable import Recount

/// The interval arithmetic of a channel's recovery windows and lost stretches.
@Suite struct SyncStateTests {
    /// Ascending, disjoint, non-touching ranges within `[0, 1000)`, as a channel's windows are.
    static func ranges(_ random: inout SplitMix64) -> [Range<Int64>] {
        var ranges: [Range<Int64>] = []
        var from = Int64(random.next() % 40)
        while from < 1000 {
            let to = from + 1 + Int64(random.next() % 60)
            ranges.append(from..<to)
            from = to + 1 + Int64(random.next() % 80)
        }
        return ranges
    }

    /// `difference` passes each list once and gives what comparing every range with every cut
    /// gives.
    @Test func theDifferenceOfTwoRangeListsIsEachRangeLessEveryCut() {
        var random = SplitMix64(seed: testSeed(31))
        for _ in 0..<2_000 {
            let (ranges, cuts) = (Self.ranges(&random), Self.ranges(&random))
            #expect(
                SyncState.difference(ranges, cuts) == ranges.flatMap { SyncState.uncovered($0, by: cuts) },
                "\(ranges) less \(cuts)")
        }
        #expect(SyncState.difference([0..<10, 20..<30], [5..<25]) == [0..<5, 25..<30])
        #expect(SyncState.difference([0..<10], []) == [0..<10])
        #expect(SyncState.difference([], [0..<10]) == [])
    }
}
