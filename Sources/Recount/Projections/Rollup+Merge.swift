/// The overlap merge of sums and sleep (contract §3.5): one sweep over the boundaries of the
/// samples' intervals in which, at every instant, the highest-priority source covering it decides.
///
/// The sweep works on packed `UInt64` events, sorted as plain integers: the time relative to a
/// window around the day (as many bits as the window's length takes: 29 for a sum's five days,
/// 35 for sleep's 372), the kind (2 bits) and the sample's place in canonical order (the rest:
/// 33 bits for a sum, 27 for sleep). Times outside the window cannot touch the day and are
/// clamped to it. Per source the sweep keeps integer counters only; floating-point amounts are
/// added afterwards, sample by sample in canonical order, so the result does not depend on the
/// input order.
///
/// Memory grows with the samples and the pairs of sources that suppressed each other, never
/// with sources × samples or sources × sources: one upload of thousands of samples from as
/// many origins must not take gigabytes (it did: 1.5 GB for 8,000).
extension Rollup {
    private static let kindBits = 2

    /// Event kinds, in the order they are handled at one instant: coverage changes first, so
    /// instantaneous samples see who covers them.
    package enum Kind: UInt64 {
        case coverEnd = 0
        case coverStart = 1
        case instant = 2
    }

    /// A half-open UTC window `[start, end)` around a day, and the event packing relative to it.
    package struct Window {
        package var start: Int64
        package var end: Int64
        /// The bits of an event's payload: those its time (`end` included) leaves.
        package let payloadBits: Int

        /// The window from `daysBefore` days before the day's local midnight (read as UTC) to
        /// `daysAfter` days after it; at most 795 days in all.
        @inline(__always)
        package init(around day: CivilDay, daysBefore: Int64, daysAfter: Int64) {
            start = day.startLocalMillis - daysBefore * Timestamp.millisPerDay
            end = day.startLocalMillis + daysAfter * Timestamp.millisPerDay
            // From the day counts alone, so that a merge's shifts are constants.
            payloadBits = ((daysBefore + daysAfter) * Timestamp.millisPerDay).leadingZeroBitCount - kindBits
        }

        /// The most samples a merge may pack, with `flagBits` bits of the payload kept for flags
        /// (a cell of more cannot be held in memory: 2^32 for a sum, 2^27 for sleep).
        package func samplesPacked(flagBits: Int) -> Int { 1 << (payloadBits - flagBits) }

        package func key(_ time: Int64, _ kind: Kind, _ payload: Int) -> UInt64 {
            UInt64(time - start) << (payloadBits + kindBits) | kind.rawValue << payloadBits | UInt64(payload)
        }

        package func time(_ key: UInt64) -> Int64 { start + Int64(key >> (payloadBits + kindBits)) }

        package func kind(_ key: UInt64) -> Kind {
            Kind(rawValue: key >> payloadBits & 3)!
        }

        package func payload(_ key: UInt64) -> Int {
            Int(key & (1 << payloadBits - 1))
        }
    }

    /// The sources present, highest priority first, and each sample's local rank among them.
    private static func localRanks(
        samples: [LiveSample], order: [Int], priority: SourcePriority
    ) -> (sources: [SourceID], rank: [Int]) {
        var distinct: [SourceID] = []
        // Slots by source once there are more than a few (a linear search is cheaper until then).
        var slots: [SourceID: Int] = [:]
        var slot: [Int] = []
        slot.reserveCapacity(order.count)
        var last = -1
        for index in order {
            let source = samples[index].source
            if last < 0 || distinct[last] != source {
                last = (distinct.count <= 8 ? distinct.firstIndex(of: source) : slots[source]) ?? -1
                if last < 0 {
                    distinct.append(source)
                    last = distinct.count - 1
                    if distinct.count == 9 {
                        for (slot, source) in distinct.enumerated() { slots[source] = slot }
                    } else if distinct.count > 9 {
                        slots[source] = last
                    }
                }
            }
            slot.append(last)
        }
        let byPriority = distinct.indices.sorted {
            priority.key(of: distinct[$0]) < priority.key(of: distinct[$1])
        }
        var rankOfSlot = [Int](filledWith: 0, count: distinct.count)
        for (rank, slot) in byPriority.enumerated() { rankOfSlot[slot] = rank }
        return (byPriority.map { distinct[$0] }, slot.map { rankOfSlot[$0] })
    }

    /// How many samples of each rank cover the sweep's instant, and the ranks with any as bits,
    /// so the winner (the lowest such rank) is found a word at a time.
    private struct Coverage {
        var counts: [Int32]
        var bits: [UInt64]

        init(ranks: Int) {
            counts = [Int32](filledWith: 0, count: ranks)
            bits = [UInt64](filledWith: 0, count: (ranks + 63) / 64)
        }

