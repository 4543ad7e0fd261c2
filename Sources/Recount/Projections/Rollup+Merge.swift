/// The overlap merge of sums and sleep (contract §3.5): one sweep over the boundaries of the
/// samples' intervals in which, at every instant, the highest-priority source covering it decides.
///
/// The sweep works on packed `UInt64` events, sorted as plain integers: the time relative to a
/// window around the day (36 bits), the kind (2 bits) and the sample's place in canonical order
/// (26 bits). Times outside the window cannot touch the day and are clamped to it. Per source the
/// sweep keeps integer counters only; floating-point amounts are added afterwards, sample by
/// sample in canonical order, so the result does not depend on the input order.
extension Rollup {
    /// Bits of an event key: time relative to the window, kind, payload.
    private static let payloadBits = 26
    private static let kindBits = 2
    private static let timeShift = payloadBits + kindBits

    /// Event kinds, in the order they are handled at one instant: coverage changes first, so
    /// instantaneous samples see who covers them.
    private enum Kind: UInt64 {
        case coverEnd = 0
        case coverStart = 1
        case piece = 2
        case instant = 3
    }

    /// A half-open UTC window `[start, end)` around a day, and the event packing relative to it.
    private struct Window {
        var start: Int64
        var end: Int64

        /// The window from `daysBefore` days before the day's local midnight (read as UTC) to
        /// `daysAfter` days after it; at most 795 days in all.
        init(around day: CivilDay, daysBefore: Int64, daysAfter: Int64) {
            start = day.startLocalMillis - daysBefore * Timestamp.millisPerDay
            end = day.startLocalMillis + daysAfter * Timestamp.millisPerDay
        }

        func key(_ time: Int64, _ kind: Kind, _ payload: Int) -> UInt64 {
            UInt64(time - start) << timeShift | kind.rawValue << payloadBits | UInt64(payload)
        }

        func time(_ key: UInt64) -> Int64 { start + Int64(key >> timeShift) }

        static func kind(_ key: UInt64) -> Kind {
            Kind(rawValue: key >> payloadBits & 3)!
        }

        static func payload(_ key: UInt64) -> Int {
            Int(key & (1 << payloadBits - 1))
        }
    }

    /// The sources present, highest priority first, and each sample's local rank among them.
    private static func localRanks(
        samples: [LiveSample], order: [Int], priority: SourcePriority
    ) -> (sources: [SourceID], rank: [Int]) {
        var distinct: [SourceID] = []
        var slot: [Int] = []
        slot.reserveCapacity(order.count)
        var last = -1
        for index in order {
            let source = samples[index].source
            if last < 0 || distinct[last] != source {
                last = distinct.firstIndex(of: source) ?? -1
                if last < 0 {
                    distinct.append(source)
                    last = distinct.count - 1
                }
            }
            slot.append(last)
        }
        let byPriority = distinct.indices.sorted {
            priority.key(of: distinct[$0]) < priority.key(of: distinct[$1])
        }
        var rankOfSlot = [Int](repeating: 0, count: distinct.count)
        for (rank, slot) in byPriority.enumerated() { rankOfSlot[slot] = rank }
        return (byPriority.map { distinct[$0] }, slot.map { rankOfSlot[$0] })
    }

    /// The winning rank among covering counters: the first with a positive count, or `-1`.
    @inline(__always)
    private static func winner(_ cover: UnsafeMutableBufferPointer<Int32>) -> Int {
        for rank in 0..<cover.count where cover[rank] > 0 { return rank }
        return -1
    }

