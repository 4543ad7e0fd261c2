internal import CSQLite

/// An SQLite connection, the only door to libsqlite3.
///
/// Opened in WAL mode. A connection and its statements belong to one thread (it is not
/// `Sendable`); SQLite is opened without its own mutexes.
package final class SQLiteDatabase {
    /// The database file.
    package let path: String
    private let connection: OpaquePointer

    /// Opens (creating when absent) the database at `path` in WAL mode.
    ///
    /// - Parameters:
    ///   - synchronous: the `PRAGMA synchronous` level; `NORMAL` in WAL mode syncs only at
    ///     checkpoints, so a system crash may undo the last commits but cannot corrupt the file.
    ///   - cacheKiB: the page cache's size.
    /// - Throws: `StoreError` `.open`, `.corrupt`, `.busy` or `.library`.
    package init(path: String, synchronous: String = "NORMAL", cacheKiB: Int = 2_000) throws(StoreError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw StoreError(.open, "SQLite cannot open: \(message)", path: path, libraryCode: result)
        }
        connection = opened
        sqlite3_extended_result_codes(connection, 1)
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=\(synchronous); PRAGMA cache_size=-\(cacheKiB)")
    }

    /// Closes the connection once its last statement is gone (`sqlite3_close_v2`).
    deinit { sqlite3_close_v2(connection) }

    /// Runs `sql`, one or more statements, discarding any rows.
    package func execute(_ sql: String) throws(StoreError) {
        try check(sqlite3_exec(connection, sql, nil, nil, nil), "exec")
    }

    /// Compiles one statement of `sql` to run many times.
    package func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        try check(
            sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), "prepare")
        guard let statement else {
            throw StoreError(.misuse, "SQLite prepare: no statement in \(sql)", path: path, libraryCode: 0)
        }
        return Statement(handle: statement, database: self)
    }

    /// Runs `body` between `BEGIN` and `COMMIT`; a throw rolls every change back.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        let result: T
        do { result = try body() } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do { try execute("COMMIT") } catch {
            try? execute("ROLLBACK")
            throw error
        }
        return result
    }

    /// Throws a `StoreError` for an SQLite result other than `SQLITE_OK`, `SQLITE_ROW` and `SQLITE_DONE`.
    fileprivate func check(_ result: Int32, _ operation: String) throws(StoreError) {
        guard result != SQLITE_OK && result != SQLITE_ROW && result != SQLITE_DONE else { return }
        let code: StoreError.Code =
            switch result & 0xFF {
            case SQLITE_FULL: .full
            case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
            case SQLITE_BUSY, SQLITE_LOCKED: .busy
            case SQLITE_MISUSE, SQLITE_ERROR, SQLITE_RANGE, SQLITE_CONSTRAINT, SQLITE_TOOBIG: .misuse
            case SQLITE_CANTOPEN: .open
            default: .library
            }
        let message = String(cString: sqlite3_errmsg(connection))
        throw StoreError(code, "SQLite \(operation) failed: \(message)", path: path, libraryCode: result)
    }

    /// A compiled statement: bind parameters (numbered from 1), step through rows, reset.
    package final class Statement {
        private let handle: OpaquePointer
        private let database: SQLiteDatabase

        fileprivate init(handle: OpaquePointer, database: SQLiteDatabase) {
            self.handle = handle
            self.database = database
        }

        deinit { sqlite3_finalize(handle) }

        /// Binds an integer to parameter `index`.
        package func bind(_ index: Int32, _ value: Int64) throws(StoreError) {
            try database.check(sqlite3_bind_int64(handle, index, value), "bind")
        }

        /// Binds a copy of `bytes` as a blob to parameter `index`.
        package func bind(_ index: Int32, _ bytes: UnsafeRawBufferPointer) throws(StoreError) {
            // An empty buffer may have no address, and SQLite binds a null blob pointer as NULL.
            guard let address = bytes.baseAddress, let count = Int32(exactly: bytes.count) else {
                try database.check(sqlite3_bind_zeroblob64(handle, index, UInt64(bytes.count)), "bind")
                return
            }
            try database.check(sqlite3_bind_blob(handle, index, address, count, recount_sqlite_transient()), "bind")
        }

        /// Runs the statement to its next row; `true` when a row is ready, `false` when done.
        package func step() throws(StoreError) -> Bool {
            let result = sqlite3_step(handle)
            try database.check(result, "step")
            return result == SQLITE_ROW
        }

        /// Makes the statement ready to run again; bindings stay.
        package func reset() {
            // `sqlite3_reset` repeats the last step's error, which `step` already threw.
            sqlite3_reset(handle)
        }

        /// The integer in column `index` (from 0) of the current row.
        package func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

        /// The blob in column `index` (from 0) of the current row; valid until the next `step` or `reset`.
        package func bytes(_ index: Int32) -> UnsafeRawBufferPointer {
            let address = sqlite3_column_blob(handle, index)
            return UnsafeRawBufferPointer(start: address, count: Int(sqlite3_column_bytes(handle, index)))
        }
    }
}
