/// Rebuilds one (user, metric, day) rollup from the live samples of that day (contract §3.3–§3.5).
///
/// `compute` is a pure function: the same samples in any order, with the same ranking and zone
/// data, give a bit-identical `RollupCell`. It reads no clock, randomness or hash-table order; it
/// sorts the samples into one canonical order (start, end, position, id, source, value, stage)
/// before any floating-point sum. The rules are in `docs/projections.md`, section "Rollups".
package enum Rollup {
    /// Rebuilds a cell.
    ///
    /// Samples of another metric are ignored. A sample counts towards `day` by its metric's day
    /// rule (`DayAttribution`): only its part on `day` counts, so the caller may pass every sample
    /// attributed to the day without trimming. For sums and sleep, every sample passed also takes
    /// part in the overlap merge over its whole interval, so a higher-priority sample whose own
    /// day is another still suppresses what it covers.
    /// - Parameters:
    ///   - metric: the cell's metric.
    ///   - day: the cell's civil day.
    ///   - samples: the live samples attributed to the day, in any order.
    ///   - priority: the source ranking that applies to this user and metric.
    ///   - zones: the zone offset cache (the only state touched: it caches Foundation's answers).
    /// - Returns: the cell; a known zero, or a count of 0, when no sample falls on the day.
    package static func compute(
        metric: Metric, day: CivilDay, samples: [LiveSample], priority: SourcePriority,
        zones: ZoneOffsets
    ) -> RollupCell {
        let order = canonicalOrder(of: samples, metric: metric)
        switch metric {
        case .steps, .distance, .activeEnergy:
            return mergeSum(
                metric: metric, day: day, samples: samples, order: order, priority: priority,
                zones: zones)
        case .sleep:
            return mergeSleep(
                day: day, samples: samples, order: order, priority: priority, zones: zones)
        case .heartRate, .bloodGlucose, .weight:
            return statistics(
                metric: metric, day: day, samples: samples, order: order, zones: zones)
        case .workout:
            return workouts(day: day, samples: samples, order: order, zones: zones)
        }
    }

    /// The indices of the samples of `metric`, in canonical order: start, end, position, id,
    /// source, value bits, stage.
    ///
    /// The usual case sorts plain integers (the start relative to the earliest, then the index)
    /// and then sorts each run of equal starts by the whole order; huge inputs or spans fall back
    /// to sorting by the whole order at once.
    static func canonicalOrder(of samples: [LiveSample], metric: Metric) -> [Int] {
        let precedes = { (a: Int, b: Int) -> Bool in
            let x = samples[a]
            let y = samples[b]
            if x.startMillis != y.startMillis { return x.startMillis < y.startMillis }
            if x.endMillis != y.endMillis { return x.endMillis < y.endMillis }
            if x.position != y.position { return x.position < y.position }
            return x.precedesInRollupOrder(y)
        }
        var earliest = Int64.max
        var latest = Int64.min
        for index in samples.indices where samples[index].metric == metric {
            earliest = min(earliest, samples[index].startMillis)
            latest = max(latest, samples[index].startMillis)
        }
        guard earliest <= latest else { return [] }
        let indexBits = 20
        let span = latest.subtractingReportingOverflow(earliest)
        guard samples.count < 1 << indexBits, !span.overflow, span.partialValue < 1 << (63 - indexBits)
        else {
            return samples.indices.filter { samples[$0].metric == metric }.sorted(by: precedes)
        }
        var keys: [UInt64] = []
        keys.reserveCapacity(samples.count)
        for index in samples.indices where samples[index].metric == metric {
            keys.append(UInt64(samples[index].startMillis - earliest) << indexBits | UInt64(index))
        }
        keys.sort()
        var order = keys.map { Int($0 & (1 << indexBits - 1)) }
        var runStart = 0
        while runStart < order.count {
            let start = samples[order[runStart]].startMillis
            var runEnd = runStart + 1
            while runEnd < order.count, samples[order[runEnd]].startMillis == start { runEnd += 1 }
            if runEnd - runStart > 1 { order[runStart..<runEnd].sort(by: precedes) }
            runStart = runEnd
        }
        return order
    }

    /// The local date of a sample's start (`.startDay`).
    static func startDay(of sample: LiveSample, zones: ZoneOffsets) -> CivilDay {
        let offset = DayAttribution.offset(
            atMillis: sample.startMillis, writtenOffset: sample.startOffset, zone: sample.zone,
            zones: zones)
        return CivilDay.of(localMillis: Timestamp.local(sample.startMillis, offsetSeconds: offset))
    }

    /// The civil date of a sample's local end plus six hours (`.sleepEndPlusSixHours`).
    static func sleepDay(of sample: LiveSample, zones: ZoneOffsets) -> CivilDay {
        let offset = DayAttribution.offset(
            atMillis: sample.endMillis, writtenOffset: sample.endOffset, zone: sample.zone,
            zones: zones)
        return CivilDay.of(
            localMillis: Timestamp.local(sample.endMillis, offsetSeconds: offset)
                &+ 6 * Timestamp.millisPerHour)
    }

    /// Heart rate, blood glucose (count, min, max, mean) and weight (latest, min, max) over the
    /// samples starting on the day; no merging.
    private static func statistics(
        metric: Metric, day: CivilDay, samples: [LiveSample], order: [Int], zones: ZoneOffsets
    ) -> RollupCell {
        var count = 0
        var sum = 0.0
        var latest = 0.0
        var minimum = Double.infinity
        var maximum = -Double.infinity
        for index in order {
            let sample = samples[index]
            guard let value = sample.value, startDay(of: sample, zones: zones) == day else {
                continue
            }
            count += 1
            sum += value
            latest = value
            minimum = min(minimum, value)
            maximum = max(maximum, value)
        }
        guard count > 0 else { return RollupCell(metric: metric, day: day, count: 0, value: nil) }
        // Finite values whose sum overflows (two readings of 1.7e308) are averaged by parts,
        // again in canonical order; every other day keeps the plain mean, bit for bit.
        if metric != .weight, !sum.isFinite {
            sum = 0
            for index in order {
                let sample = samples[index]
                guard let value = sample.value, startDay(of: sample, zones: zones) == day else { continue }
                sum += value / Double(count)
            }
            return RollupCell(metric: metric, day: day, count: count, value: sum, minimum: minimum, maximum: maximum)
        }
        let value = metric == .weight ? latest : sum / Double(count)
        return RollupCell(
            metric: metric, day: day, count: count, value: value, minimum: minimum, maximum: maximum)
    }

    /// Workouts starting on the day: how many, and their total seconds.
    private static func workouts(
        day: CivilDay, samples: [LiveSample], order: [Int], zones: ZoneOffsets
    ) -> RollupCell {
        var count = 0
        var millis: Int64 = 0
        for index in order {
            let sample = samples[index]
            guard startDay(of: sample, zones: zones) == day else { continue }
            count += 1
            millis &+= max(0, sample.endMillis &- sample.startMillis)
        }
        return RollupCell(
            metric: .workout, day: day, count: count,
            value: Double(millis) / Double(Timestamp.millisPerSecond))
    }
}

extension LiveSample {
    /// The tie-break of the canonical order after start, end and position: id, source, value
    /// bits, stage. Two samples it does not order are interchangeable in every rollup.
    fileprivate func precedesInRollupOrder(_ other: LiveSample) -> Bool {
        if id != other.id { return id.precedesInRollupOrder(other.id) }
        if source != other.source { return source < other.source }
        let a = value?.bitPattern ?? 0
        let b = other.value?.bitPattern ?? 0
        if a != b { return a < b }
        return (stage?.rawValue ?? .max) < (other.stage?.rawValue ?? .max)
    }
}

extension SampleID {
    /// A total order on ids, only to break ties deterministically: UUIDs first by their bytes
    /// (uppercase before lowercase), then other ids by their UTF-8 bytes.
    fileprivate func precedesInRollupOrder(_ other: SampleID) -> Bool {
        switch (uuid, other.uuid) {
        case (.some(let a), .some(let b)):
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            return !a.lowercase && b.lowercase
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return text.utf8.lexicographicallyPrecedes(other.text.utf8)
        }
    }
}