    /// Sums (steps, distance, active energy): each sample adds value × (its counted time on the
    /// day) / (its whole duration); an instantaneous one adds its value when no higher-priority
    /// source covers its instant.
    static func mergeSum(
        metric: Metric, day: CivilDay, samples: [LiveSample], order: [Int], priority: SourcePriority,
        zones: ZoneOffsets
    ) -> RollupCell {
        let n = order.count
        precondition(n < 1 << (payloadBits - 1), "too many samples in one rollup cell")
        let (sources, rank) = localRanks(samples: samples, order: order, priority: priority)
        let k = sources.count
        // Any part of the day lies within a day of its local midnight read as UTC.
        let window = Window(around: day, daysBefore: 2, daysAfter: 3)

        // Events, and each sample's whole (capped) duration; 0 marks an instantaneous sample.
        // Cover starts come in canonical order, already sorted; the ends and the rest are kept
        // apart and appended after them, so the sort mostly merges a few sorted runs.
        var events: [UInt64] = []
        events.reserveCapacity(2 * n)
        var later: [UInt64] = []
        later.reserveCapacity(n)
        var pieces: [(from: Int64, to: Int64)] = []
        var pieceCount = 0
        var duration = [Int64](repeating: 0, count: n)
        for place in 0..<n {
            let sample = samples[order[place]]
            guard sample.endMillis > sample.startMillis else {
                // An instant of another day (written in another offset) takes part in deciding
                // who wins at its instant; it counts on its own day only (the low payload bit).
                if sample.startMillis >= window.start, sample.startMillis < window.end {
                    let onDay = startDay(of: sample, zones: zones) == day ? 1 : 0
                    later.append(window.key(sample.startMillis, .instant, place << 1 | onDay))
                }
                continue
            }
            let end = DayAttribution.cappedEnd(
                startMillis: sample.startMillis, endMillis: sample.endMillis)
            duration[place] = end - sample.startMillis
            let from = max(sample.startMillis, window.start)
            let to = min(end, window.end)
            guard from < to else { continue }
            // The parts on `day`, adjacent ones joined.
            pieceCount = 0
            DayAttribution.forEachPiece(
                startMillis: sample.startMillis, startOffset: sample.startOffset,
                endMillis: sample.endMillis, zone: sample.zone, zones: zones
            ) { pieceFrom, pieceTo, pieceDay in
                guard pieceDay == day else { return }
                if pieceCount > 0, pieces[pieceCount - 1].to == pieceFrom {
                    pieces[pieceCount - 1].to = pieceTo
                    return
                }
                if pieceCount == pieces.count {
                    pieces.append((pieceFrom, pieceTo))
                } else {
                    pieces[pieceCount] = (pieceFrom, pieceTo)
                }
                pieceCount += 1
            }
            // A sample wholly on the day (the usual case) lets its cover events stand for its
            // piece events: the low payload bit says so.
            let whole = pieceCount == 1 && pieces[0].from == from && pieces[0].to == to ? 1 : 0
            events.append(window.key(from, .coverStart, place << 1 | whole))
            later.append(window.key(to, .coverEnd, place << 1 | whole))
            if whole == 0 {
                for piece in pieces[..<pieceCount] {
                    later.append(window.key(piece.from, .piece, place << 1))
                    later.append(window.key(piece.to, .piece, place << 1 | 1))
                }
            }
        }
        events.append(contentsOf: later)
        events.sort()

        // rows[place * k + w]: the milliseconds of the sample's day parts that source `w` won.
        var rows = [Int64](repeating: 0, count: n * k)
        // The winning rank at each instantaneous sample, -1 when it is not on the day.
        var instantWinner = [Int](repeating: -1, count: n)
        var cover = [Int32](repeating: 0, count: k)
        var won = [Int64](repeating: 0, count: k)
        cover.withUnsafeMutableBufferPointer { cover in
            won.withUnsafeMutableBufferPointer { won in
                rows.withUnsafeMutableBufferPointer { rows in
                    var previous = events.first.map(window.time) ?? 0
                    var e = 0
                    while e < events.count {
                        let event = events[e]
                        let time = window.time(event)
                        if time != previous {
                            let w = winner(cover)
                            if w >= 0 { won[w] += time - previous }
                            previous = time
                        }
                        let payload = Window.payload(event)
                        let place = payload >> 1
                        switch Window.kind(event) {
                        case .coverEnd:
                            cover[rank[place]] -= 1
                            if payload & 1 == 1 {
                                for w in 0..<k { rows[place * k + w] += won[w] }
                            }
                        case .coverStart:
                            cover[rank[place]] += 1
                            if payload & 1 == 1 {
                                for w in 0..<k { rows[place * k + w] -= won[w] }
                            }
                        case .piece:
                            let sign: Int64 = payload & 1 == 0 ? -1 : 1
                            for w in 0..<k { rows[place * k + w] += sign * won[w] }
                        case .instant:
                            // All instants at `time` are adjacent and last; the best of them and
                            // of the covering sources wins.
                            var best = winner(cover)
                            var last = e
                            while last < events.count, window.time(events[last]) == time {
                                let r = rank[Window.payload(events[last]) >> 1]
                                if best < 0 || r < best { best = r }
                                last += 1
                            }
                            for other in e..<last where Window.payload(events[other]) & 1 == 1 {
                                instantWinner[Window.payload(events[other]) >> 1] = best
                            }
                            e = last - 1
                        }
                        e += 1
                    }
                }
            }
        }

        // Amounts, sample by sample in canonical order.
        var tally = Tally(sources: sources)
        var total = 0.0
        var count = 0
        for place in 0..<n {
            let r = rank[place]
            let value = samples[order[place]].value ?? 0
            if duration[place] == 0 {
                let w = instantWinner[place]
                guard w >= 0 else { continue }
                count += 1
                tally.count(source: r)
                if w == r { total += value }
                tally.add(source: r, winner: w, amount: value, millis: 0)
                continue
            }
            var onDay = false
            let whole = Double(duration[place])
            for w in 0..<k {
                let millis = rows[place * k + w]
                guard millis > 0 else { continue }
                onDay = true
                let amount = value * (Double(millis) / whole)
                if w == r { total += amount }
                tally.add(source: r, winner: w, amount: amount, millis: millis)
            }
            if onDay {
                count += 1
                tally.count(source: r)
            }
        }
        return RollupCell(
            metric: metric, day: day, count: count, value: total, sources: tally.sourceShares())
    }

