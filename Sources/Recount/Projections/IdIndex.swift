/// The id index: (user, provider, id) → the live sample and what decides newness, or a
/// tombstone for an id that was deleted (contract §3 rules 1–2).
package struct IdIndex: Sendable {
    /// The identity of a sample.
    package struct Key: Hashable, Sendable {
        package var user: UInt32
        package var provider: UInt32
        package var id: SampleID
    }

    /// What the index knows of a live sample beyond the sample itself.
    package struct Entry: Equatable, Sendable {
        package var sample: LiveSample
        /// The newest `receivedAt` of the envelopes that delivered it (epoch millis).
        package var receivedAt: Int64
        /// Health Connect `lastModified` (epoch millis), when given.
        package var lastModified: Int64?
        /// HealthKit sync identity.
        package var syncIdentifier: String?
        package var syncVersion: Int64?
        /// The device as written (the source's device, kept for `samples`).
        package var unitSymbol: String?
        package var originalValue: Double?
    }

    /// The slot in `entries` of each live sample: the table that grows and rehashes holds
    /// small values, and the large entries stay where they are.
    private var slots: [Key: Int] = [:]
    /// The live entries by slot; a deleted sample's slot is in `freeSlots` until reused.
    private var entries: [Entry] = []
    private var freeSlots: [Int] = []
    /// Ids deleted: a later upsert of one is ignored (a late add of a deleted sample stays deleted).
    package private(set) var tombstones: Set<Key> = []
    /// The key of the sample holding each (user, provider, sync identifier).
    private var bySyncIdentifier: [SyncKey: Key] = [:]

    struct SyncKey: Hashable, Sendable {
        var user: UInt32
        var provider: UInt32
        var identifier: String
    }

    package init() {}

    /// Live samples by key: a copy, for tests and small states (`entry`, `liveKeys` and
    /// `forEachLive` do not copy).
    package var live: [Key: Entry] { slots.mapValues { entries[$0] } }

    /// How many samples are live.
    package var liveCount: Int { slots.count }

    /// The keys of the live samples, in no particular order.
    package var liveKeys: Dictionary<Key, Int>.Keys { slots.keys }

    /// Calls `body` with each live sample, in no particular order.
    package func forEachLive(_ body: (Key, Entry) -> Void) {
        for (key, slot) in slots { body(key, entries[slot]) }
    }

    package func entry(_ key: Key) -> Entry? { slots[key].map { entries[$0] } }

    package func isDeleted(_ key: Key) -> Bool { !tombstones.isEmpty && tombstones.contains(key) }

    /// The key holding a sync identifier now, if any.
    func holder(ofSyncIdentifier identifier: String, user: UInt32, provider: UInt32) -> Key? {
        bySyncIdentifier[SyncKey(user: user, provider: provider, identifier: identifier)]
    }

    /// Sets the live entry of `key` (replacing any).
    mutating func set(_ key: Key, _ entry: Entry) {
        // One hash of the key: a new key takes the slot offered, and the count tells it is new.
        let count = slots.count
        let offered = freeSlots.last ?? entries.count
        func take(_ slot: inout Int) -> Int { slot }
        let slot = take(&slots[key, default: offered])
        var old: Entry?
        if slots.count == count {
            old = entries[slot]
            entries[slot] = entry
        } else if slot == entries.count {
            entries.append(entry)
        } else {
            freeSlots.removeLast()
            entries[slot] = entry
        }
        if let old = old?.syncIdentifier {
            bySyncIdentifier[SyncKey(user: key.user, provider: key.provider, identifier: old)] = nil
        }
        if let identifier = entry.syncIdentifier {
            bySyncIdentifier[SyncKey(user: key.user, provider: key.provider, identifier: identifier)] = key
        }
    }

    /// Removes a live sample or notes a tombstone; returns the sample that was live.
    @discardableResult
    mutating func delete(_ key: Key) -> Entry? {
        tombstones.insert(key)
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        let old = entries[slot]
        freeSlots.append(slot)
        if let identifier = old.syncIdentifier {
            let syncKey = SyncKey(user: key.user, provider: key.provider, identifier: identifier)
            if bySyncIdentifier[syncKey] == key { bySyncIdentifier[syncKey] = nil }
        }
        return old
    }
}
