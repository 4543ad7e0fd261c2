import RecountStore
import TestSupport
import Testing

private struct Rollback: Error {}

/// A database in `directory` with a table `t(k INTEGER PRIMARY KEY, v BLOB)`.
private func openTable(in directory: String) throws -> SQLiteDatabase {
    let database = try SQLiteDatabase(path: directory + "/test.sqlite")
    try database.execute("CREATE TABLE IF NOT EXISTS t(k INTEGER PRIMARY KEY, v BLOB) WITHOUT ROWID")
    return database
}

/// The rows of `t` with keys in `range`, in key order.
private func rows(_ database: SQLiteDatabase, _ range: ClosedRange<Int64>) throws -> [(Int64, [UInt8])] {
    let select = try database.prepare("SELECT k, v FROM t WHERE k BETWEEN ?1 AND ?2 ORDER BY k")
    try select.bind(1, range.lowerBound)
    try select.bind(2, range.upperBound)
    var found: [(Int64, [UInt8])] = []
    while try select.step() { found.append((select.int64(0), Array(select.bytes(1)))) }
    return found
}

@Test func sqliteBindsStepsAndReadsARangeInWALMode() throws {
    try withTemporaryDirectory { directory in
        let database = try openTable(in: directory)
        let insert = try database.prepare("INSERT INTO t VALUES (?1, ?2)")
        try database.transaction {
            for key in [5, 1, 3, 9] as [Int64] {
                try insert.bind(1, key)
                try [UInt8](repeating: UInt8(key), count: Int(key)).withUnsafeBytes { try insert.bind(2, $0) }
                #expect(try insert.step() == false)
                insert.reset()
            }
            try insert.bind(1, 0)
            try [UInt8]().withUnsafeBytes { try insert.bind(2, $0) }
            _ = try insert.step()
            insert.reset()
        }
        let found = try rows(database, 0...5)
        #expect(found.map(\.0) == [0, 1, 3, 5])
        #expect(found.map(\.1) == [[], [1], [3, 3, 3], [5, 5, 5, 5, 5]])
        let mode = try database.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(String(decoding: mode.bytes(0), as: UTF8.self) == "wal")
    }
}

@Test func sqliteTransactionThatThrowsRollsBack() throws {
    try withTemporaryDirectory { directory in
        let database = try openTable(in: directory)
        #expect(throws: Rollback.self) {
            try database.transaction {
                try database.execute("INSERT INTO t VALUES (1, x'01')")
                throw Rollback()
            }
        }
        #expect(try rows(database, 0...10).isEmpty)
    }
}

@Test func sqliteReportsAConstraintAsMisuseWithItsCode() throws {
    try withTemporaryDirectory { directory in
        let database = try openTable(in: directory)
        try database.execute("INSERT INTO t VALUES (1, x'01')")
        let error = #expect(throws: StoreError.self) { try database.execute("INSERT INTO t VALUES (1, x'02')") }
        #expect(error?.code == .misuse)
        #expect(error?.libraryCode == 1_555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error?.path == directory + "/test.sqlite")
    }
}
