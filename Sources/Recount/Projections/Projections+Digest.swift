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
        for number in sortedByKey(index.numbers(in: .live)) {
            writeKey(index.key(number), &out)
            Self.writeFields(index.record(number), of: index, sources: sources, &out)
            if out.bytes.count > 1 << 16 { flush() }
        }

        out.append("tombstones")
        for number in sortedByKey(index.numbers(in: .deleted)) {
            writeKey(index.key(number), &out)
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

    /// Id numbers in key order (user, provider, id text), sorted as plain integers: the users
    /// and providers are ranked by their strings once, UUIDs of one case order by their bits as
    /// their texts do, and only other ids compare texts.
    func sortedByKey(_ numbers: [Int]) -> [Int] {
        let userRank = users.ranks()
        let providerRank = providers.ranks()
        var order = numbers.map { number in
            let key = index.storedKey(number: number)
            return KeyOrder(
                owner: UInt64(userRank[Int(key.user)]) << 32 | UInt64(providerRank[Int(key.provider)]),
                high: key.high, low: key.low, kind: key.kind, number: UInt32(number))
        }
        order.sort { a, b in
            if a.owner != b.owner { return a.owner < b.owner }
            if a.kind == b.kind && a.kind < 2 { return (a.high, a.low) < (b.high, b.low) }
            return index.key(Int(a.number)).id.textPrecedes(index.key(Int(b.number)).id)
        }
        return order.map { Int($0.number) }
    }

    /// An id's place in the digest's order: its owner's ranks, then its stored key.
    private struct KeyOrder {
        var owner: UInt64
        var high: UInt64
        var low: UInt64
        var kind: UInt32
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
