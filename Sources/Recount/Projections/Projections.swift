/// The projections as a pure fold of the log (contract §3): the id index, the dirty-day set,
/// the config that rollups use, and the rollups.
///
/// `apply` takes one logged envelope at its position and returns what it changed; `recompute`
/// rebuilds the dirty cells from the live samples. Neither reads the clock, randomness or
/// hash-table order (iteration goes through sorted keys), so a replay of the same log gives
/// the same projections, and so the same digest, whatever the batching.
package struct Projections {
    /// One (user, metric, day) rollup cell.
    package struct CellKey: Hashable, Comparable, Sendable {
        package var user: UInt32
        package var metric: Metric
        package var day: CivilDay

        package static func < (a: CellKey, b: CellKey) -> Bool {
            (a.user, a.metric.rawValue, a.day.daysSinceEpoch) < (b.user, b.metric.rawValue, b.day.daysSinceEpoch)
        }
    }

    /// What one envelope changed.
    package struct Effect: Equatable, Sendable {
        /// Samples whose id was not live before.
        package var newSamples = 0
        /// Samples already known: an identical re-delivery, an older write, an own write read
        /// back, or a deleted id.
        package var knownSamples = 0
        /// Samples replaced by a newer version of the same id (or sync identifier).
        package var replacedSamples = 0
        /// Live samples deleted.
        package var deletedSamples = 0
        /// Days that became dirty.
        package var daysDirtied = 0

        /// No change.
        package init() {}

        /// Adds another effect's counts.
        package static func += (a: inout Effect, b: Effect) {
            a.newSamples += b.newSamples
            a.knownSamples += b.knownSamples
            a.replacedSamples += b.replacedSamples
            a.deletedSamples += b.deletedSamples
            a.daysDirtied += b.daysDirtied
        }
    }

    package internal(set) var users = Interner()
    package internal(set) var providers = Interner()
    /// (origin, device) pairs the live samples came from, by `SourceID`.
    package internal(set) var sources: [Source] = []
    var sourceIDs: [Source: SourceID] = [:]
    /// The two sources `sourceID` returned last, the latest first (a cache, no part of the
    /// state): a user's envelopes mostly alternate between a phone and a watch. Two fields,
    /// not an array, so that a miss allocates nothing.
    private var lastSources: (latest: KnownSource?, previous: KnownSource?) = (nil, nil)
    private typealias KnownSource = (source: Source, id: SourceID)
    /// The spans `markDirty` read last (a cache, no part of the state).
    private var neighbourSpans: NeighbourSpans?
    /// The room of the last envelope's `SampleUpserts.interned`, lent to the next one (no part
    /// of the state): allocating it for each envelope cost about 500 instructions.
    private var internedRoom: [UInt32] = []
    /// The days the envelope being folded dirtied because what rule 8 reads of them changed (its
    /// sync facts, `updateSync`, or the user's latest offset, `dirtyDaysMovedByOffset`), added to
    /// its effect (no part of the state).
    var daysDirtiedForReadings = 0
    /// Each moved cell's reading before its move, for `changes` (a cache, no part of the state).
    var feed = FeedReadings()
    /// Each user's latest live sample, where the user's days end (derived from the id index: no
    /// part of the checkpoint or the digest).
    var latestSamples = LatestSamples()
    package internal(set) var index = IdIndex()
    package internal(set) var dirty = DirtyDays()
    /// The live samples of each cell.
    package internal(set) var cells = CellMembers()
    /// `config.sources`: per (user or `*`, metric), origins highest first.
    package internal(set) var priorities: [PriorityKey: Configured] = [:]
    /// `config.ownOrigins`: per user or `*`, origins whose samples are ignored (sorted).
    package internal(set) var ownOrigins: [String: Configured] = [:]

    /// A config setting and the `receivedAt` of the envelope that set it.
    package struct Configured: Equatable, Sendable {
        package var origins: [String]
        package var receivedAt: Int64

        /// Whether `origin` is one of `origins`: a binary search, as they are sorted (a linear
        /// one cost each sample a pass over the list: a 50,000-origin list made an ingest of
        /// 20,000 samples take 6.6 s instead of 0.3; an attack run).
        func contains(_ origin: String) -> Bool { origins.sortedContains(origin) }

        /// Whether `other` replaces this setting: it is newer, or as new and greater (so that
        /// folding the same config envelopes in any order, or twice, ends at the same setting).
        func isReplaced(by other: Configured) -> Bool {
            other.receivedAt > receivedAt
                || (other.receivedAt == receivedAt && other.origins.lexicographicallyPrecedes(origins) == false
                    && other.origins != origins)
        }
    }
    /// What is known of each (user, provider, metric) sync channel.
    package internal(set) var syncStates = FlatMap<SyncKey, SyncState>()
    /// The providers of each user's sync channels (derived from `syncStates`: no part of the
    /// checkpoint or the digest).
    var channelProviders = ChannelProviders()
    /// The check-ins the sync channels keep, all told: each is kept, so that a question about
    /// a past instant has its answer, and they weigh on a range of users (`rangeSize`).
    package internal(set) var checkinCount = 0
    /// The ids the sync channels' reconciles listed, all told (once per listing): they weigh
    /// on a range of users too.
    package internal(set) var listedCount = 0
    /// Whether a sync channel may hold reconciled windows: until one does, upserts do not look
    /// them up (a lookup per envelope cost 0.8% of an ingest's instructions).
    var mayHoldReconciledWindows = false
    /// `config.provider` settings: each user's (or `*`'s) settings of a provider by `receivedAt`,
    /// ascending, one per instant (the one that wins there); the last is in force now, and
    /// `stale --as-of T` reads the one in force at T.
    package internal(set) var providerConfigs: [ProviderKey: [ProviderSetting]] = [:]
    /// The rollups by cell.
    package internal(set) var rollups = FlatMap<CellKey, StoredRollup>()
    /// The first and last day with a rollup of each user's metric (rollups are never removed,
    /// so a span only widens): the days a query without a range answers for.
    package internal(set) var rollupSpans = FlatMap<UserMetric, ClosedRange<CivilDay>>()
    /// The last position applied, or folded past (`advance(through:)`).
    package internal(set) var position: UInt64 = 0
    let zones = ZoneOffsets()

    /// A user's metric, across its days.
    package struct UserMetric: Hashable, Sendable, FlatKey {
        package var user: UInt32
        package var metric: Metric

        package var flatHash: UInt64 { FlatHash.mix(UInt64(user), UInt64(metric.rawValue)) }
    }

    package struct PriorityKey: Hashable, Sendable {
        package var user: String
        package var metric: Metric
    }

    package init() {}

    /// Records that every record up to `position` that bears on these projections is folded
    /// in (an engine's range of users passes over other users' records without folding them).
    package mutating func advance(through position: UInt64) {
        self.position = max(self.position, position)
    }

    /// Folds one logged envelope in.
    ///
    /// - Parameters:
    ///   - envelope: the envelope as the log holds it.
    ///   - position: its log position (positions only grow).
    package mutating func apply(_ envelope: Envelope, at position: UInt64) -> Effect {
        apply(envelope, samples: nil, at: position)
    }

    /// Folds one logged envelope in, its samples given as the record's block.
    ///
    /// - Parameters:
    ///   - envelope: the envelope as the log holds it; its own samples are read only when
    ///     `samples` is `nil`.
    ///   - samples: the envelope's samples as `EnvelopeCodec.decodeBlock` reads them.
    ///   - position: its log position (positions only grow).
    package mutating func apply(_ envelope: Envelope, samples block: SampleBlock?, at position: UInt64) -> Effect {
        // Bound, not merged with `??`: a merged block was a copy, retaining its arrays.
        if let block { return fold(envelope, samples: block, at: position) }
        return fold(envelope, samples: SampleBlock(envelope.samples), at: position)
    }

    /// `apply` with the envelope's samples in hand.
    private mutating func fold(_ envelope: Envelope, samples: SampleBlock, at position: UInt64) -> Effect {
        precondition(position > self.position, "the log is folded in order")
        self.position = position
        var effect = Effect()
        let received = envelope.receivedAt.millis
        // Every envelope's user is interned, config ones too (`*` included): interning order is
        // part of the checkpoint.
        let user = users.intern(envelope.user)
        let sync = SyncFold(user: user, received: received)
        daysDirtiedForReadings = 0
        // Where the user's days end before the envelope's samples: after them, a move dirties
        // the days it takes from known (or back), before the envelope's sync facts are read.
        let offset = latestOffset(user: user)
        feed.begin(user: user, offset: offset)
        // One switch binds each payload once (a second switch copied it, retaining every field);
        // each case folds its samples, then what it tells of its sync channels.
        switch envelope.body {
        case .healthKitDelivery(let delivery):
            let provider = providers.intern("healthkit")
            upsert(samples, user: user, provider: provider, envelopeUser: envelope.user, received: received, &effect)
            for deletion in delivery.deleted {
                delete(SampleID(deletion.uuid), user: user, provider: provider, &effect)
            }
            dirtyDaysMovedByOffset(user: user, provider: provider, from: offset)
            foldSync(delivery, provider: provider, samples: samples, effect, sync)
        case .healthConnectChanges(let page):
            let provider = providers.intern("health_connect")
            var upserts = SampleUpserts(
                samples, user: user, provider: provider, received: received, room: &internedRoom)
            page.forEachChange { index, deletedId in
                if let index {
                    upsert(index, of: samples, &upserts, envelopeUser: envelope.user, &effect)
                } else if let deletedId {
                    delete(SampleID(deletedId), user: user, provider: provider, &effect)
                }
            }
            swap(&upserts.interned, &internedRoom)
            dirtyDaysMovedByOffset(user: user, provider: provider, from: offset)
            foldSync(page, provider: provider, samples: samples, sync)
        case .samplesUpsert(let providerName, _):
            let provider = providers.intern(providerName)
            upsert(samples, user: user, provider: provider, envelopeUser: envelope.user, received: received, &effect)
            dirtyDaysMovedByOffset(user: user, provider: provider, from: offset)
            noteSamples(samples, provider: provider, sync)
        case .samplesDelete(let providerName, let ids):
            let provider = providers.intern(providerName)
            for id in ids { delete(SampleID(id), user: user, provider: provider, &effect) }
            dirtyDaysMovedByOffset(user: user, provider: provider, from: offset)
        case .reconcile(let reconcile):
            let provider = providers.intern(reconcile.provider)
            let listed = applyReconcile(
                reconcile, provider: provider, samples: samples, user: user, envelopeUser: envelope.user,
                received: received, &effect)
            dirtyDaysMovedByOffset(user: user, provider: provider, from: offset)
            foldSync(reconcile, listed: listed, provider: provider, samples: samples, sync)
        case .configSources(let metric, let priority):
            let key = PriorityKey(user: envelope.user, metric: metric.metric)
            let setting = Configured(origins: priority, receivedAt: received)
            if priorities[key]?.isReplaced(by: setting) ?? true {
                // Only the cells whose ranking changes are dirtied (their version moves): a `*`
                // default leaves alone the users with a list of their own, and the ranking
                // decides only the overlap merge (sums and sleep).
                let before = configuredPriority(user: envelope.user, metric: metric.metric)
                priorities[key] = setting
                if metric.metric.mergesOverlaps,
                    before != configuredPriority(user: envelope.user, metric: metric.metric)
                {
                    effect.daysDirtied += dirtyAllCells(user: envelope.user, metric: metric.metric)
                }
            }
        case .configOwnOrigins(let origins):
            let setting = Configured(origins: Array(Set(origins)).sorted(), receivedAt: received)
            if ownOrigins[envelope.user]?.isReplaced(by: setting) ?? true { ownOrigins[envelope.user] = setting }
        case .checkin(let provider, let metrics, let at):
            // A device cannot have synced after the envelope was received: a clock running
            // ahead must not make days that have not ended known.
            let checkedIn = min(at.millis, received)
            for metric in metrics {
                updateSync(providers.intern(provider), metric.metric, sync) {
                    $0.checkIn(at: checkedIn, received: received)
                }
            }
        case .configProvider(let provider, let seconds, let cohort):
            foldProviderSetting(user: envelope.user, provider: provider, seconds: seconds, cohort: cohort, sync)
        }
        effect.daysDirtied += daysDirtiedForReadings
        return effect
    }

    /// The source id of (origin, device), interned now when new.
    private mutating func sourceID(origin: String, device: String?) -> SourceID {
        let source = Source(origin: origin, device: device)
        // The samples of an envelope mostly share their source: comparing two strings is
        // cheaper than hashing them.
        if let latest = lastSources.latest, latest.source == source { return latest.id }
        if let previous = lastSources.previous, previous.source == source { return previous.id }
        let id: SourceID
        if let known = sourceIDs[source] {
            id = known
        } else {
            id = SourceID(UInt32(sources.count))
            sources.append(source)
            sourceIDs[source] = id
        }
        lastSources = ((source, id), lastSources.latest)
        return id
    }

    /// Whether entry `number` of `samples` is the user's backend's own write read back, which
    /// the projections ignore: the id index, and the sync state (it gives no provider).
    func isOwnWrite(_ number: Int, of samples: SampleBlock, user: String) -> Bool {
        guard !ownOrigins.isEmpty else { return false }
        let origin = samples.strings[Int(samples.entries[number].origin)]
        return (ownOrigins[user] ?? ownOrigins["*"])?.contains(origin) ?? false
    }

    /// The envelope whose samples are being upserted, and what its block's table strings were
    /// interned as (filled as entries use them, so that a table string is interned once per
    /// envelope rather than once per sample).
    struct SampleUpserts {
        let user: UInt32
        let provider: UInt32
        let received: Int64
        /// By table number, the block's strings then its units: the interned string + 1 (0: not
        /// interned yet). Its room is lent from one envelope's upserts to the next's.
        var interned: [UInt32]
        /// Where the units start in `interned`.
        let unitsStart: Int
        /// The (origin, device) table numbers the last source id was found for.
        var lastSource: (origin: Int32, device: Int32, id: SourceID)?
        /// The user's channel of `reconciledMetric`, whose reconciles may supersede a write
        /// (`SyncState.supersedingReconcile`), looked up once per metric the envelope's
        /// samples are of.
        var reconciledMetric: Metric?
        var reconciling: SyncState?

        /// - Parameter room: an array whose room `interned` takes (left empty).
        init(_ samples: SampleBlock, user: UInt32, provider: UInt32, received: Int64, room: inout [UInt32]) {
            (self.user, self.provider, self.received) = (user, provider, received)
            interned = []
            swap(&interned, &room)
            interned.removeAll(keepingCapacity: true)
            interned.append(contentsOf: repeatElement(0, count: samples.strings.count + samples.units.count))
            unitsStart = samples.strings.count
        }
    }

    /// Upserts each of `samples`, in order.
    private mutating func upsert(
        _ samples: SampleBlock, user: UInt32, provider: UInt32, envelopeUser: String, received: Int64,
        _ effect: inout Effect
    ) {
        var upserts = SampleUpserts(samples, user: user, provider: provider, received: received, room: &internedRoom)
        samples.entries.withUnsafeBufferPointer { index.prefetch($0, user: user, provider: provider) }
        for number in samples.entries.indices {
            upsert(number, of: samples, &upserts, envelopeUser: envelopeUser, &effect)
        }
        swap(&upserts.interned, &internedRoom)
    }

    /// The id-index record of entry `number` of `samples`, its strings interned.
    private mutating func record(_ number: Int, of samples: SampleBlock, _ upserts: inout SampleUpserts)
        -> IdIndex.Record
    {
        func interned(_ table: Int32, at start: Int, _ string: (Int) -> String) -> UInt32 {
            guard table >= 0 else { return 0 }
            let slot = start + Int(table)
            if upserts.interned[slot] == 0 { upserts.interned[slot] = index.intern(string(Int(table))) }
            return upserts.interned[slot]
        }
        let zone = interned(samples.entries[number].zone, at: 0) { samples.strings[$0] }
        let unitSymbol = interned(samples.entries[number].unit, at: upserts.unitsStart) { samples.units[$0].symbol }
        let (origin, device) = (samples.entries[number].origin, samples.entries[number].device)
        let source: SourceID
        if let last = upserts.lastSource, last.origin == origin, last.device == device {
            source = last.id
        } else {
            source = sourceID(origin: samples.strings[Int(origin)], device: samples.string(device))
            upserts.lastSource = (origin, device, source)
        }
        return index.record(
            number, of: samples, zone: zone, unitSymbol: unitSymbol, source: source, position: position,
            receivedAt: upserts.received)
    }

    /// Upserts entry `entryNumber` of `samples`.
    private mutating func upsert(
        _ entryNumber: Int, of samples: SampleBlock, _ upserts: inout SampleUpserts, envelopeUser: String,
        _ effect: inout Effect
    ) {
        let (user, provider, received) = (upserts.user, upserts.provider, upserts.received)
        if isOwnWrite(entryNumber, of: samples, user: envelopeUser) {
            effect.knownSamples += 1
            return
        }
        // A write older than a reconcile of its window that was folded before it: the reconcile
        // answered for the window as of its receipt, so the write stays out, as the reconcile
        // would have deleted it had it come first (and does when the log is folded again).
        // A reconcile that lists the id deletes none of its versions: the write is judged
        // against what it listed by newness alone.
        let metric = samples.metric(of: entryNumber)
        if mayHoldReconciledWindows, upserts.reconciledMetric != metric {
            upserts.reconciling = syncStates[SyncKey(user: user, provider: provider, metric: metric)]
            upserts.reconciledMetric = metric
        }
        let number = index.insert(IdIndex.Key(user: user, provider: provider, id: samples.id(of: entryNumber)))
        if let reconciledAt = upserts.reconciling?.supersedingReconcile(
            writtenAt: received, startingAt: samples.entries[entryNumber].start.millis, id: UInt32(number))
        {
            supersede(entryNumber, number, of: samples, &upserts, reconciledAt: reconciledAt, &effect)
            return
        }
        let old = index.record(number)
        // A deleted id stays deleted, unless a reconcile deleted it and the write brings it
        // back (`comesBack`).
        if old.state == .deleted {
            guard let tombstone = old.reconciled,
                comesBack(entryNumber, number, of: samples, &upserts, over: tombstone)
            else {
                effect.knownSamples += 1
                return
            }
        }
        let record = record(entryNumber, of: samples, &upserts)
        if old.state == .live {
            // An older write of a live id, or a re-delivery, is absorbed before its sync identity
            // is looked at: an old write carrying an identifier the id has since dropped took
            // the identifier back from its new holder when ingested again (contract §3 rule 1).
            if holds(old, against: record, number, received: received) {
                // Only a delivery of the held content makes it newer: an older write raising it
                // made the held sample as new as that write, and a newer one then lost to it
                // in one order of the log and not in another (contract §3 rule 7).
                if received > old.receivedAt, record.hasSameContent(as: old) {
                    var kept = old
                    kept.receivedAt = received
                    index.set(number, kept)
                }
                effect.knownSamples += 1
                return
            }
        }
        // HealthKit sync identity: a higher version replaces the sample holding the identifier.
        if record.syncIdentifier != 0,
            let holder = index.holder(
                ofSyncIdentifier: record.syncIdentifier, user: user, provider: provider, metric: record.metric),
            holder != number
        {
            let held = index.record(holder)
            guard (record.syncVersion ?? 0) > (held.syncVersion ?? 0) else {
                // A sample whose newest write loses to the holder is gone for good, as a holder
                // that loses is. Ignored, it came back to life when the same envelopes came
                // again after the holder was deleted or dropped the identifier (contract §3
                // rule 7); a live id's losing write kept its older version, which the write
                // replaced the second time.
                if old.state == .live {
                    removeLive(number, old, &effect)
                    effect.deletedSamples += 1
                } else {
                    effect.knownSamples += 1
                }
                index.delete(number)
                return
            }
            removeLive(holder, held, &effect)
            index.delete(holder)
            // The written id may be live under another identity: its old version goes too.
            if old.state == .live { removeLive(number, old, &effect) }
            effect.replacedSamples += 1
            insertLive(number, record, &effect)
            return
        }
        guard old.state == .live else {
            effect.newSamples += 1
            insertLive(number, record, &effect)
            return
        }
        removeLive(number, old, &effect)
        effect.replacedSamples += 1
        insertLive(number, record, &effect)
    }

    /// Whether a write of entry `entryNumber` brings back id `number`, which a reconcile's
    /// `tombstone` holds. Received at or after the reconcile (which deletes only writes received
    /// before it), it does when at least as new as the version the reconcile deleted: an older
    /// one came back when the log was ingested again, and the deleted version delivered again (a
    /// later reconcile listing it) stayed out in receipt order and came in when logged before the
    /// reconcile. Received before the reconcile, without a sync identity, it does when it
    /// replaced that version in receipt order (newer, or as new and received after it, or at the
    /// same instant with content that orders after it, as `holds` orders them), for no reconcile
    /// answered for its start (`supersedingReconcile`), so the reconcile left it (it stayed out,
    /// and a sleep session a newer write had moved out of the window was lost in that log order;
    /// a random workload shuffled). With a sync identity, whether it replaced that version
    /// depends on the version's own, which a tombstone does not keep (Sync identity, in the docs).
    private mutating func comesBack(
        _ entryNumber: Int, _ number: Int, of samples: SampleBlock, _ upserts: inout SampleUpserts,
        over tombstone: IdIndex.Record.Reconciled
    ) -> Bool {
        let received = upserts.received
        let version = samples.entries[entryNumber].lastModified?.millis ?? received
        guard version >= tombstone.deletedVersion else { return false }
        if received >= tombstone.at { return true }
        guard samples.entries[entryNumber].syncIdentifier < 0 else { return false }
        if version != tombstone.deletedVersion { return true }
        if received != tombstone.deletedReceivedAt { return received > tombstone.deletedReceivedAt }
        return contentKey(number, record(entryNumber, of: samples, &upserts)) > tombstone.deletedContent
    }

    /// A write of id `number` that a reconcile received after it, of a window holding its
    /// start and not listing the id, answered for (`reconciledAt`, folded before it): it stays
    /// out, and the id is left as the reconcile would have left it had the write come first, a
    /// tombstone of the write's version. Newer than the id's live sample, it replaced that
    /// sample before the reconcile deleted it, so the sample goes too; an id not seen yet keeps
    /// the tombstone, so an older write logged later stays out. (Until 2026-12-06 the write was
    /// only dropped, and the older version outlived the write that had moved it into the
    /// window: a sleep session read 6,000 s or none by log order, a random workload shuffled.)
    private mutating func supersede(
        _ entryNumber: Int, _ number: Int, of samples: SampleBlock, _ upserts: inout SampleUpserts,
        reconciledAt: Int64, _ effect: inout Effect
    ) {
        effect.knownSamples += 1
        let old = index.record(number)
        let record = record(entryNumber, of: samples, &upserts)
        // A reconcile's tombstone of a version no newer than the write: in receipt order the
        // write replaced that version (or came back after it was deleted) before the reconcile
        // that answered for it deleted the write, so that reconcile's tombstone replaces it.
        let version = record.lastModified ?? upserts.received
        guard old.state != .deleted || old.reconciled.map({ version >= $0.deletedVersion }) == true else { return }
        if old.state == .live {
            // Received before the reconcile, the live sample stays when it is newer than the
            // write. Received at or after it, the sample came after both in receipt order, and
            // stays when it would have brought back the tombstone the reconcile left: when it
            // is at least as new as the write (a later write older than it stayed live, an
            // attack run, 2026-12-07).
            let stays =
                old.receivedAt < reconciledAt
                ? holds(old, against: record, number, received: upserts.received)
                : (old.lastModified ?? old.receivedAt) >= version
            guard !stays else { return }
            removeLive(number, old, &effect)
            effect.deletedSamples += 1
        }
        index.delete(
            number,
            reconciled: .init(
                at: reconciledAt, deleting: record, received: upserts.received, content: contentKey(number, record)))
    }

    /// Whether the live record `old` of id `number` stays against a write of `record` received
    /// at `received`: the write is the same content again, older, or as new and received
    /// earlier, or at the same instant with content that does not order after the held one (so
    /// equally new writes end at the same sample in any order, or twice). The content's bytes
    /// are built only to order two different writes as new as each other received at one
    /// instant. (Ordered by content alone until 2026-12-07: a write as new as the held one
    /// and received after it lost to it, and then to nothing once a reconcile received between
    /// them deleted the held one, where in receipt order it came back after the reconcile; an
    /// attack run.)
    ///
    /// A write's time is its `lastModified`, else its `receivedAt` (the held sample's newest):
    /// between two writes that both carry `lastModified`, or neither, that is the contract's
    /// rule. Between one that does and one that does not, the contract compares `receivedAt`,
    /// which is not transitive (three writes can each be newer than the next), and ingesting
    /// the same envelopes twice then changed the sample (300 steps, then 100; an attack run).
    ///
    /// A sync identity both carry decides first: the held one stays against a lower version and
    /// yields to a higher one, however old its receipt (the held lower version, received later,
    /// would have been ignored in receipt order: a log-order permutation of an attack run's
    /// workload, 2026-12-06, a steps day 963 or 2,990 by log order). Under another metric the
    /// same identifier is another identity, and newness decides (a rewrite of the id).
    private func holds(_ old: IdIndex.Record, against record: IdIndex.Record, _ number: Int, received: Int64) -> Bool {
        if record.syncIdentifier != 0, record.syncIdentifier == old.syncIdentifier, record.metric == old.metric {
            let (offered, held) = (record.syncVersion ?? 0, old.syncVersion ?? 0)
            if offered != held { return offered < held }
        }
        let (new, was) = (record.lastModified ?? received, old.lastModified ?? old.receivedAt)
        if new < was || record.hasSameContent(as: old) { return true }
        guard new == was else { return false }
        // As new: the one received later, as in receipt order ("at least as new" replaces);
        // at one instant, the content whose key orders after (its bytes, should two keys meet).
        guard received == old.receivedAt else { return received < old.receivedAt }
        let (held, offered) = (contentKey(number, old), contentKey(number, record))
        guard held == offered else { return held > offered }
        return !contentBytes(number, old).lexicographicallyPrecedes(contentBytes(number, record))
    }

    /// The XXH3-64 of a record's content bytes: what orders two writes as new as each other
    /// received at one instant, a live sample's or the one a reconcile's tombstone deleted.
    func contentKey(_ number: Int, _ record: IdIndex.Record) -> UInt64 {
        contentBytes(number, record).withUnsafeBytes { Checksum.xxh3($0) }
    }

    /// A record's content in canonical bytes, its position and receivedAt aside.
    func contentBytes(_ number: Int, _ record: IdIndex.Record) -> [UInt8] {
        var bare = record
        bare.position = 0
        bare.receivedAt = 0
        var out = CanonicalBytes()
        Self.writeFields(bare, of: index, sources: sources, &out)
        return out.bytes
    }

    /// Deletes id `id` for ever, or, with `reconciledAt` (a reconcile's deletion), until a newer
    /// write received since the reconcile: the reconcile answered as of its receipt.
    private mutating func delete(
        _ id: SampleID, user: UInt32, provider: UInt32, reconciledAt: Int64? = nil, _ effect: inout Effect
    ) {
        let number = index.insert(IdIndex.Key(user: user, provider: provider, id: id))
        let old = index.record(number)
        if old.state == .live {
            removeLive(number, old, &effect)
            effect.deletedSamples += 1
        }
        index.delete(
            number,
            reconciled: reconciledAt.map {
                .init(at: $0, deleting: old, received: old.receivedAt, content: contentKey(number, old))
            })
    }

    /// Deletes what `reconcile` does not list of its window, and upserts what it lists;
    /// returns the numbers of the ids it lists, ascending.
    private mutating func applyReconcile(
        _ reconcile: Reconcile, provider: UInt32, samples: SampleBlock, user: UInt32, envelopeUser: String,
        received: Int64, _ effect: inout Effect
    ) -> [UInt32] {
        let present = Set(samples.entries.indices.map(samples.id(of:)))
        let from = reconcile.from.millis
        let to = reconcile.to.millis
        func isStale(_ number: Int) -> Bool {
            let record = index.record(number)
            return index.owner(number).provider == provider && record.metric == reconcile.metric.metric
                && record.startMillis >= from && record.startMillis < to && record.receivedAt < received
                && !present.contains(index.key(number).id)
        }
        let staleNumbers = liveNumbers(ofUser: user, metric: reconcile.metric.metric, startingIn: from..<to).filter(
            isStale)
        assert(staleNumbers == liveNumbers(ofUser: user).filter(isStale), "the cells and the ids hold other samples")
        // Sorted, so deletions dirty days in the same order in every process.
        let stale = staleNumbers.map(index.key).sorted { $0.id.textPrecedes($1.id) }
        for key in stale { delete(key.id, user: user, provider: provider, reconciledAt: received, &effect) }
        // A version a reconcile received later deleted, which this one would have deleted
        // first: its tombstone is this reconcile's, as in receipt order (it kept the receipt of
        // the reconcile folded first, and ingesting such a log again moved the digest).
        var claimed: [(number: Int, tombstone: IdIndex.Record.Reconciled)] = []
        index.forEachTombstone(ofUser: user, mayBeReconciledAfter: received) { number in
            guard var tombstone = index.record(number).reconciled, tombstone.at > received,
                tombstone.deletedReceivedAt < received, tombstone.metric == reconcile.metric.metric,
                tombstone.deletedStart >= from, tombstone.deletedStart < to,
                index.owner(number).provider == provider, !present.contains(index.key(number).id)
            else { return }
            tombstone.at = received
            claimed.append((number, tombstone))
        }
        for (number, tombstone) in claimed { index.delete(number, reconciled: tombstone) }
        upsert(samples, user: user, provider: provider, envelopeUser: envelopeUser, received: received, &effect)
        // Every id it lists has a number, an own write's too, so folding it again lists the same.
        let listed = Set(
            samples.entries.indices.map { number in
                index.insert(IdIndex.Key(user: user, provider: provider, id: samples.id(of: number)))
            })
        return listed.map(UInt32.init).sorted()
    }

    /// The numbers of `user`'s live samples of `metric` that may start in `window`, ascending:
    /// the members of the cells of the days those samples count towards
    /// (`DayAttribution.days(holdingSamplesStartingIn:rule:)`), or, when the user has fewer ids
    /// than those days, all of the user's live ids. (A reconcile walked all of the user's ids:
    /// 2,000 hourly reconciles beside 400,000 samples took 9.9 s; an attack run.)
    private func liveNumbers(ofUser user: UInt32, metric: Metric, startingIn window: Range<Int64>) -> [Int] {
        let days = DayAttribution.days(holdingSamplesStartingIn: window, rule: metric.dayRule)
        guard days.count < index.idCount(ofUser: user) else { return liveNumbers(ofUser: user) }
        var numbers: [Int] = []
        for day in days {
            let cell = CellKey(user: user, metric: metric, day: CivilDay(daysSinceEpoch: day))
            numbers += cells.members(of: cell).lazy.map(Int.init)
        }
        // A sample split across days is a member of each of its days' cells.
        return Set(numbers).sorted()
    }

    /// The numbers of all of `user`'s live samples, ascending.
    private func liveNumbers(ofUser user: UInt32) -> [Int] {
        var numbers: [Int] = []
        index.forEachNumber(ofUser: user, in: .live) { numbers.append($0) }
        return numbers
    }

    private mutating func insertLive(_ number: Int, _ record: IdIndex.Record, _ effect: inout Effect) {
        index.set(number, record)
        let (user, provider) = index.owner(number)
        noteLatest(record, user: user)
        let span = SampleSpan(record)
        var days = DayRange()
        Self.forEachDay(of: record, zone: index.zone(of: record), zones: zones) { day in
            cells.insert(number, spanning: span, into: CellKey(user: user, metric: record.metric, day: day))
            days.add(day)
        }
        // `markDirty` marks the days between too: one a zone skipped, which no sample counts
        // towards, gets a rollup all the same, so its cell is kept (its first and last days
        // have theirs).
        if days.last - days.first > 1 {
            for day in days.first + 1..<days.last {
                cells.touch(CellKey(user: user, metric: record.metric, day: CivilDay(daysSinceEpoch: day)))
            }
        }
        markDirty(days, around: span, user: user, provider: provider, metric: record.metric, &effect)
    }

    private mutating func removeLive(_ number: Int, _ record: IdIndex.Record, _ effect: inout Effect) {
        let (user, provider) = index.owner(number)
        latestSamples.remove(user: user, startMillis: record.startMillis)
        let span = SampleSpan(record)
        // A copy to read other members' records from while `cells` changes (no exclusive
        // access to `self` overlaps).
        let index = self.index
        var days = DayRange()
        Self.forEachDay(of: record, zone: index.zone(of: record), zones: zones) { day in
            cells.remove(number, spanning: span, from: CellKey(user: user, metric: record.metric, day: day)) {
                SampleSpan(index.record(Int($0)))
            }
            days.add(day)
        }
        markDirty(days, around: span, user: user, provider: provider, metric: record.metric, &effect)
    }

    /// The first and last of the days a sample counts towards, as they come.
    struct DayRange: Equatable {
        var first: Int32 = 0
        var last: Int32 = 0
        var isEmpty = true

        init() {}

        /// The one day `day`.
        init(_ day: CivilDay) { add(day) }

        mutating func add(_ day: CivilDay) {
            if isEmpty {
                (first, last, isEmpty) = (day.daysSinceEpoch, day.daysSinceEpoch, false)
            } else {
                (first, last) = (min(first, day.daysSinceEpoch), max(last, day.daysSinceEpoch))
            }
        }
    }

    /// The spans of the four cells around a range of days of one user's metric (the two days
    /// before it, then the two after), as `markDirty` last read them.
    struct NeighbourSpans {
        var user: UInt32
        var metric: Metric
        var days: DayRange
        var spans = InlineArray<4, SampleSpan>(repeating: .empty)

        /// The day of `spans[place]`.
        func day(_ place: Int) -> Int32 { Projections.neighbourDay(place, of: days) }
    }

    /// The days whose samples may overlap in time those of `days`, by place (0 to 3): the two
    /// before and the two after (two samples' written offsets differ by at most 47:58). Both
    /// the dirty rule (`markDirty`) and a merge's inputs (`recompute`) go through it: they must
    /// agree, or a day's rollup would depend on how the log was batched. Samples further apart
    /// are not merged (a long sleep sample, or one at an extreme offset, can be).
    static func neighbourDay(_ place: Int, of days: DayRange) -> Int32 {
        place < 2 ? days.first - 2 + Int32(place) : days.last + Int32(place) - 1
    }

    /// Marks dirty the days from the first to the last a sample spanning `span` counts towards
    /// (the days a zone skipped between them included), as it is added or removed, and, for a
    /// metric whose rollup merges overlapping sources, the two days either side with a sample
    /// it overlaps: their merge takes in the samples of neighbouring days that overlap one of
    /// theirs (`recompute`), so the sample is among their inputs. (A neighbour whose samples'
    /// span meets it but none of its samples kept its value and moved its version.)
    private mutating func markDirty(
        _ days: DayRange, around span: SampleSpan, user: UInt32, provider: UInt32, metric: Metric,
        _ effect: inout Effect
    ) {
        func mark(_ day: Int32) {
            let key = DirtyDays.Key(user: user, provider: provider, metric: metric, day: CivilDay(daysSinceEpoch: day))
            if dirtyDay(key) { effect.daysDirtied += 1 }
        }
        for day in days.first...days.last { mark(day) }
        guard metric.mergesOverlaps else { return }
        // The samples of one envelope mostly share their days: their neighbours' spans are read
        // once. Only a sample on other days changes those cells, and it reads them again.
        var around = NeighbourSpans(user: user, metric: metric, days: days)
        if let cached = neighbourSpans, cached.user == user, cached.metric == metric, cached.days == days {
            around = cached
        } else {
            for place in 0..<4 {
                let day = CivilDay(daysSinceEpoch: around.day(place))
                around.spans[place] = cells.span(of: CellKey(user: user, metric: metric, day: day))
            }
            neighbourSpans = around
        }
        for place in 0..<4 where around.spans[place].overlaps(span) {
            let neighbour = CellKey(user: user, metric: metric, day: CivilDay(daysSinceEpoch: around.day(place)))
            if cells.members(of: neighbour).contains(where: { SampleSpan(index.record(Int($0))).overlaps(span) }) {
                mark(around.day(place))
            }
        }
    }

    /// Calls `body` with each civil day an id-index record counts towards (a day can come
    /// twice), its zone given as written. Static, so that `body` may change the projections.
    static func forEachDay(
        of record: IdIndex.Record, zone: String?, zones: ZoneOffsets, _ body: (CivilDay) -> Void
    ) {
        DayAttribution.forEachDay(
            rule: record.metric.dayRule, startMillis: record.startMillis, startOffset: record.startOffset,
            endMillis: record.endMillis, endOffset: record.endOffset, zone: zone, zones: zones, body)
    }

    /// Marks every cell of `metric` dirty for `user` (`*`: every user without a list of their
    /// own), after the priority that ranks them changed (a cell without samples ranks none).
    private mutating func dirtyAllCells(user: String, metric: Metric) -> Int {
        guard user == "*" else {
            return dirtyCells(ofUser: users.intern(user), metric: metric, emptyAs: nil) { _ in true }
        }
        var marks: [DirtyDays.Key] = []
        cells.forEach { cell, members in
            guard cell.metric == metric, priorities[PriorityKey(user: users[cell.user], metric: metric)] == nil
            else { return }
            marks += dirtyKeys(of: cell, members: members, emptyAs: nil)
        }
        return mark(marks)
    }

    /// The dirty-day keys of a cell: one for the provider of each of its live samples `members`,
    /// or, for a cell whose samples all went, one for `emptyAs` (none when `nil`).
    func dirtyKeys(of cell: CellKey, members: [UInt32], emptyAs provider: UInt32?) -> [DirtyDays.Key] {
        guard !members.isEmpty else {
            return provider.map { [DirtyDays.Key(user: cell.user, provider: $0, metric: cell.metric, day: cell.day)] }
                ?? []
        }
        return members.map {
            DirtyDays.Key(user: cell.user, provider: index.owner(Int($0)).provider, metric: cell.metric, day: cell.day)
        }
    }

    /// Marks dirty the days `isDirtied` picks among `user`'s cells of `metric`: the days of the
    /// user's live samples, and those whose samples all went (a known 0 to a follower, which
    /// must hear when it stops being known), marked for `emptyAs` (left alone when `nil`).
    /// The cells come from the fold alone (`CellMembers`), whatever recomputes ran.
    /// - Returns: how many were clean.
    mutating func dirtyCells(
        ofUser user: UInt32, metric: Metric, emptyAs provider: UInt32?, where isDirtied: (CivilDay) -> Bool
    ) -> Int {
        var marks: [DirtyDays.Key] = []
        cells.forEach(ofUser: user, metric: metric) { cell, members in
            if isDirtied(cell.day) { marks += dirtyKeys(of: cell, members: members, emptyAs: provider) }
        }
        return mark(marks)
    }

    /// Marks each of `marks` dirty as of the envelope being folded; returns how many were clean.
    mutating func mark(_ marks: [DirtyDays.Key]) -> Int {
        var dirtied = 0
        for mark in marks where dirtyDay(mark) { dirtied += 1 }
        return dirtied
    }
}
