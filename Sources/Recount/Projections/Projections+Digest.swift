/// The parts of the digest's canonical serialisation, in order (`docs/projections.md`). Each
/// part's entries are ordered by user first, so the entries of users taken in groups that are
/// contiguous in that order, written group after group, are the whole part's entries.
package enum DigestPart: CaseIterable, Sendable {
    case live, tombstones, dirty, priorities, ownOrigins, syncStates, providerSettings, rollups

    /// The label written before the part's entries, if any.
    var label: String? {
        switch self {
        case .live: "live"
        case .tombstones: "tombstones"
        case .dirty: "dirty"
        case .priorities: "config"
        case .syncStates: "sync"
        case .rollups: "rollups"
        case .ownOrigins, .providerSettings: nil
        }
    }

    /// Whether the part's entries are preceded by their count.
    var isCounted: Bool { countWidth != nil }

    /// The byte width of the count before the entries (`UInt32` or `UInt64`), if any.
    private var countWidth: Int? {
        switch self {
        case .priorities, .ownOrigins: 4
        case .syncStates, .providerSettings: 8
        case .live, .tombstones, .dirty, .rollups: nil
        }
    }

    /// Writes `count` at the part's width.
    func writeCount(_ count: Int, _ out: inout CanonicalBytes) {
        switch countWidth {
        case 4: out.append(UInt32(count))
        case 8: out.append(UInt64(count))
        default: preconditionFailure("the \(self) part has no count")
        }
    }
}

/// The digest's canonical bytes streamed into SHA-256: the header, then each part's label,
/// count and entries, in `DigestPart` order.
package struct DigestStream {
    private var hash = SHA256()
    private var out = CanonicalBytes()

    package init(zoneDataVersion: String) {
        out.append("recount projections v6")
        out.append(zoneDataVersion)
    }

    /// Starts `part`: its label, then `count` when the part is counted (else `nil`).
    package mutating func begin(_ part: DigestPart, count: Int?) {
        precondition(part.isCounted == (count != nil), "a count is given exactly for counted parts")
        if let label = part.label { out.append(label) }
        if let count { part.writeCount(count, &out) }
    }

    /// Appends entry bytes, consuming them.
    package mutating func append(_ entries: inout CanonicalBytes) {
        out.flush { hash.update($0) }
        entries.flush { hash.update($0) }
    }

    /// Appends entry bytes.
    package mutating func append(_ entries: UnsafeRawBufferPointer) {
        out.flush { hash.update($0) }
        hash.update(entries)
    }

    package mutating func finalize() -> [UInt8] {
        out.flush { hash.update($0) }
        return hash.finalize()
    }
}

extension Projections {
    /// The SHA-256 of the projections' canonical serialisation (`docs/projections.md`): a
    /// function of the projections' content only, never of hash-table order, interning order
    /// or the store.
    package func digest() -> [UInt8] {
        var stream = DigestStream(zoneDataVersion: zones.dataVersion)
        for part in DigestPart.allCases {
            var entries = CanonicalBytes()
            if part.isCounted {
                stream.begin(part, count: writeDigestEntries(part, of: nil, &entries) { _ in })
            } else {
                stream.begin(part, count: nil)
                _ = writeDigestEntries(part, of: nil, &entries) { stream.append(&$0) }
            }
            stream.append(&entries)
        }
        return stream.finalize()
    }

    /// Writes the digest entries of `part` whose user is in `kept` (every user's when `nil`),
    /// handing `flush` the bytes whenever they pass 64 KiB; returns how many entries it wrote.
    package func writeDigestEntries(
        _ part: DigestPart, of kept: Set<String>?, _ out: inout CanonicalBytes, flush: (inout CanonicalBytes) -> Void
    ) -> Int {
        var count = 0
        switch part {
        case .live, .tombstones:
            let state: IdIndex.Record.State = part == .live ? .live : .deleted
            forEachIdInKeyOrder(state, of: kept) { key, record in
                writeKey(key, &out)
                if state == .live {
                    Self.writeFields(record, of: index, sources: sources, &out)
                } else {
                    // A reconcile's tombstone: what a write must follow to bring it back.
                    out.append(record.reconciled) {
                        $0.append($1.at)
                        $0.append($1.deletedVersion)
                    }
                }
                count += 1
                if out.bytes.count > 1 << 16 { flush(&out) }
            }
        case .dirty:
            let dirtyDays = dirty.days.lazy.filter { kept?.contains(users[$0.key.user]) ?? true }.sorted { a, b in
                (users[a.key.user], providers[a.key.provider], a.key.metric.rawValue, a.key.day.daysSinceEpoch)
                    < (users[b.key.user], providers[b.key.provider], b.key.metric.rawValue, b.key.day.daysSinceEpoch)
            }
            for (key, version) in dirtyDays {
                out.append(users[key.user])
                out.append(providers[key.provider])
                out.append(key.metric.rawValue)
                out.append(key.day.daysSinceEpoch)
                out.append(version)
            }
            count = dirtyDays.count
        case .priorities: count = writePriorityEntries(of: kept, &out)
        case .ownOrigins: count = writeOwnOriginEntries(of: kept, &out)
        case .syncStates: count = writeSyncStateEntries(of: kept, counters: false, &out)
        case .providerSettings: count = writeProviderSettingEntries(of: kept, history: false, &out)
        case .rollups: count = writeRollups(of: kept, &out, flush: flush)
        }
        return count
    }

