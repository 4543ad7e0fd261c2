extension Projections {
    /// The stored cursor and state of one channel, or `nil` when the user has no such channel.
    package func cursorRow(user: String, provider: String, metric: Metric) -> CursorRow? {
        guard let userID = users.id(of: user), let providerID = providers.id(of: provider),
            let state = syncStates[SyncKey(user: userID, provider: providerID, metric: metric)]
        else { return nil }
        func time(_ millis: Int64?) -> String? { millis.map { RFC3339.format(millis: $0, offsetSeconds: 0) } }
        func times(_ ranges: [Range<Int64>]) -> [TimeWindow] {
            ranges.map { TimeWindow(from: time($0.lowerBound)!, to: time($0.upperBound)!) }
        }
        let windows = state.recoveryWindows
        return CursorRow(
            user: user, provider: provider, metric: metric.name, cursor: state.cursor,
            kind: state.cursorKind.map { $0 == .healthKitAnchor ? "healthkit.anchor" : "healthconnect.token" },
            state: windows.isEmpty ? "ok" : "needs_recovery", recoveryWindows: times(windows),
            unrecoverable: times(state.lost),
            lastCheckinAt: time(state.lastCheckinAt), lastSampleAt: time(state.lastSampleAt),
            fullRedeliveries: state.fullRedeliveries, lastFullRedelivery: state.lastFullRedelivery, stuck: state.isStuck
        )
    }

    /// The stale channels at `asOf` (epoch millis) and, per provider and cohort, the fraction
    /// of users with a stale channel.
    package func staleReport(asOf: Int64) -> StaleReport {
        var rows: [StaleReport.Row] = []
        var users: [FractionKey: Set<String>] = [:]
        var stale: [FractionKey: Set<String>] = [:]
        for (key, state) in sortedSyncStates() {
            let user = self.users[key.user]
            let provider = providers[key.provider]
            let setting = providerSetting(user: user, provider: provider, asOf: asOf)
            let group = FractionKey(provider: provider, cohort: setting.cohort)
            // A channel its client had not opened yet then is left out; one opened that never
            // checked in is stale (the seed's `last_client_checkin_at is null`).
            guard state.isOpened(asOf: asOf) else { continue }
            let checkin = state.lastCheckin(receivedBy: asOf)
            users[group, default: []].insert(user)
            // Stale when the check-in is older than the interval, to the millisecond (86,400.999 s
            // of silence against 86,400 was not stale). The silence shown is in whole seconds,
            // rounded up, so a stale row shows more than its interval (7,200.001 s showed 7,200
            // against 7,200; an oracle run).
            guard checkin.map({ asOf - $0 > setting.seconds * 1000 }) ?? true else { continue }
            let silence = checkin.map { (asOf - $0 + 999) / 1000 }
            stale[group, default: []].insert(user)
            rows.append(
                StaleReport.Row(
                    user: user, provider: provider, metric: key.metric.name, cohort: setting.cohort,
                    lastCheckinAt: checkin.map { RFC3339.format(millis: $0, offsetSeconds: 0) },
                    silenceSeconds: silence, expectedSeconds: setting.seconds))
        }
        let fractions = users.map { group, members in
            StaleReport.Fraction(
                provider: group.provider, cohort: group.cohort, users: members.count,
                staleUsers: stale[group]?.count ?? 0)
        }.sorted { ($0.provider, $0.cohort ?? "") < ($1.provider, $1.cohort ?? "") }
        return StaleReport(asOf: RFC3339.format(millis: asOf, offsetSeconds: 0), rows: rows, fractions: fractions)
    }

    private struct FractionKey: Hashable {
        var provider: String
        var cohort: String?
    }
}
