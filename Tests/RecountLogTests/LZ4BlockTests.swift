import RecountLog
import TestSupport
import Testing

/// The LZ4 door: every acceleration compresses to a block that decompresses to the input, and
/// a destination too small is refused rather than overrun.
@Suite struct LZ4BlockTests {
    /// Record-like bytes that repeat (field names, ids that share prefixes), then noise.
    static func input() -> [UInt8] {
        var random = SplitMix64(seed: testSeed(71))
        let repetitive = (0..<2_000).flatMap { Array("{\"id\":\"s-\($0 % 37)\",\"value\":\($0 % 11)}".utf8) }
        return repetitive + (0..<4_096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test(arguments: [Int32(1), 4, 64])
    func everyAccelerationRoundTrips(acceleration: Int32) {
        let input = Self.input()
        var block = [UInt8](repeating: 0, count: LZ4Block.compressBound(input.count))
        let stored = input.withUnsafeBytes { source in
            block.withUnsafeMutableBytes { LZ4Block.compress(source, into: $0, acceleration: acceleration) }
        }
        #expect(stored > 0 && stored < input.count, "the repetitive half compresses")
        var output = [UInt8](repeating: 0, count: input.count)
        let whole = block[..<stored].withUnsafeBytes { source in
            output.withUnsafeMutableBytes { LZ4Block.decompress(source, into: $0) }
        }
        #expect(whole && output == input)
    }

    @Test func aDestinationTooSmallIsRefused() {
        let input = Self.input()
        var block = [UInt8](repeating: 0, count: 64)
        let stored = input.withUnsafeBytes { source in
            block.withUnsafeMutableBytes { LZ4Block.compress(source, into: $0, acceleration: 4) }
        }
        #expect(stored == 0)
    }
}