    /// Calls `body` with the key and record of each id in `state` (live or deleted) of the
    /// users in `kept` (every user's when `nil`), in key order: user by user in the order of
    /// their strings, and within a user by provider, then id text. Ids are sorted as plain
    /// integers: providers are ranked by their strings once, UUIDs of one case order by their
    /// bits as their texts do, and only other ids compare texts. Sorting one user's ids at a
    /// time keeps each sort in cache.
    func forEachIdInKeyOrder(
        _ state: IdIndex.Record.State, of kept: Set<String>? = nil, _ body: (IdIndex.Key, IdIndex.Record) -> Void
    ) {
        let providerRank = providers.ranks()
        var order: [KeyOrder] = []
        var gathered: [(key: IdIndex.StoredKey, record: IdIndex.Record)] = []
        gathered.reserveCapacity(Self.gatherBatch)
        for user in users.idsInStringOrder() where kept?.contains(users[user]) ?? true {
            order.removeAll(keepingCapacity: true)
            index.forEachNumber(ofUser: user, in: state) { number in
                let key = index.storedKey(number: number)
                order.append(
                    KeyOrder(
                        provider: providerRank[Int(key.provider)], kind: key.kind, high: key.high, low: key.low,
                        number: UInt32(number)))
            }
            order.sort { a, b in
                if a.provider != b.provider { return a.provider < b.provider }
                if a.kind == b.kind && a.kind < 2 { return (a.high, a.low) < (b.high, b.low) }
                return index.key(Int(a.number)).id.textPrecedes(index.key(Int(b.number)).id)
            }
            // A batch's records are read first, in a loop of loads only, so that their cache
            // misses overlap; writing each entry in between left one miss at a time.
            for start in stride(from: 0, to: order.count, by: Self.gatherBatch) {
                gathered.removeAll(keepingCapacity: true)
                for place in start..<min(order.count, start + Self.gatherBatch) {
                    let number = Int(order[place].number)
                    gathered.append((index.storedKey(number: number), index.record(number)))
                }
                for (key, record) in gathered { body(index.key(key), record) }
            }
        }
    }

    /// How many records `forEachIdInKeyOrder` reads ahead of writing them.
    private static let gatherBatch = 64

    /// An id's place in its user's part of the digest's order: its provider's rank, then its
    /// stored key.
    private struct KeyOrder {
        var provider: UInt32
        var kind: UInt32
        var high: UInt64
        var low: UInt64
        var number: UInt32
    }

    /// Writes a live record's fields (all but its key) in one block: its strings by text, its
    /// source by origin and device (not by interned id). Static, with the index and sources
    /// passed in: a method would copy the projections.
    static func writeFields(_ record: IdIndex.Record, of index: IdIndex, sources: [Source], _ out: inout CanonicalBytes)
    {
        out.appendFields(
            LiveFields(
                record: record, zone: index.string(record.zone), source: sources[Int(record.source.rawValue)],
                syncIdentifier: index.string(record.syncIdentifier), unitSymbol: index.string(record.unitSymbol)))
    }

    /// A live record's fields in the digest's order, its strings looked up.
    private struct LiveFields: CanonicalFields {
        let record: IdIndex.Record
        let zone: String?
        let source: Source
        let syncIdentifier: String?
        let unitSymbol: String?

        func write<Sink: BlockFieldSink>(to sink: inout Sink) {
            sink.put(record.metric.rawValue)
            sink.put(record.startMillis)
            sink.put(record.startOffset)
            sink.put(record.endMillis)
            sink.put(record.endOffset)
            sink.put(zone)
            sink.put(record.value)
            sink.put(record.stage?.rawValue)
            sink.put(source.origin)
            sink.put(source.device)
            sink.put(record.position)
            sink.put(record.receivedAt)
            sink.put(record.lastModified)
            sink.put(syncIdentifier)
            sink.put(record.syncVersion)
            sink.put(unitSymbol)
            sink.put(record.originalValue)
            sink.put(record.activity?.rawValue)
            sink.put(record.distance)
            sink.put(record.energy)
        }
    }

    /// A key's user, provider and id text.
    private struct KeyFields: CanonicalFields {
        let user: String
        let provider: String
        let id: SampleID

        func write<Sink: BlockFieldSink>(to sink: inout Sink) {
            sink.put(user)
            sink.put(provider)
            sink.put(id)
        }
    }

    private func writeKey(_ key: IdIndex.Key, _ out: inout CanonicalBytes) {
        out.appendFields(KeyFields(user: users[key.user], provider: providers[key.provider], id: key.id))
    }
}
