extension Projections {
    /// One sync channel: a user's provider for one metric.
    package struct SyncKey: Hashable, Sendable, FlatKey {
        package var user: UInt32
        package var provider: UInt32
        package var metric: Metric

        package var flatHash: UInt64 {
            FlatHash.mix(UInt64(user) << 32 | UInt64(provider), UInt64(metric.rawValue))
        }
    }

    /// The providers of each user's sync channels, ascending, by user number: the channels rule 8
    /// reads of a user, and the providers a day of the user can be dirty for, found without going
    /// through every provider of the store (one user's thousands of provider names made every
    /// other user's check-ins as slow; an attack run).
    struct ChannelProviders {
        private var byUser: [[UInt32]] = []

        /// The providers of `user`'s channels, ascending.
        subscript(user: UInt32) -> [UInt32] {
            Int(user) < byUser.count ? byUser[Int(user)] : []
        }

        /// Notes that `user` has a channel of `provider`.
        mutating func note(user: UInt32, provider: UInt32) {
            if Int(user) >= byUser.count {
                byUser.append(contentsOf: repeatElement([], count: Int(user) + 1 - byUser.count))
            }
            byUser[Int(user)].insertOnce(provider, orderedBy: <)
        }
    }

    /// `config.provider` for a user (or `*`) and provider.
    package struct ProviderKey: Hashable, Sendable {
        package var user: String
        package var provider: String
    }

    /// A provider's expected check-in interval and cohort, with the `receivedAt` that set them.
    package struct ProviderSetting: Equatable, Sendable {
        package var expectedCheckinSeconds: Int64
        package var cohort: String?
        package var receivedAt: Int64

        /// Whether this setting wins over `other`, received at the same instant: the greater
        /// interval, then cohort (so that the same settings folded in any order, or twice, end
        /// at the same one).
        func wins(over other: ProviderSetting) -> Bool {
            (expectedCheckinSeconds, cohort ?? "") > (other.expectedCheckinSeconds, other.cohort ?? "")
        }
    }

    /// The expected check-in interval when no `config.provider` says otherwise: a day, the
    /// longest gap between HealthKit background deliveries or Health Connect foreground reads
    /// that is still ordinary for an active user.
    package static let defaultCheckinSeconds: Int64 = 86_400

    /// The envelope whose sync facts are being folded: its user and `receivedAt`.
    struct SyncFold {
        let user: UInt32
        let received: Int64
    }

    /// Changes the state of one channel of the envelope's user (contract §3 rules 9–10), and
    /// moves the versions of the user's days of the metric with samples, or whose samples all
    /// went, whose reading (rule 8) the change may move, so that `changes` lists them: a day
    /// changes no input of its own when it becomes known or stops being known, and the feed
    /// never told a follower (an attack run; `moveVersionsOfDaysRead`). Days it may take from
    /// known are dirtied.
    ///
    /// - Parameter provider: the provider's interned number (interned by the caller, once per
    ///   envelope: hashing its name for each channel updated was 2% of a replay).
    mutating func updateSync(
        _ provider: UInt32, _ metric: Metric, _ fold: SyncFold, _ change: (inout SyncState) -> Void
    ) {
        let key = SyncKey(user: fold.user, provider: provider, metric: metric)
        let channels = syncStates.count
        let (before, after, added) = Self.changing(&syncStates[key, default: SyncState()], by: change)
        feed.noteChannel(key, before: before)
        if feed.isKept, before != after { feed.noteReadingsMoved(user: key.user, metric: metric, at: position) }
        if syncStates.count > channels { channelProviders.note(user: key.user, provider: provider) }
        checkinCount += added.checkins
        listedCount += added.listed
        // Rule 8 reads only the channels the user has.
        guard after.isHad else { return }
        let isNew = !before.isHad
        if !isNew { moveVersionsOfDaysRead(key, before: before, after: after) }
        // Most channels hold no window: they are not looked at further.
        guard isNew || !after.windows.isEmpty || !after.lost.isEmpty else { return }
        // A channel the user now has brings the windows it held (an expiry can come before
        // the user has the provider; only its later windows were dirtied, an attack run).
        let newHoles = isNew ? after.windows + after.lost : after.holes(notIn: before)
        guard isNew || !newHoles.isEmpty else { return }
        // Where the user's days end (`dayReader`).
        let offset = Int64(latestOffset(user: key.user)) * 1000
        daysDirtiedForReadings += dirtyCells(ofUser: key.user, metric: metric, emptyAs: provider) { day in
            let (dayStart, dayEnd) = Self.instants(of: day, offsetMillis: offset)
            // A provider the user did not have: rule 8 now wants its check-in too, so the days
            // ending after its last one (every day, without one) are no longer known. A recovery
            // window or lost stretch that was not there: the days it meets are not known (as
            // `reason` reads them).
            return (isNew && (after.lastCheckin.map { $0 < dayEnd } ?? true))
                || newHoles.contains { Self.windowMeets($0, dayStart: dayStart, dayEnd: dayEnd) }
        }
    }