    /// Sleep: the asleep time (stages asleep, core, deep, rem) of the day's samples, where at each
    /// instant the highest-priority source with any sleep sample covering it decides.
    static func mergeSleep(
        day: CivilDay, samples: [LiveSample], order: [Int], priority: SourcePriority,
        zones: ZoneOffsets
    ) -> RollupCell {
        let n = order.count
        precondition(n < 1 << payloadBits, "too many samples in one rollup cell")
        let (sources, rank) = localRanks(samples: samples, order: order, priority: priority)
        let k = sources.count
        // A sleep sample of the day ends within a day or so of it and lasts at most 366 days.
        let window = Window(around: day, daysBefore: 369, daysAfter: 3)

        // Starts in canonical order (a sorted run), then the ends, as in `mergeSum`.
        var events: [UInt64] = []
        events.reserveCapacity(2 * n)
        var ends: [UInt64] = []
        ends.reserveCapacity(n)
        // Whether each sample is asleep and on the day.
        var countsAsleep = [Bool](repeating: false, count: n)
        var count = 0
        var tally = Tally(sources: sources)
        for place in 0..<n {
            let sample = samples[order[place]]
            if sleepDay(of: sample, zones: zones) == day {
                countsAsleep[place] = sample.stage?.isAsleep ?? false
                count += 1
                tally.count(source: rank[place])
            }
            let end = DayAttribution.cappedEnd(
                startMillis: sample.startMillis, endMillis: sample.endMillis)
            let from = max(sample.startMillis, window.start)
            let to = min(end, window.end)
            guard from < to else { continue }
            events.append(window.key(from, .coverStart, place))
            ends.append(window.key(to, .coverEnd, place))
        }
        events.append(contentsOf: ends)
        events.sort()

        var cover = [Int32](repeating: 0, count: k)
        var asleep = [Int32](repeating: 0, count: k)
        var previous = events.first.map(window.time) ?? 0
        cover.withUnsafeMutableBufferPointer { cover in
            asleep.withUnsafeMutableBufferPointer { asleep in
                for event in events {
                    let time = window.time(event)
                    if time != previous {
                        let w = winner(cover)
                        if w >= 0 {
                            let span = time - previous
                            for r in 0..<k where asleep[r] > 0 {
                                tally.add(
                                    source: r, winner: w, amount: Double(span) / 1000, millis: span)
                            }
                        }
                        previous = time
                    }
                    let place = Window.payload(event)
                    let step: Int32 = Window.kind(event) == .coverStart ? 1 : -1
                    cover[rank[place]] += step
                    if countsAsleep[place] { asleep[rank[place]] += step }
                }
            }
        }
        var shares = tally.sourceShares()
        // Seconds from exact milliseconds, so the amounts do not carry the sweep's rounding.
        var total: Int64 = 0
        for i in shares.indices {
            shares[i].counted = Double(shares[i].countedMillis) / 1000
            shares[i].suppressed = Double(shares[i].suppressedMillis) / 1000
            total += shares[i].countedMillis
        }
        return RollupCell(
            metric: .sleep, day: day, count: count, value: Double(total) / 1000, sources: shares)
    }
}

