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
    /// The source `sourceID` returned last (a cache, no part of the state).
    private var lastSource: (source: Source, id: SourceID)?
    package internal(set) var index = IdIndex()
    package internal(set) var dirty = DirtyDays()
    /// The live samples of each cell.
    package internal(set) var cells: [CellKey: Set<IdIndex.Key>] = [:]
    /// `config.sources`: per (user or `*`, metric), origins highest first.
    package internal(set) var priorities: [PriorityKey: Configured] = [:]
    /// `config.ownOrigins`: per user or `*`, origins whose samples are ignored (sorted).
    package internal(set) var ownOrigins: [String: Configured] = [:]

    /// A config setting and the `receivedAt` of the envelope that set it.
    package struct Configured: Equatable, Sendable {
        package var origins: [String]
        package var receivedAt: Int64

        /// Whether `other` replaces this setting: it is newer, or as new and greater (so that
        /// folding the same config envelopes in any order, or twice, ends at the same setting).
        func isReplaced(by other: Configured) -> Bool {
            other.receivedAt > receivedAt
                || (other.receivedAt == receivedAt && other.origins.lexicographicallyPrecedes(origins) == false
                    && other.origins != origins)
        }
    }
    /// What is known of each (user, provider, metric) sync channel.
    package internal(set) var syncStates: [SyncKey: SyncState] = [:]
    /// `config.provider` settings.
    package internal(set) var providerConfigs: [ProviderKey: ProviderSetting] = [:]
    /// The rollups by cell.
    package internal(set) var rollups: [CellKey: StoredRollup] = [:]
    /// The last position applied.
    package internal(set) var position: UInt64 = 0
    let zones = ZoneOffsets()

    package struct PriorityKey: Hashable, Sendable {
        package var user: String
        package var metric: Metric
    }

    package init() {}

    /// Folds one logged envelope in.
    ///
    /// - Parameters:
    ///   - envelope: the envelope as the log holds it.
    ///   - position: its log position (positions only grow).
    package mutating func apply(_ envelope: Envelope, at position: UInt64) -> Effect {
        precondition(position > self.position, "the log is folded in order")
        self.position = position
        var effect = Effect()
        let received = envelope.receivedAt.millis
        switch envelope.body {
        case .healthKitDelivery(let delivery):
            let user = users.intern(envelope.user)
            let provider = providers.intern("healthkit")
            for sample in delivery.added {
                upsert(sample, user: user, provider: provider, envelopeUser: envelope.user, received: received, &effect)
            }
            for deletion in delivery.deleted {
                delete(SampleID(deletion.uuid), user: user, provider: provider, &effect)
            }
        case .healthConnectChanges(let page):
            let user = users.intern(envelope.user)
            let provider = providers.intern("health_connect")
            page.forEachChange { sample, deletedId in
                if let sample {
                    upsert(
                        sample, user: user, provider: provider, envelopeUser: envelope.user, received: received, &effect
                    )
                } else if let deletedId {
                    delete(SampleID(deletedId), user: user, provider: provider, &effect)
                }
            }
        case .samplesUpsert(let providerName, let samples):
            let user = users.intern(envelope.user)
            let provider = providers.intern(providerName)
            for sample in samples {
                upsert(sample, user: user, provider: provider, envelopeUser: envelope.user, received: received, &effect)
            }
        case .samplesDelete(let providerName, let ids):
            let user = users.intern(envelope.user)
            let provider = providers.intern(providerName)
            for id in ids { delete(SampleID(id), user: user, provider: provider, &effect) }
        case .reconcile(let reconcile):
            applyReconcile(reconcile, envelopeUser: envelope.user, received: received, &effect)
        case .configSources(let metric, let priority):
            let key = PriorityKey(user: envelope.user, metric: metric.metric)
            let setting = Configured(origins: priority, receivedAt: received)
            if priorities[key]?.isReplaced(by: setting) ?? true {
                let changed = priorities[key]?.origins != priority
                priorities[key] = setting
                if changed { effect.daysDirtied += dirtyAllCells(user: envelope.user, metric: metric.metric) }
            }
        case .configOwnOrigins(let origins):
            let setting = Configured(origins: Array(Set(origins)).sorted(), receivedAt: received)
            if ownOrigins[envelope.user]?.isReplaced(by: setting) ?? true { ownOrigins[envelope.user] = setting }
        case .checkin, .configProvider:
            break  // sync state only
        }
        foldSync(envelope, effect)
        return effect
    }

    /// The source id of (origin, device), interned now when new.
    private mutating func sourceID(origin: String, device: String?) -> SourceID {
        let source = Source(origin: origin, device: device)
        // The samples of an envelope mostly share their source: comparing two strings is
        // cheaper than hashing them.
        if let last = lastSource, last.source == source { return last.id }
        let id: SourceID
        if let known = sourceIDs[source] {
            id = known
        } else {
            id = SourceID(UInt32(sources.count))
            sources.append(source)
            sourceIDs[source] = id
        }
        lastSource = (source, id)
        return id
    }

    /// Whether samples from `origin` are the user's backend's own writes read back.
    private func isOwnOrigin(_ origin: String, user: String) -> Bool {
        guard !ownOrigins.isEmpty else { return false }
        return (ownOrigins[user] ?? ownOrigins["*"])?.origins.contains(origin) ?? false
    }

    private mutating func upsert(
        _ sample: Sample, user: UInt32, provider: UInt32, envelopeUser: String, received: Int64, _ effect: inout Effect
    ) {
        let key = IdIndex.Key(user: user, provider: provider, id: sample.id)
        guard !isOwnOrigin(sample.origin, user: envelopeUser), !index.isDeleted(key) else {
            effect.knownSamples += 1
            return
        }
        let end = sample.effectiveEnd
        var entry = IdIndex.Entry(
            sample: LiveSample(
                id: sample.id, metric: sample.type.metric, startMillis: sample.start.millis,
                startOffset: sample.start.offsetSeconds, endMillis: end.millis, endOffset: end.offsetSeconds,
                zone: sample.timeZone, value: sample.canonicalValue, stage: sample.stage,
                source: sourceID(origin: sample.origin, device: sample.device), position: position),
            receivedAt: received, lastModified: sample.lastModified?.millis, syncIdentifier: sample.syncIdentifier,
            syncVersion: sample.syncVersion, unitSymbol: sample.unit?.symbol, originalValue: sample.value)
        // HealthKit sync identity: a higher version replaces the sample holding the identifier.
        if let identifier = sample.syncIdentifier,
            let holder = index.holder(ofSyncIdentifier: identifier, user: user, provider: provider), holder != key
        {
            let held = index.entry(holder)!
            guard (sample.syncVersion ?? 0) > (held.syncVersion ?? 0) else {
                effect.knownSamples += 1
                return
            }
            removeLive(holder, held, &effect)
            index.delete(holder)
            effect.replacedSamples += 1
            insertLive(key, entry, &effect)
            return
        }
        guard let old = index.entry(key) else {
            effect.newSamples += 1
            insertLive(key, entry, &effect)
            return
        }
        if let identifier = sample.syncIdentifier, identifier == old.syncIdentifier,
            (sample.syncVersion ?? 0) < (old.syncVersion ?? 0)
        {
            effect.knownSamples += 1
            return
        }
        let (new, was) =
            if let new = entry.lastModified, let was = old.lastModified { (new, was) } else {
                (received, old.receivedAt)
            }
        entry.receivedAt = max(received, old.receivedAt)
        // An older write, a re-delivery, or a write as new whose content does not order after
        // the held one (so equally new writes end at the same sample in any order, or twice):
        // only the newest receivedAt is remembered. The content's bytes are built only to order
        // two different writes as new as each other.
        if new < was || Self.sameContent(entry, old)
            || (new == was && !contentBytes(old).lexicographicallyPrecedes(contentBytes(entry)))
        {
            var kept = old
            kept.receivedAt = entry.receivedAt
            index.set(key, kept)
            effect.knownSamples += 1
            return
        }
        removeLive(key, old, &effect)
        effect.replacedSamples += 1
        insertLive(key, entry, &effect)
    }

    /// Whether two entries have the same content bytes (`contentBytes(a) == contentBytes(b)`)
    /// without building them: strings by their UTF-8 bytes, doubles by their bit patterns, the
    /// source by its id (interning gives distinct names distinct ids).
    static func sameContent(_ a: IdIndex.Entry, _ b: IdIndex.Entry) -> Bool {
        func same(_ x: String?, _ y: String?) -> Bool {
            switch (x, y) {
            case (nil, nil): true
            case (let x?, let y?): x.utf8.elementsEqual(y.utf8)
            default: false
            }
        }
        let (s, t) = (a.sample, b.sample)
        return s.metric == t.metric && s.startMillis == t.startMillis && s.startOffset == t.startOffset
            && s.endMillis == t.endMillis && s.endOffset == t.endOffset && s.value?.bitPattern == t.value?.bitPattern
            && s.stage == t.stage && s.source == t.source && a.lastModified == b.lastModified
            && a.syncVersion == b.syncVersion && a.originalValue?.bitPattern == b.originalValue?.bitPattern
            && same(s.zone, t.zone) && same(a.syncIdentifier, b.syncIdentifier) && same(a.unitSymbol, b.unitSymbol)
    }

    /// An entry's content in canonical bytes, its position and receivedAt aside.
    func contentBytes(_ entry: IdIndex.Entry) -> [UInt8] {
        var bare = entry
        bare.sample.position = 0
        bare.receivedAt = 0
        var out = CanonicalBytes()
        writeEntry(bare, &out, writeSource: writeSourceNames)
        return out.bytes
    }

    private mutating func delete(_ id: SampleID, user: UInt32, provider: UInt32, _ effect: inout Effect) {
        let key = IdIndex.Key(user: user, provider: provider, id: id)
        guard let old = index.entry(key) else {
            index.delete(key)
            return
        }
        removeLive(key, old, &effect)
        index.delete(key)
        effect.deletedSamples += 1
    }

    private mutating func applyReconcile(
        _ reconcile: Reconcile, envelopeUser: String, received: Int64, _ effect: inout Effect
    ) {
        let user = users.intern(envelopeUser)
        let provider = providers.intern(reconcile.provider)
        let present = Set(reconcile.samples.map(\.id))
        let from = reconcile.from.millis
        let to = reconcile.to.millis
        // Sorted, so deletions dirty days in the same order in every process.
        var stale: [IdIndex.Key] = []
        index.forEachLive { key, entry in
            if key.user == user && key.provider == provider && entry.sample.metric == reconcile.metric.metric
                && entry.sample.startMillis >= from && entry.sample.startMillis < to && !present.contains(key.id)
                && entry.receivedAt < received
            {
                stale.append(key)
            }
        }
        stale.sort { $0.id.textPrecedes($1.id) }
        for key in stale { delete(key.id, user: user, provider: provider, &effect) }
        for sample in reconcile.samples {
            upsert(sample, user: user, provider: provider, envelopeUser: envelopeUser, received: received, &effect)
        }
    }

    private mutating func insertLive(_ key: IdIndex.Key, _ entry: IdIndex.Entry, _ effect: inout Effect) {
        index.set(key, entry)
        Self.forEachDay(of: entry.sample, zones: zones) { day in
            cells[CellKey(user: key.user, metric: entry.sample.metric, day: day), default: []].insert(key)
            if dirty.mark(
                DirtyDays.Key(user: key.user, provider: key.provider, metric: entry.sample.metric, day: day),
                at: position)
            {
                effect.daysDirtied += 1
            }
        }
    }

    private mutating func removeLive(_ key: IdIndex.Key, _ entry: IdIndex.Entry, _ effect: inout Effect) {
        Self.forEachDay(of: entry.sample, zones: zones) { day in
            let cell = CellKey(user: key.user, metric: entry.sample.metric, day: day)
            cells[cell]?.remove(key)
            let dirtied = dirty.mark(
                DirtyDays.Key(user: key.user, provider: key.provider, metric: entry.sample.metric, day: day),
                at: position)
            if dirtied { effect.daysDirtied += 1 }
        }
    }

    /// The civil days a live sample counts towards.
    package func days(of sample: LiveSample) -> [CivilDay] {
        DayAttribution.days(
            rule: sample.metric.dayRule, startMillis: sample.startMillis, startOffset: sample.startOffset,
            endMillis: sample.endMillis, endOffset: sample.endOffset, zone: sample.zone, zones: zones
        ).map(\.day)
    }

    /// Calls `body` with each civil day a live sample counts towards (a day can come twice).
    /// Static, so that `body` may change the projections.
    static func forEachDay(of sample: LiveSample, zones: ZoneOffsets, _ body: (CivilDay) -> Void) {
        DayAttribution.forEachDay(
            rule: sample.metric.dayRule, startMillis: sample.startMillis, startOffset: sample.startOffset,
            endMillis: sample.endMillis, endOffset: sample.endOffset, zone: sample.zone, zones: zones, body)
    }

    /// Marks every cell of `metric` dirty for `user` (`*`: every user), after its priority changed.
    private mutating func dirtyAllCells(user: String, metric: Metric) -> Int {
        let userID = user == "*" ? nil : users.intern(user)
        var dirtied = 0
        for (cell, keys) in cells where cell.metric == metric && (userID == nil || cell.user == userID) {
            for provider in Set(keys.map(\.provider))
            where dirty.mark(
                DirtyDays.Key(user: cell.user, provider: provider, metric: metric, day: cell.day), at: position)
            {
                dirtied += 1
            }
        }
        return dirtied
    }
}
