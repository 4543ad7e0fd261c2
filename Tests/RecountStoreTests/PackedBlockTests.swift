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

@Test func packedBlockRefusesDamageWithoutTrapping() throws {
    var block: [UInt8] = []
    var scratch: [UInt8] = []
    var records = [UInt8](repeating: 9, count: 8 * 64)
    records.withUnsafeBytes { PackedBlock.encode($0, width: 64, into: &block, scratch: &scratch) }
    for damaged in [Array(block.prefix(3)), Array(block.dropLast()), [0xFF, 0xFF, 0xFF, 0x7F] + block.dropFirst(4)] {
        let count = damaged.withUnsafeBytes { PackedBlock.decode($0, width: 64, into: &records, scratch: &scratch) }
        #expect(count == nil)
    }
}
