import TestSupport
import Testing

@testable import Recount

/// The incremental fold against brute force (`style.md`: a fast path checked against a slow,
/// obvious one). Envelopes are folded in batches of random sizes with a recompute after each,
/// as an engine ingests them; after each recompute every rollup must be the cell rebuilt from
/// the live samples alone, handed all of the user's samples of the metric: no cell members, spans,
/// neighbouring days or dirty marks take part. A change that failed to dirty a day, a member
/// left behind in a cell, or an overlapping sample of a neighbouring day missed shows here as
/// a cell that differs.
@Suite struct RecomputeReferenceTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func everyRollupIsItsCellRebuiltFromTheLiveSamples(run: UInt64) throws {
        let envelopes = try ProjectionsTests.envelopes(
            RandomWorkload.lines(seed: testSeed(60 + run), count: 240))
        var batchSizes = SplitMix64(seed: testSeed(80 + run))
        var projections = Projections()
        var folded = 0
        var cellsChecked = 0
        while folded < envelopes.count {
            let batch = envelopes[folded..<min(envelopes.count, folded + 1 + Int(batchSizes.next() % 12))]
            for envelope in batch { _ = projections.apply(envelope, at: projections.position + 1) }
            projections.recompute()
            folded += batch.count
            // After every recompute, not only the last: a day left stale by one batch is often
            // dirtied again by a later one.
            let rebuilt = Self.rebuiltCells(projections)
            for (key, cell) in rebuilt.sorted(by: { $0.key < $1.key }) {
                #expect(projections.rollups[key]?.cell == cell, "\(key) after \(folded) envelopes")
            }
            // A cell whose samples all went keeps a rollup of an empty day.
            for (key, stored) in projections.rollups.sortedByKey() where rebuilt[key] == nil {
                #expect(stored.cell == Self.rebuilt(key, from: [], in: projections), "\(key) after \(folded)")
            }
            cellsChecked += projections.rollups.count
        }
        #expect(cellsChecked > 500, "\(cellsChecked) cells checked")
    }

    /// Every cell that has live samples, rebuilt by brute force.
    static func rebuiltCells(_ projections: Projections) -> [Projections.CellKey: RollupCell] {
        var samplesByUserMetric: [Projections.UserMetric: [Int]] = [:]
        var daysOfSample: [Int: Set<CivilDay>] = [:]
        projections.index.forEachLiveNumber { number in
            let record = projections.index.record(number)
            let user = projections.index.owner(number).user
            samplesByUserMetric[Projections.UserMetric(user: user, metric: record.metric), default: []].append(number)
            Projections.forEachDay(
                of: record, zone: projections.index.zone(of: record), zones: projections.zones
            ) { daysOfSample[number, default: []].insert($0) }
        }
        var cells: [Projections.CellKey: RollupCell] = [:]
        for (userMetric, numbers) in samplesByUserMetric {
            for day in Set(numbers.flatMap { daysOfSample[$0] ?? [] }) {
                let key = Projections.CellKey(user: userMetric.user, metric: userMetric.metric, day: day)
                // A merging metric gets every sample of the user's metric (the merge counts each
                // on its own days and lets any that overlaps decide who covers an instant);
                // the others the samples of the day.
                let inputs =
                    userMetric.metric.mergesOverlaps ? numbers : numbers.filter { daysOfSample[$0]!.contains(day) }
                cells[key] = rebuilt(key, from: inputs, in: projections)
            }
        }
        return cells
    }

    /// The rollup of `key` computed from the live samples numbered `numbers`.
    static func rebuilt(_ key: Projections.CellKey, from numbers: [Int], in projections: Projections) -> RollupCell {
        let samples = numbers.map { projections.index.liveSample($0) }
        let involved = Set(samples.map(\.source)).sorted()
        return Rollup.compute(
            metric: key.metric, day: key.day, samples: samples,
            priority: projections.priority(for: key, involved), zones: projections.zones)
    }
}