    /// Moves the versions of the user's days of `key.metric` with a cell whose reading a channel
    /// the user had already moved from `before` to `after`: a check-in that now vouches for days
    /// (they become known, or wait on another provider alone), a window or lost stretch that no
    /// longer holds them. Only days between the two check-ins or met by what closed can move,
    /// and each is compared whole (rule 8 over every channel): a reading that did not change
    /// keeps its version.
    private mutating func moveVersionsOfDaysRead(_ key: SyncKey, before: KnownInputs, after: KnownInputs) {
        let offset = Int64(latestOffset(user: key.user)) * 1000
        func day(_ instant: Int64) -> Int32 {
            // Bounded to some 35,000 years from 1970, so that no edge overflows.
            CivilDay.of(localMillis: min(max(instant, -(1 << 50)), 1 << 50) + offset).daysSinceEpoch
        }
        if let last = after.lastCheckin, last > before.lastCheckin ?? .min {
            // The days that end after the last check-in before and by the new one: from that of
            // the one before to the day before that of the new one.
            let (first, next) = (day(before.lastCheckin ?? .min), day(last))
            if next > first { moveVersions(key, days: first...next - 1, before, after, offset) }
        }
        // The time that was in a window, or lost, and is no longer.
        for closed in before.holes(notIn: after) {
            // The days a closed part met (an empty one names its day), and one either side.
            moveVersions(key, days: day(closed.lowerBound) - 1...day(closed.upperBound) + 1, before, after, offset)
        }
    }

    /// `moveVersionsOfDaysRead` for the user's cells on `days` (where the user's days end at
    /// `offsetMillis`): looked up day by day when the days are few, else picked from the
    /// user's cells (a first check-in after years of samples).
    private mutating func moveVersions(
        _ key: SyncKey, days: ClosedRange<Int32>, _ before: KnownInputs, _ after: KnownInputs, _ offsetMillis: Int64
    ) {
        let (first, last) = (days.lowerBound, days.upperBound)
        if Int64(last) - Int64(first) < 64 {
            for number in first...last {
                let cell = CellKey(user: key.user, metric: key.metric, day: CivilDay(daysSinceEpoch: number))
                if cells.contains(cell) { moveVersionIfRead(cell, key, before, after, offsetMillis) }
            }
        } else {
            var found: [CellKey] = []
            cells.forEach(ofUser: key.user, metric: key.metric) { cell, _ in
                if (first...last).contains(cell.day.daysSinceEpoch) { found.append(cell) }
            }
            for cell in found { moveVersionIfRead(cell, key, before, after, offsetMillis) }
        }
    }

