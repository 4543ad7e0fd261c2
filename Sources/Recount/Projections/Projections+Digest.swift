extension Projections {
    /// The SHA-256 of the projections' canonical serialisation (`docs/projections.md`): a
    /// function of the projections' content only, never of hash-table order, interning order
    /// or the store.
    package func digest() -> [UInt8] {
        var hash = SHA256()
        var out = CanonicalBytes()
        func flush() { out.flush { hash.update($0) } }
        out.append("recount projections v1")
        out.append(zones.dataVersion)

        out.append("live")
        forEachIdInKeyOrder(.live) { key, record in
            writeKey(key, &out)
            Self.writeFields(record, of: index, sources: sources, &out)
            if out.bytes.count > 1 << 16 { flush() }
        }

        out.append("tombstones")
        forEachIdInKeyOrder(.deleted) { key, _ in
            writeKey(key, &out)
            if out.bytes.count > 1 << 16 { flush() }
        }

        out.append("dirty")
        let dirtyDays = dirty.days.sorted { a, b in
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

        out.append("config")
        writeConfig(&out)
        out.append("sync")
        writeSync(&out, counters: false)
        // `out` is passed in, not captured: a closure capturing it while `writeRollups` holds it
        // inout was an exclusivity violation (a trap) once the rollups passed 64 KiB.
        writeRollups(&out) { bytes in bytes.flush { hash.update($0) } }
        flush()
        return hash.finalize()
    }

    /// Calls `body` with the key and record of each id in `state` (live or deleted), in key
    /// order: user by user in the order of their strings, and within a user by provider, then
    /// id text. Ids are sorted as plain integers: providers are ranked by their strings once,
    /// UUIDs of one case order by their bits as their texts do, and only other ids compare
    /// texts. Sorting one user's ids at a time keeps each sort in cache.
    func forEachIdInKeyOrder(_ state: IdIndex.Record.State, _ body: (IdIndex.Key, IdIndex.Record) -> Void) {
        let providerRank = providers.ranks()
        var order: [KeyOrder] = []
        var gathered: [(key: IdIndex.StoredKey, record: IdIndex.Record)] = []
        gathered.reserveCapacity(Self.gatherBatch)
        for user in users.idsInStringOrder() {
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
