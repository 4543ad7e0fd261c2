internal import CLMDB
import Foundation

/// An LMDB environment: named B+trees in one memory-mapped file, the only door to liblmdb.
///
/// One writer at a time; use an environment from one thread (it is not `Sendable`). Byte
/// buffers a transaction hands out point into the map and stay valid only until that
/// transaction ends.
package final class LMDBEnvironment {
    /// How the environment syncs and opens.
    package struct Options: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Skip the fsync of the meta page at commit: a system crash may undo the last
        /// committed transaction but cannot corrupt the file.
        package static let noMetaSync = Options(rawValue: UInt32(MDB_NOMETASYNC))
        /// Skip every fsync at commit: fastest, but a system crash may corrupt the file.
        package static let noSync = Options(rawValue: UInt32(MDB_NOSYNC))
        /// Open for reading only.
        package static let readOnly = Options(rawValue: UInt32(MDB_RDONLY))
    }

    /// The directory holding `data.mdb` and `lock.mdb`.
    package let path: String
    private let environment: OpaquePointer
    private let readOnly: Bool

    /// Opens (creating when absent) the environment in `directory`.
    ///
    /// - Parameters:
    ///   - mapSize: the largest the file may grow, in bytes (address space, not memory).
    ///   - maxDatabases: how many named databases `database(named:)` may open.
    /// - Throws: `StoreError` `.open`, `.corrupt` or `.library`.
    package init(directory: String, mapSize: Int, maxDatabases: Int, options: Options = []) throws(StoreError) {
        path = directory
        readOnly = options.contains(.readOnly)
        if !readOnly {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.open, "cannot create the directory: \(error)", path: directory, libraryCode: 0)
            }
        }
        var created: OpaquePointer?
        try Self.check(mdb_env_create(&created), "mdb_env_create", path: directory, open: true)
        guard let created else {
            throw StoreError(.open, "mdb_env_create gave no handle", path: directory, libraryCode: 0)
        }
        do {
            try Self.check(mdb_env_set_mapsize(created, mapSize), "mdb_env_set_mapsize", path: directory, open: true)
            try Self.check(
                mdb_env_set_maxdbs(created, MDB_dbi(maxDatabases)), "mdb_env_set_maxdbs", path: directory, open: true)
            try Self.check(
                mdb_env_open(created, directory, options.rawValue, 0o644), "mdb_env_open", path: directory, open: true)
        } catch {
            mdb_env_close(created)
            throw error
        }
        environment = created
    }

    deinit { mdb_env_close(environment) }

    /// The named database `name`, created when absent (unless the environment is read-only).
    package func database(named name: String) throws -> LMDBDatabase {
        try (readOnly ? read : write) { transaction in
            var handle: MDB_dbi = 0
            try Self.check(
                mdb_dbi_open(transaction.handle, name, readOnly ? 0 : UInt32(MDB_CREATE), &handle),
                "mdb_dbi_open \(name)", path: path)
            return LMDBDatabase(handle: handle)
        }
    }

    /// Runs `body` in a write transaction: commits when it returns, aborts (rolls back every
    /// write) when it throws.
    package func write<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        let transaction = try begin(flags: 0)
        let result: T
        do { result = try body(transaction) } catch {
            mdb_txn_abort(transaction.handle)
            throw error
        }
        try Self.check(mdb_txn_commit(transaction.handle), "mdb_txn_commit", path: path)
        return result
    }

    /// Runs `body` in a read-only transaction that sees one consistent snapshot.
    package func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        let transaction = try begin(flags: UInt32(MDB_RDONLY))
        defer { mdb_txn_abort(transaction.handle) }
        return try body(transaction)
    }

    /// The entries of `database` and the bytes of the pages its B+tree holds (branch, leaf and
    /// overflow pages; free pages of the file are not counted).
    package func statistics(of database: LMDBDatabase) throws -> (entries: Int, treeBytes: Int) {
        try read { transaction in
            var statistics = MDB_stat()
            try Self.check(mdb_stat(transaction.handle, database.handle, &statistics), "mdb_stat", path: path)
            let pages = statistics.ms_branch_pages + statistics.ms_leaf_pages + statistics.ms_overflow_pages
            return (statistics.ms_entries, pages * Int(statistics.ms_psize))
        }
    }

    private func begin(flags: UInt32) throws(StoreError) -> LMDBTransaction {
        var transaction: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, flags, &transaction), "mdb_txn_begin", path: path)
        guard let transaction else {
            throw StoreError(.library, "mdb_txn_begin gave no handle", path: path, libraryCode: 0)
        }
        return LMDBTransaction(handle: transaction, path: path)
    }

    /// Throws a `StoreError` for an LMDB result other than `MDB_SUCCESS`.
    static func check(_ result: Int32, _ operation: String, path: String, open: Bool = false) throws(StoreError) {
        guard result != MDB_SUCCESS else { return }
        let code: StoreError.Code =
            switch result {
            case MDB_MAP_FULL: .full
            case MDB_CORRUPTED, MDB_INVALID, MDB_VERSION_MISMATCH, MDB_PAGE_NOTFOUND: .corrupt
            case MDB_BAD_VALSIZE, MDB_BAD_TXN, MDB_BAD_DBI, EINVAL: .misuse
            case EAGAIN, EBUSY: .busy
            default: open ? .open : .library
            }
        let reason = String(cString: mdb_strerror(result))
        throw StoreError(code, "LMDB \(operation) failed: \(reason)", path: path, libraryCode: result)
    }
}