    /// Moves `cell`'s version when rule 8 reads it otherwise after `key`'s channel moved from
    /// `before` to `after`, the user's other channels of the metric as they are. (A method, not
    /// a closure of `moveVersions`: as one, each call copied the whole projections to read the
    /// other channels, 15% of opening an engine over the benchmark's tail.)
    private mutating func moveVersionIfRead(
        _ cell: CellKey, _ key: SyncKey, _ before: KnownInputs, _ after: KnownInputs, _ offsetMillis: Int64
    ) {
        let (dayStart, dayEnd) = Self.instants(of: cell.day, offsetMillis: offsetMillis)
        let (was, now) = (
            before.reason(dayStart: dayStart, dayEnd: dayEnd), after.reason(dayStart: dayStart, dayEnd: dayEnd)
        )
        guard was != now else { return }
        // The gravest reason of the user's other channels of the metric (most users have one),
        // read until it is at least as grave as both: then it is the day's either way.
        var theirs: RollupRow.Reason? = nil
        let settling = max(Self.gravity(was), Self.gravity(now))
        forEachChannel(user: key.user, metric: key.metric, asOf: nil, excluding: key.provider) { channel in
            theirs = Self.graver(
                theirs,
                Self.reason(
                    lastCheckin: channel.state.lastCheckinAt, windows: channel.windows, lost: channel.lost,
                    dayStart: dayStart, dayEnd: dayEnd))
            return Self.gravity(theirs) < settling
        }
        if Self.graver(theirs, was) != Self.graver(theirs, now) {
            daysDirtiedForReadings += moveVersion(of: cell, provider: key.provider)
        }
    }

    /// Moves `cell`'s version to the envelope's position, its figures unchanged: in place when
    /// the cell is clean (its rollup is of its inputs already), else by marking it dirty for
    /// `provider`, so that its recompute takes the position. (Recomputing a clean cell for its
    /// version alone would rebuild every day of a daily sync twice: once for its samples, once
    /// when the next day's check-in makes it known.)
    /// - Returns: 1 when the day was marked dirty now, else 0.
    private mutating func moveVersion(of cell: CellKey, provider: UInt32) -> Int {
        let position = position
        if !isDirty(cell) {
            // The reading before the move, for `changes` (`FeedReadings`).
            if feed.isKept, let version = rollups[cell]?.version, version < position {
                feed.noteMovedInPlace(cell, readingBefore(cell, movedAt: position))
            }
            if rollups.modify(cell, { $0.version = max($0.version, position) }) { return 0 }
        }
        let day = DirtyDays.Key(user: cell.user, provider: provider, metric: cell.metric, day: cell.day)
        return dirtyDay(day) ? 1 : 0
    }

    /// Whether `cell` is dirty for any provider. A day is dirty only for a provider the user has a
    /// channel of: that of a live sample (its delivery noted its metric), or of the event (which
    /// updated its channel) whose change dirtied it.
    func isDirty(_ cell: CellKey) -> Bool {
        func isDirty(for provider: UInt32) -> Bool {
            dirty.contains(DirtyDays.Key(user: cell.user, provider: provider, metric: cell.metric, day: cell.day))
        }
        let found = channelProviders[cell.user].contains(where: isDirty)
        assert(found == providers.strings.indices.contains { isDirty(for: UInt32($0)) }, "dirty for another provider")
        return found
    }

    /// Applies `change` to `state` in place, and gives what rule 8 reads of it before and
    /// after, and how many check-ins and listed ids it gained.
    private static func changing(
        _ state: inout SyncState, by change: (inout SyncState) -> Void
    ) -> (before: KnownInputs, after: KnownInputs, added: (checkins: Int, listed: Int)) {
        let before = KnownInputs(of: &state)
        let (checkins, listed) = (state.checkins.count, state.listedCount)
        change(&state)
        return (before, KnownInputs(of: &state), (state.checkins.count - checkins, state.listedCount - listed))
    }

    /// What rule 8 reads of a channel.
    struct KnownInputs: Equatable {
        var isHad = false
        var lastCheckin: Int64?
        /// Its recovery windows and lost stretches, each ascending and disjoint (none for most
        /// channels).
        var windows: [Range<Int64>] = []
        var lost: [Range<Int64>] = []

        init() {}

        /// - Parameter state: read in place (passed by value, the state was copied, retaining each
        ///   of its arrays, twice per envelope: 6% of opening an engine).
        init(of state: inout SyncState) {
            isHad = state.isHad(asOf: nil)
            lastCheckin = state.lastCheckinAt
            if !state.missed.isEmpty || !state.recoveredBeyondHorizon.isEmpty { (windows, lost) = state.recovery() }
        }

        /// Why the channel does not vouch for the day `[dayStart, dayEnd)` (`nil`: it does).
        func reason(dayStart: Int64, dayEnd: Int64) -> RollupRow.Reason? {
            Projections.reason(
                lastCheckin: lastCheckin, windows: windows, lost: lost, dayStart: dayStart, dayEnd: dayEnd)
        }

