import RecountStore

/// Candidate (b): SQLite in WAL mode with the same two indexes as tables WITHOUT ROWID (each a
/// B-tree clustered on its primary key); a cell's samples come from a join of its range of the
/// cell index with the id index.
final class SQLiteStore: CandidateStore {
    static let name = "sqlite-wal"
    private let database: SQLiteDatabase
    private let lookup: SQLiteDatabase.Statement
    private let insertID: SQLiteDatabase.Statement
    private let insertMember: SQLiteDatabase.Statement
    private let readCell: SQLiteDatabase.Statement

    init(directory: String) throws {
        database = try SQLiteDatabase(path: directory + "/projections.sqlite", cacheKiB: 65_536)
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS ids(
                user INTEGER, provider INTEGER, id BLOB, record BLOB,
                PRIMARY KEY (user, provider, id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS cells(
                user INTEGER, metric INTEGER, day INTEGER, provider INTEGER, id BLOB,
                PRIMARY KEY (user, metric, day, provider, id)) WITHOUT ROWID;
            """)
        lookup = try database.prepare("SELECT 1 FROM ids WHERE user = ?1 AND provider = ?2 AND id = ?3")
        insertID = try database.prepare("INSERT INTO ids VALUES (?1, ?2, ?3, ?4)")
        insertMember = try database.prepare("INSERT INTO cells VALUES (?1, ?2, ?3, ?4, ?5)")
        readCell = try database.prepare(
            """
            SELECT ids.record FROM cells JOIN ids
                ON ids.user = cells.user AND ids.provider = cells.provider AND ids.id = cells.id
            WHERE cells.user = ?1 AND cells.metric = ?2 AND cells.day = ?3
            """)
    }

    func apply(_ samples: [BakeoffSample]) throws -> Int {
        try database.transaction {
            var added = 0
            for sample in samples {
                let user = Int64(UInt32(bigEndian: sample.key.user))
                let provider = Int64(UInt32(bigEndian: sample.key.provider))
                try lookup.bind(1, user)
                try lookup.bind(2, provider)
                try withBytes(of: (sample.key.idHigh, sample.key.idLow)) { try lookup.bind(3, $0) }
                let known = try lookup.step()
                lookup.reset()
                if known { continue }
                try insertID.bind(1, user)
                try insertID.bind(2, provider)
                try withBytes(of: (sample.key.idHigh, sample.key.idLow)) { try insertID.bind(3, $0) }
                try withBytes(of: sample.record) { try insertID.bind(4, $0) }
                _ = try insertID.step()
                insertID.reset()
                try insertMember.bind(1, user)
                try insertMember.bind(2, Int64(sample.record.metric))
                try insertMember.bind(3, Int64(sample.record.day))
                try insertMember.bind(4, provider)
                try withBytes(of: (sample.key.idHigh, sample.key.idLow)) { try insertMember.bind(5, $0) }
                _ = try insertMember.step()
                insertMember.reset()
                added += 1
            }
            return added
        }
    }

    func read(_ cell: CellKey, into totals: inout ReadTotals) throws {
        try readCell.bind(1, Int64(UInt32(bigEndian: cell.user)))
        try readCell.bind(2, Int64(UInt32(bigEndian: cell.metric)))
        try readCell.bind(3, Int64(UInt32(bigEndian: cell.day)))
        defer { readCell.reset() }
        while try readCell.step() {
            let record = readCell.bytes(0)
            guard record.count == SampleRecord.size else { throw BakeoffError("a record of \(record.count) bytes") }
            totals.add(record.loadUnaligned(as: SampleRecord.self))
        }
    }

    func usedBytes() throws -> Int {
        let pages = try database.prepare(
            "SELECT page_count - freelist_count, page_size FROM pragma_page_count, pragma_freelist_count, pragma_page_size"
        )
        guard try pages.step() else { throw BakeoffError("no page count") }
        return Int(pages.int64(0) * pages.int64(1))
    }

    func close() throws {}
}
