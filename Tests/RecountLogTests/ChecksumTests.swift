import RecountLog
import TestSupport
import Testing

/// The XXH3 door: a hash taken in parts is the hash of the parts joined, however they are cut.
@Suite struct ChecksumTests {
    @Test(arguments: [1, 7, 64, 1_000, 5_000])
    func aHashInPartsIsTheHashOfTheWhole(partBytes: Int) {
        var random = SplitMix64(seed: testSeed(72))
        let bytes = (0..<5_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let streaming = Checksum.Streaming()
        for start in stride(from: 0, to: bytes.count, by: partBytes) {
            bytes[start..<min(start + partBytes, bytes.count)].withUnsafeBytes { streaming.update($0) }
        }
        #expect(streaming.digest == bytes.withUnsafeBytes { Checksum.xxh3($0) })
        #expect(streaming.digest != bytes.dropLast().withUnsafeBytes { Checksum.xxh3($0) })
    }
}