        /// The time in a window, or lost, that was not so in `before`: a window cut shorter (a
        /// check-in logged late, a reconcile of part of it) opens none (it moved the versions of
        /// the days it still met, their readings unchanged; an attack run).
        func holes(notIn before: KnownInputs) -> [Range<Int64>] {
            // Most channels have neither: no arrays built for them (a check-in's every fold). Most
            // envelopes leave them as they were: the same arrays, compared at once.
            guard !windows.isEmpty || !lost.isEmpty, windows != before.windows || lost != before.lost else { return [] }
            return SyncState.difference(windows, before.windows) + SyncState.difference(lost, before.lost)
        }
    }

    /// Notes the last sample of each metric an envelope's samples are of, but the backend's own
    /// writes read back (a provider that delivered only those is not the user's).
    mutating func noteSamples(_ samples: SampleBlock, provider: UInt32, _ fold: SyncFold) {
        noteSamples(of: metricsSampled(in: samples, fold), provider: provider, fold)
    }

    /// Notes a sample of each of `metrics` in the envelope being folded.
    private mutating func noteSamples(of metrics: MetricSet, provider: UInt32, _ fold: SyncFold) {
        // Metric by metric, after the samples are read: reading them between updates copied the
        // block, retaining its arrays.
        for metric in metrics {
            updateSync(provider, metric, fold) { $0.noteSample(received: fold.received) }
        }
    }

    /// The metrics of an envelope's samples, but those of the backend's own writes read back.
    private func metricsSampled(in samples: SampleBlock, _ fold: SyncFold) -> MetricSet {
        let user = ownOrigins.isEmpty ? "" : users[fold.user]
        var metrics = MetricSet()
        for number in samples.entries.indices where !isOwnWrite(number, of: samples, user: user) {
            metrics.insert(samples.metric(of: number))
        }
        return metrics
    }

    /// A HealthKit delivery's anchor, check-in and re-delivery counts; `effect` is what its
    /// samples did.
    mutating func foldSync(
        _ delivery: HealthKitDelivery, provider: UInt32, samples: SampleBlock, _ effect: Effect, _ fold: SyncFold
    ) {
        let received = fold.received
        let hasSamples = !samples.entries.isEmpty
        // The delivery's own metric has its samples noted in the same update: a second update of
        // the channel, as for another metric, cost each delivery a lookup and two readings of it.
        let metric = delivery.type.metric
        var sampledMetrics = metricsSampled(in: samples, fold)
        let sampled = sampledMetrics.contains(metric)
        sampledMetrics.remove(metric)
        // The closure captures the two anchors alone: capturing the delivery copied it, retaining
        // every field of the envelope's body.
        let (anchor, newAnchor) = (delivery.anchor, delivery.newAnchor)
        updateSync(provider, metric, fold) { state in
            if sampled { state.noteSample(received: fold.received) }
            let previous = state.cursor
            // The counters count deliveries as they come: one received no later than the newest
            // cursor is an old delivery folded again (an ingest repeated) or logged late.
            let isNewest = received > state.cursorReceivedAt ?? .min
            state.offer(cursor: newAnchor, from: anchor, expired: false, kind: .healthKitAnchor, receivedAt: received)
            state.checkIn(at: received, received: received)
            guard isNewest else { return }
            // A nil anchor where one was handed out before: the client lost it (a reinstall) and
            // reads everything again. A channel's first delivery is its first sync.
            if anchor == nil && previous != nil {
                state.fullRedeliveries += 1
                state.lastFullRedelivery = (effect.newSamples, effect.knownSamples)
                state.redeliveredSamples.new += effect.newSamples
                state.redeliveredSamples.known += effect.knownSamples
            }
            let allKnown = hasSamples && effect.newSamples == 0 && effect.replacedSamples == 0
            state.repeatedAllKnown = allKnown && anchor == previous ? state.repeatedAllKnown + 1 : 0
        }
        noteSamples(of: sampledMetrics, provider: provider, fold)
    }

