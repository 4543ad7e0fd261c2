extension Projections {
    /// The most days one `rollups` query returns: 100 years, which bounds what a query holds
    /// (the contract asks for every day from one bound to the other; 3,660 refused a user's
    /// ten years and a half, a contract audit, 2026-12-07).
    package static let maximumQueryDays = 36_600
    /// The days a `rollups` query without one of its bounds returns at most: the latest, or
    /// those after `from`.
    package static let defaultQueryDays = 3_660

    /// One row per day from `from` to `to` inclusive, each known, partial or unknown by
    /// contract §3 rule 8. A bound not given is the first or last day the user has a rollup
    /// for, within `defaultQueryDays` of the other: without `from`, the latest days (a device
    /// clock reset to 2001 leaves one day decades before the rest, and the query asked for
    /// nothing failed on a range too long). A given bound beyond those days, or when the user
    /// has no rollup of the metric, is the range's only day ("the days since my last sync"
    /// asked a day after the last had a usage error).
    ///
    /// - Parameters:
    ///   - asOf: evaluate at this instant (epoch millis): a day that had not ended by then is
    ///     not known.
    ///   - clock: for a question about now, the engine's clock (epoch millis): a day that has
    ///     not ended by then is not known, whatever a check-in received within the clock skew
    ///     ingest accepts says.
    package func rollupRows(
        user: String, metric: Metric, from: CivilDay?, to: CivilDay?, asOf: Int64? = nil, clock: Int64? = nil
    ) throws(QueryError) -> [RollupRow] {
        let userID = users.id(of: user)
        let span = userID.flatMap { rollupSpans[UserMetric(user: $0, metric: metric)] }
        let most = Int32(Self.defaultQueryDays - 1)
        func day(_ days: Int32) -> CivilDay { CivilDay(daysSinceEpoch: days) }
        guard var last = to ?? span?.upperBound ?? from, var first = from ?? span?.lowerBound ?? to else { return [] }
        if from == nil {
            first = day(max(min(first, last).daysSinceEpoch, last.daysSinceEpoch - most))
        } else if to == nil {
            last = day(min(max(last, first).daysSinceEpoch, first.daysSinceEpoch + most))
        }
        guard first <= last else { throw QueryError(.invalidDate, "--from \(first) is after --to \(last)") }
        guard Int(last.daysSinceEpoch) - Int(first.daysSinceEpoch) < Self.maximumQueryDays else {
            throw QueryError(.rangeTooLong, "at most \(Self.maximumQueryDays) days can be asked for at once")
        }
        let reader = dayReader(user: userID, metric: metric, asOf: asOf, clock: clock)
        return (first.daysSinceEpoch...last.daysSinceEpoch).map { days in
            let day = CivilDay(daysSinceEpoch: days)
            let rollup = userID.flatMap { rollups[CellKey(user: $0, metric: metric, day: day)] }
            return RollupRow(
                user: user, metric: metric.name, date: "\(day)", reading: reader.reading(of: day, rollup),
                unit: metric.canonicalUnit, version: rollup?.version)
        }
    }

    /// How one user's metric reads day by day (contract §3 rule 8): `rollups` and `changes`.
    struct DayReader {
        /// The providers the user has for the metric (a sample or a check-in came from them),
        /// one channel each, with its recovery windows and lost time; as of an instant, those
        /// the user had by then, as they stood then.
        let channels: [Channel]
        /// Where the user's days end: the user's latest observed offset.
        let offsetMillis: Int64
        /// The figures of a known day without a rollup (a known zero).
        let knownZero: [RollupRow.Value]
        let asOf: Int64?
        /// Days not ended by this instant (the engine's clock, when asked about now) are not known.
        let clock: Int64?

        /// The day's reading, from its rollup if it has one.
        func reading(of day: CivilDay, _ rollup: StoredRollup?) -> RollupRow.Reading {
            let (dayStart, dayEnd) = Projections.instants(of: day, offsetMillis: offsetMillis)
            return Projections.reading(
                values: rollup.map { Projections.values(of: $0.cell) } ?? knownZero, count: rollup?.cell.count ?? 0,
                reason: Projections.reason(channels, dayStart: dayStart, dayEnd: dayEnd, asOf: asOf, clock: clock))
        }
    }

    /// A sync channel with its recovery windows and lost time (read once, not for every day).
    struct Channel {
        var state: SyncState
        var windows: [Range<Int64>]
        var lost: [Range<Int64>]
    }

    /// The channels rule 8 reads for `user`'s `metric` (those the user has, as of `asOf` when
    /// given), by provider number.
    func channels(user: UInt32, metric: Metric, asOf: Int64?) -> [Channel] {
        var channels: [Channel] = []
        forEachChannel(user: user, metric: metric, asOf: asOf) {
            channels.append($0)
            return true
        }
        return channels
    }

    /// Calls `body` with each channel rule 8 reads for `user`'s `metric`, in provider number
    /// order (as `channels`, without an array of them), but the provider `excluded`'s, until
    /// `body` returns `false`.
    func forEachChannel(
        user: UInt32, metric: Metric, asOf: Int64?, excluding excluded: UInt32? = nil, _ body: (Channel) -> Bool
    ) {
        for provider in channelProviders[user] where provider != excluded {
            guard let state = syncStates[SyncKey(user: user, provider: provider, metric: metric)],
                state.isHad(asOf: asOf)
            else { continue }
            let (windows, lost) = state.recovery(asOf: asOf)
            guard body(Channel(state: state, windows: windows, lost: lost)) else { return }
        }
    }

    /// The reader of `user`'s `metric` days (a user the projections do not know has none).
    func dayReader(user: UInt32?, metric: Metric, asOf: Int64?, clock: Int64? = nil) -> DayReader {
        let channels = user.map { self.channels(user: $0, metric: metric, asOf: asOf) } ?? []
        return DayReader(
            channels: channels, offsetMillis: Int64(user.map(latestOffset(user:)) ?? 0) * 1000,
            knownZero: knownZero(of: metric), asOf: asOf, clock: clock)
    }

    /// A day's reading from its figures, its rollup's sample count and rule 8's reason.
    static func reading(values: [RollupRow.Value], count: Int, reason: RollupRow.Reason?) -> RollupRow.Reading {
        guard let reason else { return .known(values) }
        return count > 0 ? .partial(values, reason) : .unknown(reason)
    }

    /// The figures of a known day of `metric` without a rollup (a known zero; they do not
    /// depend on the day).
    func knownZero(of metric: Metric) -> [RollupRow.Value] {
        Self.values(
            of: Rollup.compute(
                metric: metric, day: CivilDay(daysSinceEpoch: 0), samples: [],
                priority: SourcePriority(configured: [], sources: [:]), zones: zones))
    }

    /// Where `day` starts and ends (epoch millis) for a user whose days end at midnight
    /// `offsetMillis` east of UTC: the user's latest observed offset (rule 8).
    static func instants(of day: CivilDay, offsetMillis: Int64) -> (start: Int64, end: Int64) {
        let start = day.startLocalMillis - offsetMillis
        return (start, start + Timestamp.millisPerDay)
    }

    /// Whether a recovery window meets the day `[dayStart, dayEnd)`: an empty one (an expiry at
    /// the instant of the last read) still names its day.
    static func windowMeets(_ window: Range<Int64>, dayStart: Int64, dayEnd: Int64) -> Bool {
        window.lowerBound < dayEnd && window.upperBound > dayStart
    }

    /// Why a day `[dayStart, dayEnd)` is not known from these channels, or `nil` when it is:
    /// as of `asOf` when given (then only check-ins received by then count, as `stale` reads
    /// them), and a day that has not ended by `asOf`, else by `clock` (the engine's, for a
    /// question about now), is not known.
    static func reason(
        _ channels: [Channel], dayStart: Int64, dayEnd: Int64, asOf: Int64?, clock: Int64? = nil
    ) -> RollupRow.Reason? {
        let notEnded = (asOf ?? clock).map { dayEnd > $0 } ?? false
        guard !channels.isEmpty else { return .neverSynced }
        return channels.reduce(nil) { found, channel in
            graver(
                found,
                reason(
                    lastCheckin: channel.state.lastCheckin(receivedBy: asOf), windows: channel.windows,
                    lost: channel.lost, dayStart: dayStart, dayEnd: dayEnd, notEnded: notEnded))
        }
    }

    /// Why one channel does not vouch for the day `[dayStart, dayEnd)`, or `nil` when it does:
    /// a day's reason is the gravest of its channels' (`graver`).
    static func reason(
        lastCheckin: Int64?, windows: [Range<Int64>], lost: [Range<Int64>], dayStart: Int64, dayEnd: Int64,
        notEnded: Bool = false
    ) -> RollupRow.Reason? {
        if lost.contains(where: { $0.overlaps(dayStart..<dayEnd) }) { return .unrecoverableGap }
        // An empty window (an expiry at the instant of the last read) still names its day.
        if windows.contains(where: { windowMeets($0, dayStart: dayStart, dayEnd: dayEnd) }) {
            return .recoveryWindowOpen
        }
        return (lastCheckin ?? .min) < dayEnd || notEnded ? .noCheckinSinceDayEnd : nil
    }

    /// The graver of two channels' reasons: a lost stretch, then an open window, then a missing
    /// check-in (`nil`: vouched for).
    static func graver(_ a: RollupRow.Reason?, _ b: RollupRow.Reason?) -> RollupRow.Reason? {
        gravity(b) > gravity(a) ? b : a
    }

    /// How grave a reason is (`graver`): 0 for none, up to 4 for a user who never synced.
    static func gravity(_ reason: RollupRow.Reason?) -> Int {
        switch reason {
        case nil: 0
        case .noCheckinSinceDayEnd: 1
        case .recoveryWindowOpen: 2
        case .unrecoverableGap: 3
        case .neverSynced: 4
        }
    }

    /// The figures of a cell in the contract's order.
    static func values(of cell: RollupCell) -> [RollupRow.Value] {
        var values: [RollupRow.Value] = []
        func add(_ name: String, _ value: Double?) {
            if let value { values.append(RollupRow.Value(name: name, value: value)) }
        }
        switch cell.metric {
        case .steps, .distance, .activeEnergy, .sleep:
            add("value", cell.value ?? 0)
        case .workout:
            add("count", Double(cell.count))
            add("value", cell.value ?? 0)
        case .heartRate, .bloodGlucose:
            add("count", Double(cell.count))
            add("min", cell.minimum)
            add("max", cell.maximum)
            add("mean", cell.value)
        case .weight:
            add("count", Double(cell.count))
            add("latest", cell.value)
            add("min", cell.minimum)
            add("max", cell.maximum)
        }
        return values
    }

    /// The live samples of one user's metric on one day, in time order.
    package func sampleRows(user: String, metric: Metric, day: CivilDay) -> [SampleRow] {
        guard let userID = users.id(of: user) else { return [] }
        // The digest's key order within one user (`forEachIdInKeyOrder`), without ranking every user.
        let order = { (a: IdIndex.Key, b: IdIndex.Key) in
            a.provider != b.provider ? providers[a.provider] < providers[b.provider] : a.id.textPrecedes(b.id)
        }
        return cells.members(of: CellKey(user: userID, metric: metric, day: day))
            .compactMap { number -> (IdIndex.Key, IdIndex.Entry)? in
                let key = index.key(Int(number))
                return index.entry(key).map { (key, $0) }
            }
            .sorted { a, b in
                (a.1.sample.startMillis, a.1.sample.endMillis) != (b.1.sample.startMillis, b.1.sample.endMillis)
                    ? (a.1.sample.startMillis, a.1.sample.endMillis) < (b.1.sample.startMillis, b.1.sample.endMillis)
                    : order(a.0, b.0)
            }
            .map { key, entry in
                let sample = entry.sample
                let source = sources[Int(sample.source.rawValue)]
                // Local times as the day was decided: in the sample's zone when it named one.
                func local(_ millis: Int64, written offset: Int32) -> String {
                    RFC3339.format(
                        millis: millis,
                        offsetSeconds: DayAttribution.offset(
                            atMillis: millis, writtenOffset: offset, zone: sample.zone, zones: zones))
                }
                return SampleRow(
                    provider: providers[key.provider], id: key.id.text,
                    start: local(sample.startMillis, written: sample.startOffset),
                    end: local(sample.endMillis, written: sample.endOffset), timeZone: sample.zone, value: sample.value,
                    originalValue: entry.originalValue, originalUnit: entry.unitSymbol, stage: sample.stage?.name,
                    origin: source.origin, device: source.device, position: sample.position,
                    activity: sample.metric == .workout ? (entry.activity ?? .other).name : nil,
                    distance: entry.distance, energy: entry.energy)
            }
    }

    /// The dirty set, sorted by user, provider, metric and day.
    package func dirtyRows() -> [DirtyDay] {
        dirty.days.map { key, position in
            DirtyDay(
                user: users[key.user], provider: providers[key.provider], metric: key.metric.name, date: "\(key.day)",
                position: position)
        }.sorted { ($0.user, $0.provider, $0.metric, $0.date) < ($1.user, $1.provider, $1.metric, $1.date) }
    }
}