/// Per-source counted and suppressed amounts of one merge, indexed by local rank.
///
/// Two arrays of structs rather than an array per figure: each array a recompute allocates
/// costs a lookup of its storage type's metadata in the runtime, and seven of them per cell
/// were about 2% of a replay.
private struct Tally {
    /// What one source had on the day.
    struct Share {
        var samples = 0
        var counted = 0.0
        var countedMillis: Int64 = 0
        var suppressed = 0.0
        var suppressedMillis: Int64 = 0
    }

    /// What one winner suppressed of one source, and how often.
    struct Suppression {
        var amount = 0.0
        var times = 0
    }

    var sources: [SourceID]
    var shares: [Share]
    /// `[source * k + winner]`.
    var suppressions: [Suppression]

    init(sources: [SourceID]) {
        let k = sources.count
        self.sources = sources
        shares = Array(repeating: Share(), count: k)
        suppressions = Array(repeating: Suppression(), count: k * k)
    }

    /// Counts one sample of source `source`.
    @inline(__always)
    mutating func count(source: Int) { shares[source].samples += 1 }

    /// Adds what source `source` had where `winner` decided.
    @inline(__always)
    mutating func add(source: Int, winner: Int, amount: Double, millis: Int64) {
        if winner == source {
            shares[source].counted += amount
            shares[source].countedMillis += millis
        } else {
            shares[source].suppressed += amount
            shares[source].suppressedMillis += millis
            suppressions[source * sources.count + winner].amount += amount
            suppressions[source * sources.count + winner].times += 1
        }
    }

    /// The shares of the sources with samples on the day, sorted by source id.
    func sourceShares() -> [RollupCell.SourceShare] {
        let k = sources.count
        var result: [RollupCell.SourceShare] = []
        for r in 0..<k where shares[r].samples > 0 {
            // The winner that suppressed the largest amount; ties go to the higher priority.
            var by: Int? = nil
            for w in 0..<k where suppressions[r * k + w].times > 0 {
                if let best = by, suppressions[r * k + w].amount <= suppressions[r * k + best].amount {
                    continue
                }
                by = w
            }
            let share = shares[r]
            result.append(
                RollupCell.SourceShare(
                    source: sources[r], samples: share.samples, counted: share.counted,
                    countedMillis: share.countedMillis, suppressed: share.suppressed,
                    suppressedMillis: share.suppressedMillis, suppressedBy: by.map { sources[$0] }))
        }
        result.sort { $0.source < $1.source }
        return result
    }
}

extension SleepStage {
    /// Whether the stage is sleep (asleep, core, deep, rem), not in bed or awake.
    package var isAsleep: Bool {
        switch self {
        case .asleep, .core, .deep, .rem: true
        case .inBed, .awake: false
        }
    }
}
