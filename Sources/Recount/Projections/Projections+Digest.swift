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
        for (key, entry) in sortedLive() {
            writeKey(key, &out)
            Self.writeEntry(entry, &out, sources: sources)
            if out.bytes.count > 1 << 16 { flush() }
        }

        out.append("tombstones")
        for key in index.tombstones.sorted(by: keyOrder) {
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

    /// The live entries in key order (user, provider, id as text). Keys are sorted with their
    /// id numbers, and each entry is built from its number as the sequence is read.
    package func sortedLive() -> LazyMapSequence<
        [(key: IdIndex.Key, number: Int)], (key: IdIndex.Key, value: IdIndex.Entry)
    > {
        let index = index
        let order = keyOrder
        var keyed: [(key: IdIndex.Key, number: Int)] = []
        keyed.reserveCapacity(index.liveCount)
        index.forEachLiveNumber { keyed.append((index.key($0), $0)) }
        keyed.sort { order($0.key, $1.key) }
        return keyed.lazy.map { key, number in (key, index.entry(number: number, id: key.id)) }
    }

    /// Orders keys by their strings: user, provider, id text. The users and providers are
    /// ranked by their strings once, so sorting a million keys compares integers.
    package var keyOrder: (IdIndex.Key, IdIndex.Key) -> Bool {
        let userRank = users.ranks()
        let providerRank = providers.ranks()
        return { a, b in
            if a.user != b.user { return userRank[Int(a.user)] < userRank[Int(b.user)] }
            if a.provider != b.provider { return providerRank[Int(a.provider)] < providerRank[Int(b.provider)] }
            return a.id.textPrecedes(b.id)
        }
    }

    /// Writes a live entry's fields (all but its key), its source by origin and device (not by
    /// its interned id). Static, with the sources passed in: a method would copy the projections.
    static func writeEntry(_ entry: IdIndex.Entry, _ out: inout CanonicalBytes, sources: [Source]) {
        let sample = entry.sample
        out.append(sample.metric.rawValue)
        out.append(sample.startMillis)
        out.append(sample.startOffset)
        out.append(sample.endMillis)
        out.append(sample.endOffset)
        out.append(sample.zone) { $0.append($1) }
        out.append(sample.value) { $0.append($1) }
        out.append(sample.stage) { $0.append($1.rawValue) }
        let source = sources[Int(sample.source.rawValue)]
        out.append(source.origin)
        out.append(source.device) { $0.append($1) }
        out.append(sample.position)
        out.append(entry.receivedAt)
        out.append(entry.lastModified) { $0.append($1) }
        out.append(entry.syncIdentifier) { $0.append($1) }
        out.append(entry.syncVersion) { $0.append($1) }
        out.append(entry.unitSymbol) { $0.append($1) }
        out.append(entry.originalValue) { $0.append($1) }
        out.append(entry.activity) { $0.append($1.rawValue) }
        out.append(entry.distance) { $0.append($1) }
        out.append(entry.energy) { $0.append($1) }
    }

    private func writeKey(_ key: IdIndex.Key, _ out: inout CanonicalBytes) {
        out.append(users[key.user])
        out.append(providers[key.provider])
        out.append(key.id)
    }
}
