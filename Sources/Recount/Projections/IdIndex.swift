/// The id index: (user, provider, id) → the live sample and what decides newness, or a
/// tombstone for an id that was deleted (contract §3 rules 1–2).
///
/// Each id gets a number, in the order ids are first seen, from a `FlatTable`; the index keeps
/// one flat `Record` per number (no strings, no references: zones, sync identifiers, units and
/// non-UUID ids are interned), so a lookup hashes 28 bytes and copying a record copies bytes.
/// `Entry` and `LiveSample` are the records as the rest of the projections read them.
package struct IdIndex: Sendable {
    /// The identity of a sample.
    package struct Key: Hashable, Sendable {
        package var user: UInt32
        package var provider: UInt32
        package var id: SampleID

        package init(user: UInt32, provider: UInt32, id: SampleID) {
            (self.user, self.provider, self.id) = (user, provider, id)
        }
    }

    /// A live sample with what the index knows of it beyond the sample itself.
    package struct Entry: Equatable, Sendable {
        package var sample: LiveSample
        /// The newest `receivedAt` of the envelopes that delivered it (epoch millis).
        package var receivedAt: Int64
        /// Health Connect `lastModified` (epoch millis), when given.
        package var lastModified: Int64?
        /// HealthKit sync identity.
        package var syncIdentifier: String?
        package var syncVersion: Int64?
        /// The unit and value as written.
        package var unitSymbol: String?
        package var originalValue: Double?
        /// A workout's activity as written, and its distance (m) and energy (kcal) totals.
        package var activity: WorkoutActivity?
        package var distance: Double?
        package var energy: Double?
    }

    /// A key as the table holds it: a UUID as its 16 bytes, any other id as its interned number.
    struct StoredKey: FlatKey {
        var user: UInt32
        var provider: UInt32
        var high: UInt64
        var low: UInt64
        /// 0: an uppercase UUID, 1: a lowercase UUID, n + 2: the text id numbered n.
        var kind: UInt32

        var flatHash: UInt64 {
            FlatHash.mix(high ^ (UInt64(user) << 32 | UInt64(provider)), low ^ UInt64(kind))
        }
    }

    // Internal, not private, for the checkpoint (`IdIndex+Checkpoint.swift`) alone.
    var table = FlatTable<StoredKey>()
    var records = RecordStore()
    /// Ids that are not canonical UUIDs.
    var textIDs = Interner()
    /// Zones, sync identifiers and unit symbols.
    var strings = Interner()
    /// The number of the record holding each (user, provider, metric, sync identifier).
    private var bySyncIdentifier: [SyncKey: Int] = [:]
    /// Each user's id numbers (by interned user), in the order first seen: what a query or a
    /// reconcile of one user walks, instead of every id of every user.
    private var numbersByUser: [[UInt32]] = []
    /// Each user's latest receipt of a reconcile that deleted one of their ids (by interned
    /// user), or later (a tombstone can be lifted or claimed by an earlier reconcile): a
    /// reconcile received after it finds none of the tombstones it would claim.
    private var latestReconcileDeletion: [Int64] = []
    /// What `prefetch` read last: kept only so that its reads happen.
    var prefetched: UInt64 = 0
    package private(set) var liveCount = 0
    package private(set) var tombstoneCount = 0

    /// A sync identity is a metric's: a sample of another metric never replaces it.
    struct SyncKey: Hashable, Sendable {
        var user: UInt32
        var provider: UInt32
        var metric: Metric
        var identifier: UInt32
    }

    package init() {}

    // MARK: Keys and numbers

    /// The number of `key`, when the index has seen it.
    func number(of key: Key) -> Int? {
        storedKey(key).flatMap { table.number(of: $0) }
    }

    /// The number of `key`, given one (holding nothing) when new.
    package mutating func insert(_ key: Key) -> Int {
        let stored = storedKey(interning: key)
        let (number, inserted) = table.insert(stored)
        if inserted {
            records.append(Record())
            noteOwner(number, user: key.user)
        }
        return number
    }

    /// Adds a newly numbered id to its user's numbers.
    private mutating func noteOwner(_ number: Int, user: UInt32) {
        let user = Int(user)
        if user >= numbersByUser.count {
            numbersByUser.append(contentsOf: repeatElement([], count: user + 1 - numbersByUser.count))
        }
        numbersByUser[user].append(UInt32(number))
    }

    /// Reads the table's first bucket for each UUID id of `samples`, all before any is inserted:
    /// in a table of millions of ids each is a cache miss, and reads issued together wait for
    /// memory together, where lookups one after another wait in turn.
    package mutating func prefetch(_ samples: UnsafeBufferPointer<SampleBlock.Entry>, user: UInt32, provider: UInt32) {
        var combined: UInt64 = 0
        for index in samples.indices {
            guard let uuid = samples[index].uuid else { continue }
            combined ^= table.firstBucket(of: StoredKey(user: user, provider: provider, uuid: uuid))
        }
        // Kept, so that the reads are not optimised away.
        prefetched = combined
    }

    /// The key numbered `number`.
    package func key(_ number: Int) -> Key { key(table.keys[number]) }

    /// A key as the table holds it, its id built.
    func key(_ stored: StoredKey) -> Key {
        let id =
            switch stored.kind {
            case 0, 1: SampleID(uuid: stored.high, stored.low, lowercase: stored.kind == 1)
            default: SampleID(textIDs[stored.kind - 2])
            }
        return Key(user: stored.user, provider: stored.provider, id: id)
    }

    /// The key numbered `number` as the table holds it.
    func storedKey(number: Int) -> StoredKey { table.keys[number] }

    /// The key's user and provider without building its id.
    func owner(_ number: Int) -> (user: UInt32, provider: UInt32) {
        (table.keys[number].user, table.keys[number].provider)
    }

    private func storedKey(_ key: Key) -> StoredKey? {
        if let uuid = key.id.uuid {
            return StoredKey(user: key.user, provider: key.provider, uuid: uuid)
        }
        guard let text = textIDs.id(of: key.id.text) else { return nil }
        return StoredKey(user: key.user, provider: key.provider, high: 0, low: 0, kind: text + 2)
    }

    private mutating func storedKey(interning key: Key) -> StoredKey {
        if let uuid = key.id.uuid {
            return StoredKey(user: key.user, provider: key.provider, uuid: uuid)
        }
        return StoredKey(user: key.user, provider: key.provider, high: 0, low: 0, kind: textIDs.intern(key.id.text) + 2)
    }

    // MARK: Records

    @inline(__always)
    func record(_ number: Int) -> Record { records[number] }

    /// The live entry of `key`, if any.
    package func entry(_ key: Key) -> Entry? {
        number(of: key).flatMap { records.state($0) == .live ? entry(number: $0, id: key.id) : nil }
    }

    /// The live sample numbered `number` (which must be live).
    func liveSample(_ number: Int) -> LiveSample {
        sample(records[number], id: key(number).id)
    }

    /// Calls `body` with each live sample's number, in the order ids were first seen.
    func forEachLiveNumber(_ body: (Int) -> Void) {
        for number in records.indices where records.state(number) == .live { body(number) }
    }

    /// Calls `body` with each live sample, in the order ids were first seen.
    package func forEachLive(_ body: (Key, Entry) -> Void) {
        forEachLiveNumber { number in
            let key = key(number)
            body(key, entry(number: number, id: key.id))
        }
    }

    /// How many ids of `user` (live or deleted) the index holds.
    func idCount(ofUser user: UInt32) -> Int {
        Int(user) < numbersByUser.count ? numbersByUser[Int(user)].count : 0
    }

    /// Calls `body` with the number of each of `user`'s ids in `state` (live or deleted), in
    /// the order ids were first seen.
    func forEachNumber(ofUser user: UInt32, in state: Record.State, _ body: (Int) -> Void) {
        guard Int(user) < numbersByUser.count else { return }
        for number in numbersByUser[Int(user)] where records.state(Int(number)) == state { body(Int(number)) }
    }

    /// Calls `body` with the number of each of `user`'s tombstones, in the order ids were first
    /// seen; with none when no reconcile received after `millis` deleted any of the user's ids.
    func forEachTombstone(ofUser user: UInt32, mayBeReconciledAfter millis: Int64, _ body: (Int) -> Void) {
        guard Int(user) < latestReconcileDeletion.count, latestReconcileDeletion[Int(user)] > millis else { return }
        forEachNumber(ofUser: user, in: .deleted, body)
    }

    /// Notes that a reconcile received at `millis` deleted an id of `user`.
    private mutating func noteReconcileDeletion(at millis: Int64, user: UInt32) {
        let user = Int(user)
        if user >= latestReconcileDeletion.count {
            latestReconcileDeletion.append(
                contentsOf: repeatElement(.min, count: user + 1 - latestReconcileDeletion.count))
        }
        latestReconcileDeletion[user] = max(latestReconcileDeletion[user], millis)
    }

    /// Live samples by key: a copy, for tests and small states.
    package var live: [Key: Entry] {
        var live: [Key: Entry] = [:]
        forEachLive { key, entry in live[key] = entry }
        return live
    }

    /// The number of the record holding a sync identifier now, if any.
    /// - Parameter identifier: the identifier as a record holds it (interned + 1).
    func holder(ofSyncIdentifier identifier: UInt32, user: UInt32, provider: UInt32, metric: Metric) -> Int? {
        bySyncIdentifier.isEmpty
            ? nil : bySyncIdentifier[SyncKey(user: user, provider: provider, metric: metric, identifier: identifier)]
    }

    /// A record of entry `number` of `samples`, whose zone, unit symbol and source the caller
    /// interned (`intern(_:)`).
    mutating func record(
        _ number: Int, of samples: SampleBlock, zone: UInt32, unitSymbol: UInt32, source: SourceID,
        position: UInt64, receivedAt: Int64
    ) -> Record {
        let start = samples.entries[number].start
        let end = samples.entries[number].end ?? start
        var record = Record(state: .live, metric: samples.metric(of: number), stage: samples.entries[number].stage)
        record.startMillis = start.millis
        record.startOffset = start.offsetSeconds
        record.endMillis = end.millis
        record.endOffset = end.offsetSeconds
        record.zone = zone
        record.value = samples.canonicalValue(of: number)
        record.source = source
        record.position = position
        record.receivedAt = receivedAt
        record.lastModified = samples.entries[number].lastModified?.millis
        record.syncIdentifier = intern(samples.syncIdentifier(of: number))
        record.syncVersion = samples.entries[number].syncVersion
        record.unitSymbol = unitSymbol
        record.originalValue = samples.entries[number].value
        if let workout = samples.workout(of: number) {
            record.activity = workout.activity?.activity
            record.distance = workout.distance?.canonicalValue
            record.energy = workout.energy?.canonicalValue
        }
        return record
    }

    /// A record of an entry, its strings interned.
    mutating func record(_ entry: Entry) -> Record {
        let sample = entry.sample
        var record = Record(state: .live, metric: sample.metric, stage: sample.stage)
        record.startMillis = sample.startMillis
        record.startOffset = sample.startOffset
        record.endMillis = sample.endMillis
        record.endOffset = sample.endOffset
        record.zone = intern(sample.zone)
        record.value = sample.value
        record.source = sample.source
        record.position = sample.position
        record.receivedAt = entry.receivedAt
        record.lastModified = entry.lastModified
        record.syncIdentifier = intern(entry.syncIdentifier)
        record.syncVersion = entry.syncVersion
        record.unitSymbol = intern(entry.unitSymbol)
        record.originalValue = entry.originalValue
        record.activity = entry.activity
        record.distance = entry.distance
        record.energy = entry.energy
        return record
    }

    /// The zone a record names, as written.
    func zone(of record: Record) -> String? { string(record.zone) }

    // MARK: Changes

    /// Makes `record` (live) the record numbered `number`, replacing whatever it held.
    mutating func set(_ number: Int, _ record: Record) {
        let old = records[number]
        if old.state == .live { liveCount -= 1 }
        if old.state == .deleted { tombstoneCount -= 1 }
        let (user, provider) = owner(number)
        if old.syncIdentifier != 0 {
            bySyncIdentifier[
                SyncKey(user: user, provider: provider, metric: old.metric, identifier: old.syncIdentifier)] = nil
        }
        records[number] = record
        noteLive(number, record)
    }

    /// Counts the live record `number` now holds and indexes its sync identifier.
    private mutating func noteLive(_ number: Int, _ record: Record) {
        liveCount += 1
        if record.syncIdentifier != 0 {
            let (user, provider) = owner(number)
            bySyncIdentifier[
                SyncKey(user: user, provider: provider, metric: record.metric, identifier: record.syncIdentifier)] =
                number
        }
    }

    /// Gives the id numbered next, whose key the table holds already, its checkpointed record:
    /// what `set` or `delete` would leave, without reading back a record to replace.
    mutating func appendLoaded(_ record: Record) {
        let number = records.count
        precondition(number < table.count, "the key is numbered first")
        noteOwner(number, user: owner(number).user)
        switch record.state {
        case .empty: records.append(Record())
        case .deleted:
            records.append(.tombstone(record.reconciled))
            tombstoneCount += 1
            if let reconciled = record.reconciled { noteReconcileDeletion(at: reconciled.at, user: owner(number).user) }
        case .live:
            records.append(record)
            noteLive(number, record)
        }
    }

    /// Sets the live entry of `key` (replacing any).
    package mutating func set(_ key: Key, _ entry: Entry) {
        let number = insert(key)
        set(number, record(entry))
    }

    /// Makes the record numbered `number` a tombstone, for ever or, `reconciled`, until a write
    /// received since the reconcile that deleted it lifts it; returns the record that was live.
    @discardableResult
    mutating func delete(_ number: Int, reconciled: Record.Reconciled? = nil) -> Record? {
        let old = records[number]
        switch old.state {
        case .deleted:
            // A tombstone for ever stays one; a reconcile's gives way to the deletion that names
            // it (for ever, or a reconcile's that answered for a write: `Projections.supersede`).
            guard old.reconciled != nil else { return nil }
            tombstoneCount -= 1
        case .empty: break
        case .live:
            liveCount -= 1
            if old.syncIdentifier != 0 {
                let (user, provider) = owner(number)
                let syncKey = SyncKey(
                    user: user, provider: provider, metric: old.metric, identifier: old.syncIdentifier)
                if bySyncIdentifier[syncKey] == number { bySyncIdentifier[syncKey] = nil }
            }
        }
        records[number] = .tombstone(reconciled)
        tombstoneCount += 1
        if let reconciled { noteReconcileDeletion(at: reconciled.at, user: owner(number).user) }
        return old.state == .live ? old : nil
    }

    /// Removes a live sample or notes a tombstone.
    package mutating func delete(_ key: Key) { delete(insert(key)) }

    // MARK: Views

    /// The entry numbered `number`, whose key holds `id`.
    func entry(number: Int, id: SampleID) -> Entry { entry(records[number], id: id) }

    /// A record as an entry of the sample `id`.
    func entry(_ record: Record, id: SampleID) -> Entry {
        Entry(
            sample: sample(record, id: id), receivedAt: record.receivedAt, lastModified: record.lastModified,
            syncIdentifier: string(record.syncIdentifier), syncVersion: record.syncVersion,
            unitSymbol: string(record.unitSymbol), originalValue: record.originalValue, activity: record.activity,
            distance: record.distance, energy: record.energy)
    }

    private func sample(_ record: Record, id: SampleID) -> LiveSample {
        LiveSample(
            id: id, metric: record.metric, startMillis: record.startMillis, startOffset: record.startOffset,
            endMillis: record.endMillis, endOffset: record.endOffset, zone: string(record.zone), value: record.value,
            stage: record.stage, source: record.source, position: record.position)
    }

    /// An interned string of a record (`nil` for 0: none).
    func string(_ interned: UInt32) -> String? { interned == 0 ? nil : strings[interned - 1] }

    /// A string as a record holds it: interned + 1 (0: none).
    mutating func intern(_ string: String?) -> UInt32 { string.map { strings.intern($0) + 1 } ?? 0 }
}

extension IdIndex.StoredKey {
    /// The key of a UUID id.
    init(user: UInt32, provider: UInt32, uuid: (high: UInt64, low: UInt64, lowercase: Bool)) {
        self.init(user: user, provider: provider, high: uuid.high, low: uuid.low, kind: uuid.lowercase ? 1 : 0)
    }
}
