/// What a checkpoint of some users' projections keeps (a part of a range that splits), and the
/// numbers it gives what it keeps.
///
/// Users, sources, ids, text ids and strings are each numbered anew, in the order of the whole
/// state's numbers, so that the checkpoint names only what its users use and loads as the
/// projections of those users alone: what folding their records and the `*` defaults gives,
/// but for interning order, which no answer or digest depends on.
package struct CheckpointSelection {
    /// The kept users' names, for the parts keyed by name (config and sync state).
    let userNames: Set<String>
    private(set) var users: Renumbering
    private(set) var sources: Renumbering
    private(set) var textIDs: Renumbering
    /// Zones, sync identifiers and unit symbols (the id index's strings).
    private(set) var strings: Renumbering
    /// The numbers of the kept users' ids, in order: their new numbers are their places here.
    private(set) var ids: [Int] = []
    /// Kept ids, live or deleted, kept rollups, users, channels, check-ins and listed ids: what
    /// holding the checkpoint costs (as `Projections.rangeSize` counts them).
    package private(set) var size = 0
    /// Kept dirty days.
    package private(set) var dirtyDays = 0
    /// Kept rollups.
    private(set) var rollups = 0

    /// The selection of the users of `projections` that `keep` accepts.
    init(_ projections: Projections, keepingUsers keep: (String) -> Bool) {
        let index = projections.index
        users = Renumbering(count: projections.users.strings.count)
        for (number, name) in projections.users.strings.enumerated() where keep(name) { users.keep(UInt32(number)) }
        userNames = Set(users.kept.map { projections.users.strings[$0] })
        sources = Renumbering(count: projections.sources.count)
        textIDs = Renumbering(count: index.textIDs.strings.count)
        strings = Renumbering(count: index.strings.strings.count)
        for number in index.records.indices where users.contains(index.owner(number).user) {
            ids.append(number)
            let kind = index.storedKey(number: number).kind
            if kind >= 2 { textIDs.keep(kind - 2) }
            let record = index.record(number)
            if record.state != .empty { size += 1 }
            guard record.state == .live else { continue }
            sources.keep(record.source.rawValue)
            for string in [record.zone, record.syncIdentifier, record.unitSymbol] where string != 0 {
                strings.keep(string - 1)
            }
        }
        // A rollup may name sources no live sample comes from any more (deleted since it was
        // recomputed). Cells in key order, so that the numbering never follows table order.
        for (key, stored) in projections.rollups.sortedByKey() where users.contains(key.user) {
            rollups += 1
            for share in stored.cell.sources {
                sources.keep(share.source.rawValue)
                if let suppressor = share.suppressedBy { sources.keep(suppressor.rawValue) }
            }
        }
        size += rollups
        let facts = projections.syncFactsByUser()
        size += users.kept.filter { projections.users.strings[$0] != "*" }.count * Projections.entriesPerUser
        size += Projections.weight(
            channels: users.kept.reduce(0) { $0 + facts.channels[$1] },
            checkins: users.kept.reduce(0) { $0 + facts.checkins[$1] },
            listed: users.kept.reduce(0) { $0 + facts.listed[$1] })
        dirtyDays = projections.dirty.days.reduce(0) { $0 + (users.contains($1.key.user) ? 1 : 0) }
    }

    /// The new number of a kept id numbered `number`.
    func renumbered(id number: UInt32) -> UInt32 {
        UInt32(ids.partitioningIndex { $0 >= Int(number) })
    }

    /// An id's key with its user and text id renumbered.
    func renumbered(_ key: IdIndex.StoredKey) -> IdIndex.StoredKey {
        var key = key
        key.user = users[key.user]
        if key.kind >= 2 { key.kind = textIDs[key.kind - 2] + 2 }
        return key
    }

    /// A record with its strings and source renumbered.
    func renumbered(_ record: IdIndex.Record) -> IdIndex.Record {
        guard record.state == .live else { return record }
        var record = record
        func string(_ interned: UInt32) -> UInt32 { interned == 0 ? 0 : strings[interned - 1] + 1 }
        record.zone = string(record.zone)
        record.syncIdentifier = string(record.syncIdentifier)
        record.unitSymbol = string(record.unitSymbol)
        record.source = SourceID(sources[record.source.rawValue])
        return record
    }

    /// A rollup cell with its sources renumbered.
    func renumbered(_ cell: RollupCell) -> RollupCell {
        var cell = cell
        for place in cell.sources.indices {
            cell.sources[place].source = SourceID(sources[cell.sources[place].source.rawValue])
            if let suppressor = cell.sources[place].suppressedBy {
                cell.sources[place].suppressedBy = SourceID(sources[suppressor.rawValue])
            }
        }
        return cell
    }
}

/// New numbers for some of a numbered set's members, in the order of their old numbers as
/// they are kept.
struct Renumbering {
    /// By old number: the new number + 1 (0: not kept).
    private var newNumbers: [UInt32]
    /// The old numbers kept, by new number.
    private(set) var kept: [Int] = []

    /// A renumbering of the members numbered `0..<count`, keeping none yet.
    init(count: Int) { newNumbers = Array(filledWith: 0, count: count) }

    /// Keeps the member numbered `old`, giving it the next new number (once).
    mutating func keep(_ old: UInt32) {
        guard newNumbers[Int(old)] == 0 else { return }
        kept.append(Int(old))
        newNumbers[Int(old)] = UInt32(kept.count)
    }

    func contains(_ old: UInt32) -> Bool { newNumbers[Int(old)] != 0 }

    /// The new number of the kept member `old`.
    subscript(old: UInt32) -> UInt32 { newNumbers[Int(old)] - 1 }
}
