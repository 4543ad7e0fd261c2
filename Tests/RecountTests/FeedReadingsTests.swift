import Testing

@testable import Recount

@Suite struct FeedReadingsTests {
    /// The moves an engine notes find the cells moved after a version, each once, and keep
    /// doing so once the superseded moves are dropped (past twice the cells, at least 2^17
    /// moves); a version from before readings were taken is left to the full scan.
    @Test func theCellsMovedAfterAVersionOutliveDroppingSupersededMoves() {
        let cells = (0..<3).map { Projections.CellKey(user: 0, metric: .steps, day: CivilDay(daysSinceEpoch: $0)) }
        var feed = FeedReadings()
        feed.keep(after: 10, dirtyCells: [])
        let moves = 140_000
        for position in 11...UInt64(10 + moves) {
            let cell = cells[Int(position % 3)]
            feed.noteMovedInPlace(
                cell, FeedReadings.Before(rollup: nil, reason: nil, since: 0, movedAt: position, isPending: false))
            if position == 12 { #expect(feed.cellsMoved(after: 10) == [cells[0], cells[2]], "the last moved first") }
        }
        let last = UInt64(10 + moves)
        #expect(feed.cellsMoved(after: last) == [])
        #expect(feed.cellsMoved(after: last - 1) == [cells[Int(last % 3)]])
        #expect(feed.cellsMoved(after: last - 2) == [cells[Int(last % 3)], cells[Int((last - 1) % 3)]])
        #expect(feed.cellsMoved(after: 10).map(Set.init) == Set(cells))
        #expect(feed.cellsMoved(after: 9) == nil, "moves before readings were taken are not noted")
        #expect(feed.movesNoted < 2 * (1 << 16), "superseded moves were dropped")
    }

    /// A reading keeps a rollup's figures bit for bit, absent ones absent, in 56 bytes.
    @Test func aReadingKeepsTheFiguresOfItsRollup() {
        let cell = Projections.CellKey(user: 3, metric: .weight, day: CivilDay(daysSinceEpoch: 20_000))
        let weighed = RollupCell(
            metric: .weight, day: cell.day, count: 2, value: 70.5, minimum: -0.0, maximum: 71.25, sources: [])
        let empty = RollupCell(metric: .weight, day: cell.day, count: 0, value: nil)
        for rollup in [weighed, empty] {
            let kept = FeedReadings.Before(rollup: rollup, reason: nil, since: 1, movedAt: 2, isPending: false)
            let back = kept.rollup(of: cell)
            #expect(back == rollup)
            #expect(back?.minimum?.sign == rollup.minimum?.sign)
        }
        #expect(
            FeedReadings.Before(rollup: nil, reason: .neverSynced, since: 1, movedAt: 2, isPending: false).rollup(
                of: cell) == nil)
        #expect(MemoryLayout<FeedReadings.Before>.stride == 56)
    }
}