    /// A Health Connect changes page's token, expiry or check-in, for each of its record types.
    mutating func foldSync(_ page: HealthConnectChanges, provider: UInt32, samples: SampleBlock, _ fold: SyncFold) {
        let received = fold.received
        // Captured as fields, not as the page (see the delivery's `foldSync`).
        let (token, expired, hasMore) = (page.nextChangesToken, page.changesTokenExpired, page.hasMore)
        let readFrom = page.token
        var metrics = MetricSet()
        for type in page.recordTypes { metrics.insert(type.metric) }
        for metric in metrics {
            updateSync(provider, metric, fold) { state in
                state.offer(
                    cursor: token, from: readFrom, expired: expired, kind: .healthConnectToken, receivedAt: received)
                if expired {
                    state.tokenExpired(at: received)
                } else if !hasMore {
                    state.checkIn(at: received, received: received)
                }
            }
        }
        noteSamples(samples, provider: provider, fold)
    }

    /// A reconcile's window with the id numbers it `listed` (ascending, once each), and its
    /// samples.
    mutating func foldSync(
        _ reconcile: Reconcile, listed: [UInt32], provider: UInt32, samples: SampleBlock, _ fold: SyncFold
    ) {
        let window = SyncState.ReconciledWindow(
            from: reconcile.from.millis, to: reconcile.to.millis, receivedAt: fold.received, listed: listed)
        mayHoldReconciledWindows = true
        updateSync(provider, reconcile.metric.metric, fold) { $0.reconciled(window) }
        noteSamples(samples, provider: provider, fold)
    }

    /// A `config.provider` setting, kept beside the ones received at other instants (at the
    /// instant of one held, the winner of the two stays): `stale --as-of` reads the one in force
    /// then.
    mutating func foldProviderSetting(
        user: String, provider: String, seconds: Int64, cohort: String?, _ fold: SyncFold
    ) {
        let setting = ProviderSetting(expectedCheckinSeconds: seconds, cohort: cohort, receivedAt: fold.received)
        providerConfigs[ProviderKey(user: user, provider: provider), default: []].insertSetting(setting)
    }

    /// The expected check-in interval and cohort of a user's provider as of `millis` (now when
    /// `nil`): the user's own `config.provider` received by then, else the `*` default received
    /// by then, else a day.
    package func providerSetting(user: String, provider: String, asOf millis: Int64? = nil)
        -> (seconds: Int64, cohort: String?)
    {
        func inForce(_ user: String) -> ProviderSetting? {
            guard let settings = providerConfigs[ProviderKey(user: user, provider: provider)] else { return nil }
            guard let millis else { return settings.last }
            let place = settings.partitioningIndex { $0.receivedAt > millis }
            return place > 0 ? settings[place - 1] : nil
        }
        let setting = inForce(user) ?? inForce("*")
        return (setting?.expectedCheckinSeconds ?? Self.defaultCheckinSeconds, setting?.cohort)
    }
}

extension Projections {
    /// The sync channels ordered by user, provider and metric names.
    func sortedSyncStates() -> [(key: SyncKey, value: SyncState)] {
        syncStates.sorted { a, b in
            (users[a.key.user], providers[a.key.provider], a.key.metric.rawValue)
                < (users[b.key.user], providers[b.key.provider], b.key.metric.rawValue)
        }
    }

