import RecountStore

/// Candidate (a): LMDB with the two B+trees: the id index (user, provider, id) → the
/// 64-byte record, and the cell index (user, metric, day, provider, id) → nothing, whose range
/// per cell gives the ids to look up.
final class LMDBStore: CandidateStore {
    static let name = "lmdb"
    private let environment: LMDBEnvironment
    private let ids: LMDBDatabase
    private let cells: LMDBDatabase

    init(directory: String) throws {
        (environment, ids, cells) = try openBakeoffLMDB(directory)
    }

    func apply(_ samples: [BakeoffSample]) throws -> Int {
        try environment.write { transaction in
            var added = 0
            for sample in samples {
                let known = try withBytes(of: sample.key) { try transaction.get(ids, $0) } != nil
                if known { continue }
                try withBytes(of: sample.key) { key in
                    try withBytes(of: sample.record) { try transaction.put(ids, key, $0) }
                }
                try withBytes(of: sample.memberKey) {
                    try transaction.put(cells, $0, UnsafeRawBufferPointer(start: nil, count: 0))
                }
                added += 1
            }
            return added
        }
    }

    func read(_ cell: CellKey, into totals: inout ReadTotals) throws {
        try environment.read { transaction in
            let start = CellMemberKey(cell: cell, provider: 0, idHigh: 0, idLow: 0)
            try withBytes(of: start) { start in
                try transaction.forEach(in: cells, from: start) { key, _ in
                    guard key.count == CellMemberKey.size else { return false }
                    let member = key.loadUnaligned(as: CellMemberKey.self)
                    guard member.cell == cell else { return false }
                    guard let record = try withBytes(of: member.idKey, { try transaction.get(ids, $0) }),
                        record.count == SampleRecord.size
                    else { throw BakeoffError("the cell index names a sample the id index lacks") }
                    totals.add(record.loadUnaligned(as: SampleRecord.self))
                    return true
                }
            }
        }
    }

    func usedBytes() throws -> Int {
        try environment.statistics(of: ids).treeBytes + environment.statistics(of: cells).treeBytes
    }

    func close() throws {}
}

/// A broken invariant of a candidate store.
struct BakeoffError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
