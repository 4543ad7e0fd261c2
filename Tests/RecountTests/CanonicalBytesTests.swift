import Testing

@testable import Recount

/// Blocks stored by column, as the checkpoint stores the id index.
struct CanonicalBytesTests {
    /// Each row puts a byte and a `UInt32`; the bytes hold every row's byte, then every row's
    /// word, and read back row by row.
    @Test func columnsStoreEachFieldsValuesTogetherAndReadBack() throws {
        let rows: [(UInt8, UInt32)] = [(1, 0x0A0B_0C0D), (2, 7), (3, 0)]
        var out = CanonicalBytes()
        out.append(UInt8(0xEE))
        out.appendColumns(rows: rows.count, entrySize: 5) { block, row in
            block.put(rows[row].0)
            block.put(rows[row].1)
        }
        #expect(out.bytes == [0xEE, 1, 2, 3, 0x0D, 0x0C, 0x0B, 0x0A, 7, 0, 0, 0, 0, 0, 0, 0])

        var input = CheckpointReader(out.bytes)
        #expect(try input.integer(UInt8.self) == 0xEE)
        var read: [(UInt8, UInt32)] = []
        try input.columns(rows: rows.count, entrySize: 5) { block, _ in
            read.append((block.take(), block.take()))
        }
        #expect(read.map(\.0) == rows.map(\.0) && read.map(\.1) == rows.map(\.1))
        #expect(try input.isAtEnd())

        // Fewer bytes than the rows claim: refused before a field is read.
        var short = CheckpointReader(Array(out.bytes.dropLast()))
        _ = try short.integer(UInt8.self)
        #expect(throws: CheckpointReader.Malformed.self) {
            try short.columns(rows: rows.count, entrySize: 5) { _, _ in Issue.record("read a row of a short block") }
        }
    }
}