    /// Writes the sync channels of the users in `kept` (all when `nil`) by name; returns how
    /// many. The delivery counters (full re-deliveries, repeats) are written only when
    /// `counters` (the checkpoint's form): they count envelopes, so the digest, which folding an
    /// envelope twice must not change, leaves them out. The checkpoint keeps each recovered
    /// stretch with its horizon and every expiry's instant, the digest the time lost of them.
    /// Both write what an answer as of a past instant reads (each check-in's receipt, since
    /// when the user has the channel), so `verify` covers `stale --as-of` too. The checkpoint
    /// keeps the ids each reconcile listed, numbered as `selection` numbers them; the digest
    /// leaves them out: they decide only how a write folded later is judged.
    func writeSyncStateEntries(
        of kept: Set<String>?, counters: Bool, keeping selection: CheckpointSelection? = nil,
        _ out: inout CanonicalBytes
    ) -> Int {
        let states = sortedSyncStates().filter { kept?.contains(users[$0.key.user]) ?? true }
        for (key, state) in states {
            out.append(users[key.user])
            out.append(providers[key.provider])
            out.append(key.metric.rawValue)
            out.append(state.cursor) { $0.append($1) }
            out.append(state.cursorKind) { $0.append($1.rawValue) }
            out.append(state.cursorReceivedAt) { $0.append($1) }
            out.append(UInt64(state.checkins.count))
            for checkin in state.checkins { out.append(checkin) }
            out.append(state.lastSampleAt) { $0.append($1) }
            out.append(state.missed)
            out.append(state.horizon)
            out.append(state.healthReceivedAt) { $0.append($1) }
            // The checkpoint keeps the recovered stretches; the digest what is lost of them.
            if counters {
                out.append(UInt64(state.recoveredBeyondHorizon.count))
                for recovered in state.recoveredBeyondHorizon {
                    out.append(recovered.stretch.lowerBound)
                    out.append(recovered.stretch.upperBound)
                    out.append(recovered.horizon)
                }
                out.append(UInt64(state.expiries.count))
                for expiry in state.expiries { out.append(expiry) }
            } else {
                out.append(state.lostRecovered)
            }
            // When each check-in was received (one per check-in): what `stale --as-of` reads.
            for receipt in state.checkinReceipts { out.append(receipt) }
            out.append(UInt64(state.reconciledWindows.count))
            for window in state.reconciledWindows {
                out.append(window.from)
                out.append(window.to)
                out.append(window.receivedAt)
                guard counters else { continue }
                out.append(UInt64(window.listed.count))
                for number in window.listed { out.append(selection?.renumbered(id: number) ?? number) }
            }
            if counters {
                out.append(UInt64(state.fullRedeliveries))
                out.append(state.lastFullRedelivery) { out, last in
                    out.append(UInt64(last.new))
                    out.append(UInt64(last.known))
                }
                out.append(UInt64(state.repeatedAllKnown))
                out.append(UInt64(state.redeliveredSamples.new))
                out.append(UInt64(state.redeliveredSamples.known))
            }
            // Since when the user has the channel, and the instants that opened it: what rule 8
            // and `stale --as-of` read. The earliest of each, so folding an envelope twice keeps them.
            out.append(state.hadSince) { $0.append($1) }
            out.append(state.firstExpiredAt) { $0.append($1) }
            out.append(state.firstCursorAt) { $0.append($1) }
            // What orders two cursors received at one instant, as the cursor it decided.
            out.append(state.cursorFrom) { $0.append($1) }
            out.append(state.cursorFromExpiredPage ? UInt8(1) : 0)
        }
        return states.count
    }

    /// Writes the `config.provider` settings of the users in `kept` (all when `nil`) by user
    /// and provider, each key's setting in force now, or with `history` (the checkpoint) every
    /// setting it keeps, counted; returns how many keys.
    func writeProviderSettingEntries(of kept: Set<String>?, history: Bool, _ out: inout CanonicalBytes) -> Int {
        let settings = providerConfigs.filter { kept?.contains($0.key.user) ?? true }.sorted {
            ($0.key.user, $0.key.provider) < ($1.key.user, $1.key.provider)
        }
        func write(_ setting: ProviderSetting) {
            out.append(setting.expectedCheckinSeconds)
            out.append(setting.cohort) { $0.append($1) }
            out.append(setting.receivedAt)
        }
        for (key, held) in settings {
            out.append(key.user)
            out.append(key.provider)
            guard history else {
                write(held[held.count - 1])
                continue
            }
            out.append(UInt64(held.count))
            held.forEach(write)
        }
        return settings.count
    }

