/// Places a sample on civil days by its metric's day rule (contract §2 and §3.3).
///
/// The local time of an instant is the instant plus an offset: the offset of the sample's
/// `timeZone` at that instant when the sample names a known zone, else the offset written on that
/// timestamp (`start`'s for the start, `end`'s for the end). The server's zone never enters.
package enum DayAttribution {
    /// The longest span `.splitByTime` spreads over: 366 days. Longer samples are attributed as if
    /// they ended `maximumSpanMillis` after their start (the ingest validator rejects them anyway),
    /// which bounds the work and the result at 367 shares.
    package static let maximumSpanMillis: Int64 = 366 * 86_400_000

    /// The days that every sample of a metric with `rule` starting in `window` counts towards
    /// one of: the day of its start, or for sleep the day of its end + 6 h. It holds whatever the
    /// sample's offsets and zone, which the ingest keeps within a day (written ones within
    /// 23:59), and however long the sample, which the ingest keeps to `maximumSpanMillis`.
    /// - Parameters:
    ///   - window: the starts, as epoch millis (not empty).
    ///   - rule: the metric's day rule.
    package static func days(holdingSamplesStartingIn window: Range<Int64>, rule: Metric.DayRule) -> ClosedRange<Int32>
    {
        let day = Timestamp.millisPerDay
        var (first, last) = (window.lowerBound - day, window.upperBound - 1 + day)
        if rule == .sleepEndPlusSixHours {
            first += 6 * Timestamp.millisPerHour
            last += maximumSpanMillis + 6 * Timestamp.millisPerHour
        }
        return CivilDay.of(localMillis: first).daysSinceEpoch...CivilDay.of(localMillis: last).daysSinceEpoch
    }

    /// The civil days of a sample and the share of it on each.
    ///
    /// - `.startDay`: one share on the local date of the start.
    /// - `.sleepEndPlusSixHours`: one share on the civil date of (local end + 6 h).
    /// - `.splitByTime`: `[start, end)` split across the local days it touches, in proportion to
    ///   elapsed (real) time. With a zone, each instant's day uses the zone's offset at that
    ///   instant, so a DST night of 23 or 25 hours splits by real time and a day a zone skipped
    ///   gets nothing; without one, the start's written offset draws every boundary. An
    ///   instantaneous sample (`end == start`), or an invalid one (`end < start`), gives one share
    ///   on its start day.
    ///
    /// Shares come in ascending day order; the last fraction is 1 minus the sum of the others taken
    /// in order, so adding the fractions in order gives exactly 1.0.
    /// - Parameters:
    ///   - rule: the metric's day rule.
    ///   - startMillis: the sample's start instant.
    ///   - startOffset: the offset written on `start`, seconds east of UTC.
    ///   - endMillis: the sample's end instant (`startMillis` when it has none).
    ///   - endOffset: the offset written on `end` (`startOffset` when it has none).
    ///   - zone: the sample's IANA `timeZone`, if any; an unknown name uses the written offsets.
    ///   - zones: the offset cache to resolve `zone` with.
    /// - Returns: at least one share.
    package static func days(
        rule: Metric.DayRule, startMillis: Int64, startOffset: Int32, endMillis: Int64,
        endOffset: Int32, zone: String?, zones: ZoneOffsets
    ) -> [DayShare] {
        switch rule {
        case .startDay:
            return [DayShare(day: localDay(startMillis, startOffset, zone, zones), fraction: 1)]
        case .sleepEndPlusSixHours:
            let offset = self.offset(
                atMillis: endMillis, writtenOffset: endOffset, zone: zone, zones: zones)
            let local =
                Timestamp.local(endMillis, offsetSeconds: offset) &+ 6 * Timestamp.millisPerHour
            return [DayShare(day: CivilDay.of(localMillis: local), fraction: 1)]
        case .splitByTime:
            guard endMillis > startMillis else {
                return [DayShare(day: localDay(startMillis, startOffset, zone, zones), fraction: 1)]
            }
            return split(
                startMillis: startMillis, startOffset: startOffset, endMillis: endMillis,
                zone: zone, zones: zones)
        }
    }

    /// Calls `body` with each day `days(rule:…)` gives, in time order, without building the
    /// shares (a day can come twice, where a zone turns its clocks back across midnight).
    package static func forEachDay(
        rule: Metric.DayRule, startMillis: Int64, startOffset: Int32, endMillis: Int64,
        endOffset: Int32, zone: String?, zones: ZoneOffsets, _ body: (CivilDay) -> Void
    ) {
        switch rule {
        case .startDay:
            body(localDay(startMillis, startOffset, zone, zones))
        case .sleepEndPlusSixHours:
            let offset = self.offset(atMillis: endMillis, writtenOffset: endOffset, zone: zone, zones: zones)
            body(
                CivilDay.of(
                    localMillis: Timestamp.local(endMillis, offsetSeconds: offset) &+ 6 * Timestamp.millisPerHour))
        case .splitByTime:
            guard endMillis > startMillis else {
                body(localDay(startMillis, startOffset, zone, zones))
                return
            }
            var last: CivilDay?
            forEachPiece(
                startMillis: startMillis, startOffset: startOffset, endMillis: endMillis, zone: zone, zones: zones
            ) { _, _, day in
                if day != last { body(day) }
                last = day
            }
        }
    }

    /// The offset that decides an instant's local time: the zone's when `zone` is known, else the
    /// offset written on the timestamp.
    /// - Parameters:
    ///   - atMillis: the instant.
    ///   - writtenOffset: the offset written on the timestamp, seconds east of UTC.
    ///   - zone: the sample's IANA `timeZone`, if any.
    ///   - zones: the offset cache.
    package static func offset(
        atMillis millis: Int64, writtenOffset: Int32, zone: String?, zones: ZoneOffsets
    ) -> Int32 {
        guard let zone, let offset = zones.offsetSeconds(zone: zone, atMillis: millis) else {
            return writtenOffset
        }
        return offset
    }

    /// The local civil day of an instant.
    private static func localDay(
        _ millis: Int64, _ writtenOffset: Int32, _ zone: String?, _ zones: ZoneOffsets
    ) -> CivilDay {
        let offset = offset(
            atMillis: millis, writtenOffset: writtenOffset, zone: zone, zones: zones)
        return CivilDay.of(localMillis: Timestamp.local(millis, offsetSeconds: offset))
    }

    /// The end `.splitByTime` spreads a sample to: `endMillis`, capped at `maximumSpanMillis`
    /// after the start.
    /// - Parameters:
    ///   - startMillis: the sample's start instant.
    ///   - endMillis: the sample's end instant.
    package static func cappedEnd(startMillis: Int64, endMillis: Int64) -> Int64 {
        let (cappedEnd, overflow) = startMillis.addingReportingOverflow(maximumSpanMillis)
        return overflow ? endMillis : min(endMillis, cappedEnd)
    }

    /// Walks `[start, cappedEnd)` as `.splitByTime` cuts it: calls `body` with each piece's UTC
    /// interval `[from, to)` and its civil day, in time order. The pieces tile the interval; the
    /// share of a day in `days(rule: .splitByTime, ...)` is the length of its pieces over the
    /// whole. A day can have several pieces: adjacent ones where the zone's offset changes within
    /// the day, and a later one when the zone turns its clocks back across midnight.
    /// - Parameters:
    ///   - startMillis: the sample's start instant.
    ///   - startOffset: the offset written on `start`, which draws every boundary without a zone.
    ///   - endMillis: the sample's end instant (nothing is walked unless it is after the start).
    ///   - zone: the sample's IANA `timeZone`, if any; an unknown name uses `startOffset`.
    ///   - zones: the offset cache to resolve `zone` with.
    ///   - body: called with `(from, to, day)` for each piece.
    package static func forEachPiece(
        startMillis: Int64, startOffset: Int32, endMillis: Int64, zone: String?, zones: ZoneOffsets,
        _ body: (Int64, Int64, CivilDay) -> Void
    ) {
        let end = cappedEnd(startMillis: startMillis, endMillis: endMillis)
        var t = startMillis
        while t < end {
            var offset = startOffset
            var segmentEnd = end
            if let zone, let interval = zones.offsetInterval(zone: zone, atMillis: t) {
                offset = interval.offsetSeconds
                // `untilMillis > t` always holds; the check only guarantees progress.
                if interval.untilMillis > t { segmentEnd = min(end, interval.untilMillis) }
            }
            let offsetMillis = Int64(offset) * Timestamp.millisPerSecond
            while t < segmentEnd {
                let day = Timestamp.floorDivide(
                    saturatingAdd(t, offsetMillis), Timestamp.millisPerDay)
                let midnight = (day + 1).multipliedReportingOverflow(by: Timestamp.millisPerDay)
                // Past the representable range the rest of the segment is one piece (never reached
                // by parsed times; it only keeps the loop finite and trap-free).
                let nextMidnight =
                    midnight.overflow
                    ? Int64.max : saturatingAdd(midnight.partialValue, -offsetMillis)
                let pieceEnd = nextMidnight > t ? min(segmentEnd, nextMidnight) : segmentEnd
                body(t, pieceEnd, CivilDay(daysSinceEpoch: Int32(clamping: day)))
                t = pieceEnd
            }
        }
    }

    /// `.splitByTime` for `endMillis > startMillis`.
    private static func split(
        startMillis: Int64, startOffset: Int32, endMillis: Int64, zone: String?, zones: ZoneOffsets
    ) -> [DayShare] {
        let total = cappedEnd(startMillis: startMillis, endMillis: endMillis) - startMillis
        // While accumulating, `fraction` holds milliseconds (exact in a Double below 2^53).
        var shares: [DayShare] = []
        forEachPiece(
            startMillis: startMillis, startOffset: startOffset, endMillis: endMillis, zone: zone,
            zones: zones
        ) { from, to, day in
            add(Double(to - from), to: day, in: &shares)
        }
        let denominator = Double(total)
        var sumOfOthers = 0.0
        for i in shares.indices.dropLast() {
            shares[i].fraction /= denominator
            sumOfOthers += shares[i].fraction
        }
        shares[shares.count - 1].fraction = 1 - sumOfOthers
        return shares
    }

    /// `a + b`, clamped to the `Int64` range.
    @inline(__always)
    private static func saturatingAdd(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? Int64.min : Int64.max) : sum
    }

    /// Adds `millis` to `day`'s share, keeping `shares` sorted by day. A zone turning its clocks
    /// back across midnight can revisit an earlier day, so the search runs from the end.
    private static func add(_ millis: Double, to day: CivilDay, in shares: inout [DayShare]) {
        var i = shares.count
        while i > 0, shares[i - 1].day > day { i -= 1 }
        if i > 0, shares[i - 1].day == day {
            shares[i - 1].fraction += millis
        } else {
            shares.insert(DayShare(day: day, fraction: millis), at: i)
        }
    }
}
