import RecountStore

/// A projection store in the bake-off: the id index and the cell membership of live samples,
/// durable in `directory`. The benchmark drives every candidate through these calls alone.
protocol CandidateStore: AnyObject {
    /// The name in the JSON lines.
    static var name: String { get }

    /// Opens (creating when absent) the store in `directory`.
    init(directory: String) throws

    /// Applies `samples` in one transaction: for each, looks its id up and, when it is new,
    /// writes it to the id index and to its cell. Returns how many were new.
    func apply(_ samples: [BakeoffSample]) throws -> Int

    /// Reads every live sample of `cell` into `totals`.
    func read(_ cell: CellKey, into totals: inout ReadTotals) throws

    /// The bytes of the pages that hold data (the files' free pages not counted).
    func usedBytes() throws -> Int

    /// Writes what is pending and closes the store.
    func close() throws
}

/// The LMDB environment both LMDB candidates open: an 8 GiB map, metadata not synced at
/// commit (data is), and two databases, `ids` and `cells`.
func openBakeoffLMDB(_ directory: String) throws -> (LMDBEnvironment, ids: LMDBDatabase, cells: LMDBDatabase) {
    let environment = try LMDBEnvironment(
        directory: directory, mapSize: 8 << 30, maxDatabases: 2, options: .noMetaSync)
    return (environment, try environment.database(named: "ids"), try environment.database(named: "cells"))
}

extension CellMemberKey {
    /// The id index key of the member (the cell's user, then provider and id).
    var idKey: IDKey { IDKey(user: cell.user, provider: provider, idHigh: idHigh, idLow: idLow) }
}

/// Runs `body` with the bytes of `value`, a plain struct without padding.
@inline(__always)
func withBytes<T, R>(of value: T, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    var copy = value
    return try withUnsafeBytes(of: &copy, body)
}
