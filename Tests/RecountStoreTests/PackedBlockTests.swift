import RecountStore
import TestSupport
import Testing

@Test(arguments: [0, 1, 11, 300])
func packedBlockRoundTrips(records count: Int) throws {
    let width = 64
    var random = SplitMix64(seed: testSeed(UInt64(count)))
    // Records like a day's samples: a shared high part and a varying low part in each word.
    var records: [UInt8] = []
    for _ in 0..<count * width / 8 {
        withUnsafeBytes(of: (0x0000_0193_0000_0000 | random.next() % 100_000).littleEndian) {
            records.append(contentsOf: $0)
        }
    }
    var block: [UInt8] = []
    var scratch: [UInt8] = []
    records.withUnsafeBytes { PackedBlock.encode($0, width: width, into: &block, scratch: &scratch) }
    if count == 300 { #expect(block.count < records.count / 2) }
    var decoded: [UInt8] = [1, 2, 3]
    let decodedCount = block.withUnsafeBytes {
        PackedBlock.decode($0, width: width, into: &decoded, scratch: &scratch)
    }
    #expect(decodedCount == count)
    #expect(decoded == records)
}

@Test func packedBlockKeepsAConstantColumnOnce() throws {
    // Eight 16-byte records that differ only in byte 3.
    let records = (0..<8).flatMap { record in (0..<16).map { $0 == 3 ? UInt8(record) : UInt8($0) } }
    var block: [UInt8] = []
    var scratch: [UInt8] = []
    records.withUnsafeBytes { PackedBlock.encode($0, width: 16, into: &block, scratch: &scratch) }
    // The count, a 2-byte bitmap, 15 constant bytes, an LZ4 block of 8 bytes (a token and 8 literals).
    #expect(block.count == 2 + 2 + 15 + 9)
    var decoded: [UInt8] = []
    #expect(block.withUnsafeBytes { PackedBlock.decode($0, width: 16, into: &decoded, scratch: &scratch) } == 8)
    #expect(decoded == records)
}

@Test func packedBlockRefusesDamageWithoutTrapping() throws {
    var random = SplitMix64(seed: 7)
    var records = (0..<8 * 64).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    var block: [UInt8] = []
    var scratch: [UInt8] = []
    records.withUnsafeBytes { PackedBlock.encode($0, width: 64, into: &block, scratch: &scratch) }
    let damaged: [[UInt8]] = [
        Array(block.prefix(1)), Array(block.prefix(5)), Array(block.dropLast()),
        [0xFF, 0xFF] + Array(block.dropFirst(2)),
        [0, 0, 1],
    ]
    for bytes in damaged {
        let count = bytes.withUnsafeBytes { PackedBlock.decode($0, width: 64, into: &records, scratch: &scratch) }
        #expect(count == nil)
    }
}
