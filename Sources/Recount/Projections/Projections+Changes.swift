extension Projections {
    /// A cell named by its user's string, so two folds with other interning can be compared.
    package struct NamedCell: Hashable, Sendable {
        package var user: String
        package var metric: Metric
        package var day: CivilDay
    }

    /// How `rollups` reads each cell with a rollup, by named cell: an unknown day without
    /// figures (never a 0, contract §3 rule 8), so a feed gives a cell's old reading as it gave
    /// its new one.
    package func rollupReadings() -> [NamedCell: RollupRow.Reading] {
        var readings: [NamedCell: RollupRow.Reading] = [:]
        var reader: RunReader?
        // In cell order, so that the cells come a user's metric at a time.
        for (key, stored) in rollups.sortedByKey() {
            readings[NamedCell(user: users[key.user], metric: key.metric, day: key.day)] = reading(
                of: key, stored, &reader)
        }
        return readings
    }

    /// The day reader of one user's metric, for cells read a user's metric at a time.
    typealias RunReader = (user: UInt32, metric: Metric, reader: DayReader)

    /// How `rollups` reads the cell `key`, with `reader` the day reader of the cell read before
    /// it: kept while the cells are of the same user's metric, made anew for another.
    private func reading(of key: CellKey, _ stored: StoredRollup, _ reader: inout RunReader?) -> RollupRow.Reading {
        if reader?.user != key.user || reader?.metric != key.metric {
            reader = (key.user, key.metric, dayReader(user: key.user, metric: key.metric, asOf: nil))
        }
        return reader!.reader.reading(of: key.day, stored)
    }

    /// The users (or only `user`) with a cell whose version is above `version`.
    package func usersWithChanges(since version: UInt64, user: String?) -> Set<String> {
        var moved = Set<UInt32>()
        for (key, stored) in rollups where stored.version > version { moved.insert(key.user) }
        return Set(moved.map { users[$0] }.filter { user == nil || $0 == user })
    }

    /// The cells whose version is above `version` and at most `last`, with their reading in
    /// `before` (the projections folded up to `version`) and now (known, partial or unknown, as
    /// `rollups` reads them), ordered by user, metric and day.
    package func changes(
        since version: UInt64, through last: UInt64 = .max, before: [NamedCell: RollupRow.Reading], user: String?
    ) -> [CellChangeRow] {
        var reader: RunReader?
        return rollups.filter { key, stored in
            stored.version > version && stored.version <= last && (user == nil || users[key.user] == user)
        }.sorted { a, b in
            a.key.user == b.key.user ? a.key < b.key : users[a.key.user] < users[b.key.user]
        }.map { key, stored in
            let name = users[key.user]
            // Rows come a user's metric at a time.
            return CellChangeRow(
                user: name, metric: key.metric.name, date: "\(key.day)", version: stored.version,
                old: before[NamedCell(user: name, metric: key.metric, day: key.day)],
                new: reading(of: key, stored, &reader))
        }
    }
}