/// A named database of an `LMDBEnvironment`: a B+tree of keys in byte order.
package struct LMDBDatabase: Sendable {
    let handle: UInt32
}

/// A transaction of an `LMDBEnvironment`, valid inside the closure that received it.
package struct LMDBTransaction {
    let handle: OpaquePointer
    let path: String

    /// The value stored under `key`, or `nil`; the bytes point into the map and stay valid
    /// until the transaction ends or writes.
    package func get(_ database: LMDBDatabase, _ key: UnsafeRawBufferPointer) throws(StoreError)
        -> UnsafeRawBufferPointer?
    {
        var keyValue = Self.value(key)
        var found = MDB_val()
        let result = mdb_get(handle, database.handle, &keyValue, &found)
        if result == MDB_NOTFOUND { return nil }
        try LMDBEnvironment.check(result, "mdb_get", path: path)
        return UnsafeRawBufferPointer(start: found.mv_data, count: found.mv_size)
    }

    /// Stores `value` under `key`, replacing what was there.
    package func put(_ database: LMDBDatabase, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer)
        throws(StoreError)
    {
        var keyValue = Self.value(key)
        var dataValue = Self.value(value)
        try LMDBEnvironment.check(mdb_put(handle, database.handle, &keyValue, &dataValue, 0), "mdb_put", path: path)
    }

    /// Removes `key`; whether it was there.
    @discardableResult
    package func delete(_ database: LMDBDatabase, _ key: UnsafeRawBufferPointer) throws(StoreError) -> Bool {
        var keyValue = Self.value(key)
        let result = mdb_del(handle, database.handle, &keyValue, nil)
        if result == MDB_NOTFOUND { return false }
        try LMDBEnvironment.check(result, "mdb_del", path: path)
        return true
    }

    /// Visits the entries from the first key at or after `start`, in key order, while `body`
    /// returns `true`. The buffers are valid only during the call.
    package func forEach(
        in database: LMDBDatabase, from start: UnsafeRawBufferPointer,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor: OpaquePointer?
        try LMDBEnvironment.check(mdb_cursor_open(handle, database.handle, &cursor), "mdb_cursor_open", path: path)
        defer { mdb_cursor_close(cursor) }
        var key = Self.value(start)
        var value = MDB_val()
        var result = mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
        while result == MDB_SUCCESS {
            let more = try body(
                UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
                UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
            guard more else { return }
            result = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if result != MDB_NOTFOUND { try LMDBEnvironment.check(result, "mdb_cursor_get", path: path) }
    }

    /// An `MDB_val` over `bytes` (LMDB never writes through a key or a value it is given).
    private static func value(_ bytes: UnsafeRawBufferPointer) -> MDB_val {
        MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }
}
