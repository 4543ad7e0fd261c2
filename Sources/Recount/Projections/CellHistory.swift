package import RecountLog

/// Every version one (user, metric, day) cell has had, by replaying that user's history: the
/// answer to "why is Tuesday's number what it is".
package enum CellHistory {
    /// Replays `user`'s records (and the `*` config defaults) from `reader` and records, after
    /// each envelope that changed the cell's inputs, the cell's new value and what changed it.
    package static func versions(
        _ reader: LogReader, user: String, metric: Metric, day: CivilDay
    ) throws -> [CellAudit.Version] {
        var projections = Projections()
        var versions: [CellAudit.Version] = []
        let concerned = UserFilter([user])
        try reader.forEach { record in
            guard concerned.concerns(record.bytes) else { return }
            let envelope = try record.envelope()
            let before = projections.members(user: user, metric: metric, day: day)
            func cell() -> Projections.CellKey? {
                projections.users.id(of: user).map { Projections.CellKey(user: $0, metric: metric, day: day) }
            }
            let version = cell().flatMap { projections.rollups[$0]?.version }
            _ = projections.apply(envelope, at: record.position)
            guard let cell = cell() else { return }
            if projections.isDirty(cell) {
                // This cell alone is read: no other is rebuilt.
                projections.recomputeDroppingOthers(cell)
            } else if projections.rollups[cell]?.version == version {
                // Neither its inputs nor its reading moved (a day a check-in made known moves its version alone).
                return
            }
            let after = projections.members(user: user, metric: metric, day: day)
            guard let audit = projections.audit(user: user, metric: metric, day: day) else { return }
            versions.append(
                CellAudit.Version(
                    version: audit.version, kind: envelope.kind.name,
                    receivedAt: RFC3339.format(
                        millis: envelope.receivedAt.millis, offsetSeconds: envelope.receivedAt.offsetSeconds),
                    values: audit.values, added: after.subtracting(before).sorted(),
                    removed: before.subtracting(after).sorted(), summary: audit.summary))
        }
        return versions
    }
}

extension Projections {
    /// The ids of the live samples of a cell.
    func members(user: String, metric: Metric, day: CivilDay) -> Set<String> {
        guard let id = users.id(of: user) else { return [] }
        return Set(cells.members(of: CellKey(user: id, metric: metric, day: day)).map { index.key(Int($0)).id.text })
    }
}
