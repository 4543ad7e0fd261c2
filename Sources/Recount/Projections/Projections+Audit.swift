extension Projections {
    /// The current rollup of one cell and, for merged metrics (sums and sleep), what each
    /// source counted and what the overlap merge suppressed; `nil` when the cell has none.
    /// - Parameter clock: the engine's clock (epoch millis): a day not ended by then is not known.
    package func audit(user: String, metric: Metric, day: CivilDay, clock: Int64? = nil) -> CellAudit? {
        guard let userID = users.id(of: user), let stored = rollups[CellKey(user: userID, metric: metric, day: day)]
        else { return nil }
        func name(_ id: SourceID) -> (origin: String, device: String?) {
            let source = sources[Int(id.rawValue)]
            return (source.origin, source.device)
        }
        // A source is called by its device (else its origin), and by its origin too when another
        // source of the cell has that name: "iPhone 500 counted, 600 suppressed by iPhone" read
        // as the phone suppressing itself, where another app on it had (a docs audit).
        let named = Set(stored.cell.sources.flatMap { [$0.source] + ($0.suppressedBy.map { [$0] } ?? []) })
        var sharing: [String: Int] = [:]
        for id in named { sharing[name(id).device ?? name(id).origin, default: 0] += 1 }
        func label(_ id: SourceID) -> String {
            let (origin, device) = name(id)
            let short = device ?? origin
            return sharing[short, default: 0] > 1 && device != nil ? "\(short) (\(origin))" : short
        }
        let shares = stored.cell.sources.map { share in
            CellAudit.SourceShare(
                origin: name(share.source).origin, device: name(share.source).device, samples: share.samples,
                counted: share.counted, countedSeconds: Double(share.countedMillis) / 1000,
                suppressed: share.suppressed,
                suppressedSeconds: Double(share.suppressedMillis) / 1000,
                suppressedBy: share.suppressedBy.map(label),
                suppressedByOrigin: share.suppressedBy.map { name($0).origin },
                suppressedByDevice: share.suppressedBy.flatMap { name($0).device })
        }.sorted { ($0.origin, $0.device ?? "") < ($1.origin, $1.device ?? "") }
        let reading = dayReader(user: userID, metric: metric, asOf: nil, clock: clock).reading(of: day, stored)
        return CellAudit(
            user: user, metric: metric.name, date: "\(day)", values: Self.values(of: stored.cell),
            state: reading.state, reason: reading.reason, unit: metric.canonicalUnit, version: stored.version,
            sources: shares,
            summary: stored.cell.describe(
                naming: label,
                ordering: { sources[Int($0.rawValue)].namePrecedes(sources[Int($1.rawValue)]) }),
            history: [])
    }
}
