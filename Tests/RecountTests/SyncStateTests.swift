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

    /// `supersedingReconcile`, which looks only at windows that start near the write's start,
    /// finds what looking at every window finds: the first receipt after the write's of a
    /// window holding its start that does not list its id. Windows of very different lengths
    /// lie among each other, as an expired token's month beside hourly reconciles.
    @Test func aSupersedingReconcileIsTheFirstAfterTheWriteOfEveryWindowHoldingItsStart() {
        var random = SplitMix64(seed: testSeed(37))
        for _ in 0..<200 {
            var state = SyncState()
            var windows: [SyncState.ReconciledWindow] = []
            for _ in 0..<(1 + random.next() % 30) {
                let from = Int64(random.next() % 1_000)
                let length = random.next() % 4 == 0 ? 1 + Int64(random.next() % 900) : 1 + Int64(random.next() % 20)
                let listed = (0..<UInt32(4)).filter { _ in random.next() % 3 == 0 }
                let window = SyncState.ReconciledWindow(
                    from: from, to: from + length, receivedAt: Int64(random.next() % 100), listed: listed)
                if state.noteReconciledWindow(window) { windows.append(window) }
            }
            for _ in 0..<50 {
                let (written, start, id) = (
                    Int64(random.next() % 100), Int64(random.next() % 1_100), UInt32(random.next() % 4)
                )
                let expected = windows.filter {
                    $0.receivedAt > written && $0.from <= start && start < $0.to && !$0.listed.contains(id)
                }.map(\.receivedAt).min()
                #expect(state.supersedingReconcile(writtenAt: written, startingAt: start, id: id) == expected)
            }
        }
    }
}
