extension Projections {
    /// A cell named by its user's string, so two folds with other interning can be compared.
    package struct NamedCell: Hashable, Sendable {
        package var user: String
        package var metric: Metric
        package var day: CivilDay
    }

    /// The rollups whose version is above `version`: among the cells the engine noted moving
    /// since (`FeedReadings`), else among every rollup.
    private func rollups(movedAfter version: UInt64) -> [(key: CellKey, value: StoredRollup)] {
        guard let cells = feed.cellsMoved(after: version) else { return rollups.filter { $0.value.version > version } }
        return cells.compactMap { cell in rollups[cell].flatMap { $0.version > version ? (cell, $0) : nil } }
    }

    /// How `rollups` reads each of `cells`, a rollup or not: an unknown day without figures
    /// (never a 0, contract §3 rule 8) and a known day without a rollup as a known 0, so a feed
    /// gives a cell's old reading as `rollups` gave it (a cell without a rollup then was `null`,
    /// which told a known 0 from an unknown day no better than a 0 would; an attack run).
    package func readings(of cells: [NamedCell]) -> [NamedCell: RollupRow.Reading] {
        var readings: [NamedCell: RollupRow.Reading] = [:]
        var reader: RunReader?
        // A user's metric at a time, so that each day reader serves a run of cells.
        for cell in cells.sorted(by: { ($0.user, $0.metric.rawValue) < ($1.user, $1.metric.rawValue) }) {
            guard let user = users.id(of: cell.user) else {
                readings[cell] = dayReader(user: nil, metric: cell.metric, asOf: nil).reading(of: cell.day, nil)
                continue
            }
            let key = CellKey(user: user, metric: cell.metric, day: cell.day)
            readings[cell] = reading(of: key, rollups[key], &reader)
        }
        return readings
    }

    /// The day reader of one user's metric, for cells read a user's metric at a time.
    typealias RunReader = (user: UInt32, metric: Metric, reader: DayReader)

    /// How `rollups` reads the cell `key`, with `reader` the day reader of the cell read before
    /// it: kept while the cells are of the same user's metric, made anew for another.
    private func reading(of key: CellKey, _ stored: StoredRollup?, _ reader: inout RunReader?) -> RollupRow.Reading {
        if reader?.user != key.user || reader?.metric != key.metric {
            reader = (key.user, key.metric, dayReader(user: key.user, metric: key.metric, asOf: nil))
        }
        return reader!.reader.reading(of: key.day, stored)
    }

    /// A cell whose version moved, with its version and its reading now.
    package struct MovedCell {
        package var cell: NamedCell
        package var version: UInt64
        package var new: RollupRow.Reading
        /// Its reading at the version asked about, when the projections kept it
        /// (`FeedReadings`; `nil`: only a replay can tell).
        package var old: RollupRow.Reading?
    }

    /// The cells (of every user, or only of `user`) whose version is above `version`, with
    /// their reading now (known, partial or unknown, as `rollups` reads them) and, where kept,
    /// then, ordered by user, metric and day.
    package func movedCells(since version: UInt64, user: String?) -> [MovedCell] {
        var reader: RunReader?
        // The cells moved since, as the engine noted them (`FeedReadings`), else every rollup.
        let moved = rollups(movedAfter: version)
        assert(
            moved.map(\.key).sorted() == rollups.filter { $0.value.version > version }.map(\.key).sorted(),
            "the moves noted are not the rollups' versions")
        return moved.filter { key, _ in user == nil || users[key.user] == user }.sorted { a, b in
            a.key.user == b.key.user ? a.key < b.key : users[a.key.user] < users[b.key.user]
        }.map { key, stored in
            // Cells come a user's metric at a time.
            MovedCell(
                cell: NamedCell(user: users[key.user], metric: key.metric, day: key.day), version: stored.version,
                new: reading(of: key, stored, &reader), old: reading(of: key, at: version))
        }
    }
}
