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
        for (key, origins) in priorities.sorted(by: {
            ($0.key.user, $0.key.metric.rawValue) < ($1.key.user, $1.key.metric.rawValue)
        }) {
            out.append(key.user)
            out.append(key.metric.rawValue)
            out.append(UInt32(origins.count))
            for origin in origins { out.append(origin) }
        }
        for (user, origins) in ownOrigins.sorted(by: { $0.key < $1.key }) {
            out.append(user)
            out.append(UInt32(origins.count))
            for origin in origins.sorted() { out.append(origin) }
        }
        writeRollups(&out, flush: flush)
        flush()
        return hash.finalize()
    }

    /// The live entries in key order (user, provider, id as text).
    package func sortedLive() -> [(key: IdIndex.Key, value: IdIndex.Entry)] {
        index.live.sorted { keyOrder($0.key, $1.key) }
    }

    /// Orders keys by their strings: user, provider, id text.
    package func keyOrder(_ a: IdIndex.Key, _ b: IdIndex.Key) -> Bool {
        if a.user != b.user { return users[a.user] < users[b.user] }
        if a.provider != b.provider { return providers[a.provider] < providers[b.provider] }
        return a.id.text < b.id.text
    }

    private func writeKey(_ key: IdIndex.Key, _ out: inout CanonicalBytes) {
        out.append(users[key.user])
        out.append(providers[key.provider])
        out.append(key.id.text)
    }
}
