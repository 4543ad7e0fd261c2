extension Projections {
    /// What the projections hold, and per provider how its channels sync.
    package func stats() -> EngineStats {
        var byProvider: [String: EngineStats.ProviderStats] = [:]
        var usersByProvider: [String: Set<UInt32>] = [:]
        for (key, state) in syncStates {
            let provider = providers[key.provider]
            var row = byProvider[provider] ?? EngineStats.ProviderStats(provider: provider)
            row.channels += 1
            usersByProvider[provider, default: []].insert(key.user)
            if !state.recoveryWindows.isEmpty { row.needsRecovery += 1 }
            if !state.lost.isEmpty { row.unrecoverable += 1 }
            if state.isStuck { row.stuck += 1 }
            row.fullRedeliveries += state.fullRedeliveries
            row.redeliveredNew += state.redeliveredSamples.new
            row.redeliveredKnown += state.redeliveredSamples.known
            byProvider[provider] = row
        }
        let providerRows = byProvider.values.map { row in
            var row = row
            row.users = usersByProvider[row.provider]?.count ?? 0
            return row
        }.sorted { $0.provider < $1.provider }
        let defaultsUser = users.id(of: "*") == nil ? 0 : 1
        return EngineStats(
            position: position, users: users.strings.count - defaultsUser, liveSamples: index.liveCount,
            deletedIds: index.tombstoneCount, rollups: rollups.count, dirtyDays: dirty.count, providers: providerRows)
    }
}
