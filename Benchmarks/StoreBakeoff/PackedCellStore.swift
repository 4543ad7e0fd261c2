import RecountStore

/// Candidate (c): one `PackedBlock` of its live records per (user, metric, day) cell, and a
/// small id index (user, provider, id) → (day, metric, position in the block), both in LMDB.
/// A transaction gathers the new records of each cell it touches and rewrites each touched
/// block once, at its end; a cell's recompute reads one value and decompresses it.
final class PackedCellStore: CandidateStore {
    static let name = "packed-cells"

    /// Where a sample lives: its cell (the user is the id key's) and its place in the block.
    struct Location {
        var day: UInt32
        var metric: UInt16
        var position: UInt16
    }

    private let environment: LMDBEnvironment
    private let ids: LMDBDatabase
    private let cells: LMDBDatabase
    private var records: [UInt8] = []
    private var block: [UInt8] = []
    private var scratch: [UInt8] = []

    init(directory: String) throws {
        (environment, ids, cells) = try openBakeoffLMDB(directory)
    }

    func apply(_ samples: [BakeoffSample]) throws -> Int {
        try environment.write { transaction in
            var pending: [CellKey: [UInt8]] = [:]
            var added = 0
            for sample in samples {
                let known = try withBytes(of: sample.key) { try transaction.get(ids, $0) } != nil
                if known { continue }
                if pending[sample.cell] == nil {
                    try loadBlock(sample.cell, in: transaction)
                    pending[sample.cell] = records
                }
                let position = pending[sample.cell]!.count / SampleRecord.size
                guard let position = UInt16(exactly: position) else {
                    throw BakeoffError("a cell of \(position) samples")
                }
                withBytes(of: sample.record) { pending[sample.cell]!.append(contentsOf: $0) }
                let location = Location(
                    day: sample.record.day, metric: UInt16(sample.record.metric), position: position)
                try withBytes(of: sample.key) { key in try withBytes(of: location) { try transaction.put(ids, key, $0) }
                }
                added += 1
            }
            // Rewrite each touched block once, in key order (B+tree writes in order touch fewer pages).
            let order = pending.keys.sorted {
                ($0.user.bigEndian, $0.metric.bigEndian, $0.day.bigEndian)
                    < ($1.user.bigEndian, $1.metric.bigEndian, $1.day.bigEndian)
            }
            for cell in order {
                pending[cell]!.withUnsafeBytes {
                    PackedBlock.encode($0, width: SampleRecord.size, into: &block, scratch: &scratch)
                }
                try withBytes(of: cell) { key in try block.withUnsafeBytes { try transaction.put(cells, key, $0) } }
            }
            return added
        }
    }

    func read(_ cell: CellKey, into totals: inout ReadTotals) throws {
        let count = try environment.read { transaction in try loadBlock(cell, in: transaction) }
        records.withUnsafeBytes { bytes in
            for index in 0..<count {
                totals.add(bytes.loadUnaligned(fromByteOffset: index * SampleRecord.size, as: SampleRecord.self))
            }
        }
    }

    func usedBytes() throws -> Int {
        return try environment.statistics(of: ids).treeBytes + environment.statistics(of: cells).treeBytes
    }

    func close() throws {}

    /// Decodes the block of `cell` into `records` (empty when the cell has none); its count.
    @discardableResult
    private func loadBlock(_ cell: CellKey, in transaction: LMDBTransaction) throws -> Int {
        guard let stored = try withBytes(of: cell, { try transaction.get(cells, $0) }) else {
            records.removeAll(keepingCapacity: true)
            return 0
        }
        guard let count = PackedBlock.decode(stored, width: SampleRecord.size, into: &records, scratch: &scratch) else {
            throw BakeoffError("a damaged block")
        }
        return count
    }
}
