extension Projections {
    /// The most days one `rollups` query returns.
    package static let maximumQueryDays = 3_660

    /// One row per day from `from` to `to` inclusive (the days the user has rollups for when
    /// not given). Until sync state is folded, a day with a rollup is `partial` and a day
    /// without one `unknown`: no day is `known` yet (contract §3 rule 8).
    package func rollupRows(user: String, metric: Metric, from: CivilDay?, to: CivilDay?) throws(QueryError)
        -> [RollupRow]
    {
        let userID = users.id(of: user)
        let stored = userID.map { id in rollups.filter { $0.key.user == id && $0.key.metric == metric } } ?? [:]
        guard let first = from ?? stored.keys.map(\.day).min(), let last = to ?? stored.keys.map(\.day).max() else {
            return []
        }
        guard first <= last else { throw QueryError(.invalidDate, "--from \(first) is after --to \(last)") }
        guard Int(last.daysSinceEpoch) - Int(first.daysSinceEpoch) < Self.maximumQueryDays else {
            throw QueryError(.rangeTooLong, "at most \(Self.maximumQueryDays) days can be asked for at once")
        }
        return (first.daysSinceEpoch...last.daysSinceEpoch).map { days in
            let day = CivilDay(daysSinceEpoch: days)
            var row = RollupRow(
                user: user, metric: metric.name, date: "\(day)", state: .unknown, values: [],
                unit: metric.canonicalUnit,
                version: nil)
            if let id = userID, let rollup = stored[CellKey(user: id, metric: metric, day: day)] {
                row.state = .partial
                row.values = Self.values(of: rollup.cell)
                row.version = rollup.version
            }
            return row
        }
    }

    /// The figures of a cell in the contract's order.
    static func values(of cell: RollupCell) -> [RollupRow.Value] {
        var values: [RollupRow.Value] = []
        func add(_ name: String, _ value: Double?) {
            if let value { values.append(RollupRow.Value(name: name, value: value)) }
        }
        switch cell.metric {
        case .steps, .distance, .activeEnergy, .sleep:
            add("value", cell.value ?? 0)
        case .workout:
            add("count", Double(cell.count))
            add("value", cell.value ?? 0)
        case .heartRate, .bloodGlucose:
            add("count", Double(cell.count))
            add("min", cell.minimum)
            add("max", cell.maximum)
            add("mean", cell.value)
        case .weight:
            add("count", Double(cell.count))
            add("latest", cell.value)
            add("min", cell.minimum)
            add("max", cell.maximum)
        }
        return values
    }

    /// The live samples of one user's metric on one day, in time order.
    package func sampleRows(user: String, metric: Metric, day: CivilDay) -> [SampleRow] {
        guard let userID = users.id(of: user), let keys = cells[CellKey(user: userID, metric: metric, day: day)] else {
            return []
        }
        let order = keyOrder
        return keys.compactMap { key -> (IdIndex.Key, IdIndex.Entry)? in index.entry(key).map { (key, $0) } }
            .sorted { a, b in
                (a.1.sample.startMillis, a.1.sample.endMillis) != (b.1.sample.startMillis, b.1.sample.endMillis)
                    ? (a.1.sample.startMillis, a.1.sample.endMillis) < (b.1.sample.startMillis, b.1.sample.endMillis)
                    : order(a.0, b.0)
            }
            .map { key, entry in
                let sample = entry.sample
                let source = sources[Int(sample.source.rawValue)]
                return SampleRow(
                    provider: providers[key.provider], id: key.id.text,
                    start: RFC3339.format(millis: sample.startMillis, offsetSeconds: sample.startOffset),
                    end: RFC3339.format(millis: sample.endMillis, offsetSeconds: sample.endOffset), value: sample.value,
                    originalValue: entry.originalValue, originalUnit: entry.unitSymbol, stage: sample.stage?.name,
                    origin: source.origin, device: source.device, position: sample.position)
            }
    }

    /// The dirty set, sorted by user, provider, metric and day.
    package func dirtyRows() -> [DirtyDay] {
        dirty.days.map { key, position in
            DirtyDay(
                user: users[key.user], provider: providers[key.provider], metric: key.metric.name, date: "\(key.day)",
                position: position)
        }.sorted { ($0.user, $0.provider, $0.metric, $0.date) < ($1.user, $1.provider, $1.metric, $1.date) }
    }
}