        @inline(__always)
        mutating func add(_ step: Int32, at rank: Int) {
            counts[rank] += step
            let bit: UInt64 = 1 << (rank & 63)
            if counts[rank] > 0 { bits[rank >> 6] |= bit } else { bits[rank >> 6] &= ~bit }
        }

        /// The lowest rank with a positive count, or `-1`.
        var winner: Int {
            var word = 0
            while word < bits.count {
                if bits[word] != 0 { return word << 6 | bits[word].trailingZeroBitCount }
                word += 1
            }
            return -1
        }

        /// Calls `body` with each rank with a positive count, ascending.
        func forEachRank(_ body: (Int) -> Void) {
            for (word, set) in bits.enumerated() {
                var rest = set
                while rest != 0 {
                    body(word << 6 | rest.trailingZeroBitCount)
                    rest &= rest - 1
                }
            }
        }
    }

    /// A stretch of time `[from, to)` in which rank `winner` decided.
    private struct Stretch {
        var from: Int64
        var to: Int64
        var winner: Int
    }

    /// Sums (steps, distance, active energy): each sample adds value × (its counted time on the
    /// day) / (its whole duration); an instantaneous one adds its value when no higher-priority
    /// source covers its instant.
    static func mergeSum(
        metric: Metric, day: CivilDay, samples: [LiveSample], order: [Int], priority: SourcePriority,
        zones: ZoneOffsets
    ) -> RollupCell {
        let n = order.count
        // Any part of the day lies within a day of its local midnight read as UTC.
        let window = Window(around: day, daysBefore: 2, daysAfter: 3)
        // An instant's payload keeps a flag.
        precondition(n < window.samplesPacked(flagBits: 1), "too many samples in one rollup cell")
        let (sources, rank) = localRanks(samples: samples, order: order, priority: priority)
        let k = sources.count

        // Events; each sample's whole (capped) duration, 0 marking an instantaneous one; and its
        // parts on the day, adjacent ones joined: `parts[partStart[place]..<partStart[place + 1]]`.
        // Cover starts come in canonical order, already sorted; the ends and instants are kept
        // apart and appended after them, so the sort mostly merges a few sorted runs.
        var events: [UInt64] = []
        events.reserveCapacity(2 * n)
        var later: [UInt64] = []
        later.reserveCapacity(n)
        var parts: [(from: Int64, to: Int64)] = []
        parts.reserveCapacity(n)
        var partStart = [Int](filledWith: 0, count: n + 1)
        var duration = [Int64](filledWith: 0, count: n)
        for place in 0..<n {
            partStart[place] = parts.count
            // Fields read in place: a copy of the sample would retain its id and zone.
            let index = order[place]
            let (startMillis, endMillis) = (samples[index].startMillis, samples[index].endMillis)
            guard endMillis > startMillis else {
                // An instant of another day (written in another offset) takes part in deciding
                // who wins at its instant; it counts on its own day only (the low payload bit).
                if startMillis >= window.start, startMillis < window.end {
                    let onDay = startDay(of: samples[index], zones: zones) == day ? 1 : 0
                    later.append(window.key(startMillis, .instant, place << 1 | onDay))
                }
                continue
            }
            let end = DayAttribution.cappedEnd(startMillis: startMillis, endMillis: endMillis)
            duration[place] = end - startMillis
            let from = max(startMillis, window.start)
            let to = min(end, window.end)
            guard from < to else { continue }
            let first = parts.count
            DayAttribution.forEachPiece(
                startMillis: startMillis, startOffset: samples[index].startOffset, endMillis: endMillis,
                zone: samples[index].zone, zones: zones
            ) { pieceFrom, pieceTo, pieceDay in
                guard pieceDay == day else { return }
                if parts.count > first, parts[parts.count - 1].to == pieceFrom {
                    parts[parts.count - 1].to = pieceTo
                } else {
                    parts.append((pieceFrom, pieceTo))
                }
            }
            events.append(window.key(from, .coverStart, place))
            later.append(window.key(to, .coverEnd, place))
        }
        partStart[n] = parts.count
        events.append(contentsOf: later)
        events.sort()

        // Who won when, as stretches (adjacent ones of one winner joined), and the winning rank
        // at each instantaneous sample (-1 when it is not on the day).
        var stretches: [Stretch] = []
        stretches.reserveCapacity(events.count)
        var instantWinner = [Int](filledWith: -1, count: n)
        var coverage = Coverage(ranks: k)
        var previous = events.first.map(window.time) ?? 0
        var e = 0
        while e < events.count {
            let event = events[e]
            let time = window.time(event)
            if time != previous {
                let w = coverage.winner
                if w >= 0 {
                    if let last = stretches.last, last.winner == w, last.to == previous {
                        stretches[stretches.count - 1].to = time
                    } else {
                        stretches.append(Stretch(from: previous, to: time, winner: w))
                    }
                }
                previous = time
            }
            let payload = window.payload(event)
            switch window.kind(event) {
            case .coverEnd: coverage.add(-1, at: rank[payload])
            case .coverStart: coverage.add(1, at: rank[payload])
            case .instant:
                // All instants at `time` are adjacent and last; the best of them and of the
                // covering sources wins.
                var best = coverage.winner
                var last = e
                while last < events.count, window.time(events[last]) == time {
                    let r = rank[window.payload(events[last]) >> 1]
                    if best < 0 || r < best { best = r }
                    last += 1
                }
                for other in e..<last where window.payload(events[other]) & 1 == 1 {
                    instantWinner[window.payload(events[other]) >> 1] = best
                }
                e = last - 1
            }
            e += 1
        }

        // Amounts, sample by sample in canonical order, and within a sample winner by winner
        // in rank order.
        var tally = Tally(sources: sources)
        var total = 0.0
        var count = 0
        // The milliseconds of the sample's day parts each rank won, and, with many sources, the
        // ranks that won any (with few, every rank is looked at).
        var won = [Int64](filledWith: 0, count: k)
        let fewSources = k <= Tally.squareSources
        var winners: [Int] = fewSources ? Array(0..<k) : []
        // Where the last part's stretches began: parts mostly come in time order.
        var stretch = 0
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
            // Indices, not a slice: a slice of `parts` retained its storage for every sample.
            for index in partStart[place]..<partStart[place + 1] {
                let part = parts[index]
                stretch = Self.firstStretch(endingAfter: part.from, in: stretches, from: stretch)
                var i = stretch
                while i < stretches.count, stretches[i].from < part.to {
                    let overlap = min(stretches[i].to, part.to) - max(stretches[i].from, part.from)
                    let w = stretches[i].winner
                    if !fewSources, won[w] == 0 { winners.append(w) }
                    won[w] += overlap
                    onDay = true
                    i += 1
                }
            }
            guard onDay else { continue }
            if !fewSources { winners.sort() }
            let whole = Double(duration[place])
            for w in winners where won[w] > 0 {
                let millis = won[w]
                won[w] = 0
                let amount = value * (Double(millis) / whole)
                if w == r { total += amount }
                tally.add(source: r, winner: w, amount: amount, millis: millis)
            }
            if !fewSources { winners.removeAll(keepingCapacity: true) }
            count += 1
            tally.count(source: r)
        }
        return RollupCell(
            metric: metric, day: day, count: count, value: total, sources: tally.sourceShares())
    }

    /// The index of the first of `stretches` (ascending, disjoint) that ends after `millis`:
    /// walked to from `hint` when `millis` lies past the stretch before it (parts mostly come
    /// in time order), else found by bisection.
    @inline(__always)
    private static func firstStretch(endingAfter millis: Int64, in stretches: [Stretch], from hint: Int) -> Int {
        if hint == 0 || stretches[hint - 1].to <= millis {
            var i = hint
            while i < stretches.count, stretches[i].to <= millis { i += 1 }
            return i
        }
        var (low, high) = (0, hint)
        while low < high {
            let middle = (low + high) / 2
            if stretches[middle].to <= millis { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Sleep: the asleep time (stages asleep, core, deep, rem) of the day's samples, where at each
    /// instant the highest-priority source with any sleep sample covering it decides.
    static func mergeSleep(
        day: CivilDay, samples: [LiveSample], order: [Int], priority: SourcePriority,
        zones: ZoneOffsets
    ) -> RollupCell {
        let n = order.count
        // A sleep sample of the day ends within a day or so of it and lasts at most 366 days.
        let window = Window(around: day, daysBefore: 369, daysAfter: 3)
        precondition(n < window.samplesPacked(flagBits: 0), "too many samples in one rollup cell")
        let (sources, rank) = localRanks(samples: samples, order: order, priority: priority)
        let k = sources.count

        // Starts in canonical order (a sorted run), then the ends, as in `mergeSum`.
        var events: [UInt64] = []
        events.reserveCapacity(2 * n)
        var ends: [UInt64] = []
        ends.reserveCapacity(n)
        // Whether each sample is asleep and on the day.
        var countsAsleep = [Bool](filledWith: false, count: n)
        var count = 0
        var tally = Tally(sources: sources)
        for place in 0..<n {
            // Fields read in place: a copy of the sample would retain its id and zone.
            let index = order[place]
            if sleepDay(of: samples[index], zones: zones) == day {
                countsAsleep[place] = samples[index].stage?.isAsleep ?? false
                count += 1
                tally.count(source: rank[place])
            }
            let startMillis = samples[index].startMillis
            let end = DayAttribution.cappedEnd(startMillis: startMillis, endMillis: samples[index].endMillis)
            let from = max(startMillis, window.start)
            let to = min(end, window.end)
            guard from < to else { continue }
            events.append(window.key(from, .coverStart, place))
            ends.append(window.key(to, .coverEnd, place))
        }
        events.append(contentsOf: ends)
        events.sort()

        var coverage = Coverage(ranks: k)
        var asleep = Coverage(ranks: k)
        var previous = events.first.map(window.time) ?? 0
        for event in events {
            let time = window.time(event)
            if time != previous {
                let w = coverage.winner
                if w >= 0 {
                    let span = time - previous
                    asleep.forEachRank { r in
                        tally.add(source: r, winner: w, amount: Double(span) / 1000, millis: span)
                    }
                }
                previous = time
            }
            let place = window.payload(event)
            let step: Int32 = window.kind(event) == .coverStart ? 1 : -1
            coverage.add(step, at: rank[place])
            if countsAsleep[place] { asleep.add(step, at: rank[place]) }
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
/// Two arrays of structs rather than an array per figure: seven arrays allocated per cell were
/// about 2% of a replay.
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

        @inline(__always)
        mutating func add(_ amount: Double) {
            self.amount += amount
            times += 1
        }
    }

    /// A (suppressed source, winner) pair of local ranks.
    struct Pair: FlatKey {
        var source: Int32
        var winner: Int32
        var flatHash: UInt64 { FlatHash.mix(UInt64(UInt32(bitPattern: source)), UInt64(UInt32(bitPattern: winner))) }
    }

    /// Up to this many sources the pairs are kept in a square table (the usual day has two or
    /// three); past it, only the pairs that met: a day of thousands of sources has far fewer
    /// than their square.
    static let squareSources = 16

    var sources: [SourceID]
    var shares: [Share]
    /// `[source * k + winner]`, with few sources.
    var square: [Suppression]
    /// The pairs that met, with many (`nil` with few: an empty `FlatMap` allocates).
    var pairs: FlatMap<Pair, Suppression>?

    init(sources: [SourceID]) {
        let k = sources.count
        self.sources = sources
        shares = Array(filledWith: Share(), count: k)
        square = k <= Self.squareSources ? Array(filledWith: Suppression(), count: k * k) : []
        pairs = k <= Self.squareSources ? nil : FlatMap()
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
            if square.isEmpty {
                pairs![Pair(source: Int32(source), winner: Int32(winner)), default: Suppression()].add(amount)
            } else {
                square[source * sources.count + winner].add(amount)
            }
        }
    }

    /// The shares of the sources with samples on the day, sorted by source id.
    func sourceShares() -> [RollupCell.SourceShare] {
        let fromPairs = square.isEmpty ? mainSuppressorsFromPairs() : []
        var result: [RollupCell.SourceShare] = []
        for r in 0..<sources.count where shares[r].samples > 0 {
            let share = shares[r]
            let by = square.isEmpty ? fromPairs[r] : mainSuppressorFromSquare(of: r)
            result.append(
                RollupCell.SourceShare(
                    source: sources[r], samples: share.samples, counted: share.counted,
                    countedMillis: share.countedMillis, suppressed: share.suppressed,
                    suppressedMillis: share.suppressedMillis, suppressedBy: by.map { sources[$0] }))
        }
        result.sort { $0.source < $1.source }
        return result
    }

    /// The winner that suppressed the largest amount of rank `r`, from the square table; ties
    /// go to the higher priority (the lower rank).
    private func mainSuppressorFromSquare(of r: Int) -> Int? {
        let k = sources.count
        var by: Int? = nil
        for w in 0..<k where square[r * k + w].times > 0 {
            if let held = by, square[r * k + w].amount <= square[r * k + held].amount { continue }
            by = w
        }
        return by
    }

    /// Per rank, the winner that suppressed the largest amount of it, from the pairs that met
    /// (in whatever order they met); ties go to the higher priority (the lower rank).
    private func mainSuppressorsFromPairs() -> [Int?] {
        var by = [Int?](filledWith: nil, count: sources.count)
        var most = [Double](filledWith: 0, count: sources.count)
        guard let pairs else { return by }
        for (pair, suppression) in pairs {
            let (r, w) = (Int(pair.source), Int(pair.winner))
            if let held = by[r], suppression.amount < most[r] || (suppression.amount == most[r] && held < w) {
                continue
            }
            (by[r], most[r]) = (w, suppression.amount)
        }
        return by
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