    /// Reads what the checkpoint's sync channels (with their counters) and provider settings
    /// hold.
    mutating func readSync(_ input: inout CheckpointReader) throws(CheckpointReader.Malformed) {
        typealias Malformed = CheckpointReader.Malformed
        func int64(_ r: inout CheckpointReader) throws(Malformed) -> Int64 { try r.integer() }
        let ids = index.records.count
        for _ in 0..<(try input.integer(UInt64.self)) {
            let user = users.intern(try input.string())
            let provider = providers.intern(try input.string())
            guard let metric = Metric(rawValue: try input.integer()) else { throw Malformed() }
            var state = SyncState()
            state.cursor = try input.optional { r throws(Malformed) in try r.string() }
            state.cursorKind = try input.optional { r throws(Malformed) in
                guard let kind = SyncState.CursorKind(rawValue: try r.integer()) else { throw Malformed() }
                return kind
            }
            state.cursorReceivedAt = try input.optional(int64)
            var previous = Int64.min
            for _ in 0..<(try input.integer(UInt64.self)) {
                let checkin: Int64 = try input.integer()
                guard checkin > previous || previous == .min else { throw Malformed() }
                state.checkIn(at: checkin, received: checkin)
                previous = checkin
            }
            state.lastSampleAt = try input.optional(int64)
            state.missed = try input.ranges()
            state.horizon = try input.integer()
            state.healthReceivedAt = try input.optional(int64)
            for _ in 0..<(try input.integer(UInt64.self)) {
                let (from, to, horizon): (Int64, Int64, Int64) = (
                    try input.integer(), try input.integer(), try input.integer()
                )
                guard from < to else { throw Malformed() }
                state.noteRecovered(SyncState.RecoveredStretch(stretch: from..<to, horizon: horizon))
            }
            for _ in 0..<(try input.integer(UInt64.self)) { state.noteExpiry(at: try input.integer()) }
            var receipts: [Int64] = []
            for _ in state.checkins { receipts.append(try input.integer()) }
            guard state.restoreCheckinReceipts(receipts) else { throw Malformed() }
            for _ in 0..<(try input.integer(UInt64.self)) {
                var window = SyncState.ReconciledWindow(
                    from: try input.integer(), to: try input.integer(), receivedAt: try input.integer())
                for _ in 0..<(try input.integer(UInt64.self)) {
                    let number: UInt32 = try input.integer()
                    guard number < ids, window.listed.last.map({ $0 < number }) ?? true else { throw Malformed() }
                    window.listed.append(number)
                }
                guard state.noteReconciledWindow(window) else { throw Malformed() }
                mayHoldReconciledWindows = true
            }
            state.fullRedeliveries = try input.int()
            state.lastFullRedelivery = try input.optional { r throws(Malformed) in
                (try r.int(), try r.int())
            }
            state.repeatedAllKnown = try input.int()
            state.redeliveredSamples = (try input.int(), try input.int())
            state.hadSince = try input.optional(int64)
            state.firstExpiredAt = try input.optional(int64)
            state.firstCursorAt = try input.optional(int64)
            state.cursorFrom = try input.optional { r throws(Malformed) in try r.string() }
            let expired: UInt8 = try input.integer()
            guard expired <= 1 else { throw Malformed() }
            state.cursorFromExpiredPage = expired == 1
            syncStates[SyncKey(user: user, provider: provider, metric: metric)] = state
            channelProviders.note(user: user, provider: provider)
            checkinCount += state.checkins.count
            listedCount += state.listedCount
        }
        for _ in 0..<(try input.integer(UInt64.self)) {
            let key = ProviderKey(user: try input.string(), provider: try input.string())
            var settings: [ProviderSetting] = []
            for _ in 0..<(try input.integer(UInt64.self)) {
                let setting = ProviderSetting(
                    expectedCheckinSeconds: try input.integer(),
                    cohort: try input.optional { r throws(Malformed) in try r.string() },
                    receivedAt: try input.integer())
                // Ascending, one per instant, as the fold keeps them.
                guard settings.last.map({ $0.receivedAt < setting.receivedAt }) ?? true else { throw Malformed() }
                settings.append(setting)
            }
            guard !settings.isEmpty, providerConfigs[key] == nil else { throw Malformed() }
            providerConfigs[key] = settings
        }
    }
}

extension [Projections.ProviderSetting] {
    /// Adds `setting` in `receivedAt` order; at an instant that holds one already, the winner
    /// of the two stays.
    mutating func insertSetting(_ setting: Projections.ProviderSetting) {
        let place = partitioningIndex { $0.receivedAt >= setting.receivedAt }
        if place < count, self[place].receivedAt == setting.receivedAt {
            if setting.wins(over: self[place]) { self[place] = setting }
        } else {
            insert(setting, at: place)
        }
    }
}
