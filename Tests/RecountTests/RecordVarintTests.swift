import Testing

@testable import Recount

/// The record's varints read back what was written, however many bytes follow them (the
/// reader loads eight at a time when it can), and damaged ones throw.
@Suite struct RecordVarintTests {
    static let values: [UInt64] = [
        0, 1, 127, 128, 300, 1 << 14, (1 << 21) - 1, 1_784_000_000_000, 1 << 49, (1 << 56) - 1, 1 << 56, 1 << 63,
        UInt64.max - 1, UInt64.max,
    ]

    @Test(arguments: [0, 1, 7, 9]) func varintsRoundTripWithAnyTail(tail: Int) {
        var writer = RecordWriter()
        for value in Self.values { writer.varint(value) }
        for value in Self.values { writer.signed(Int64(bitPattern: value)) }
        let bytes = writer.bytes + Array(repeating: 0xFF, count: tail)
        let (read, signed, end) = Self.readBack(bytes, count: Self.values.count)
        #expect(read == Self.values)
        #expect(signed == Self.values.map { Int64(bitPattern: $0) })
        #expect(end == bytes.count - tail)
    }

    /// Reads `count` varints then `count` signed ones; where the reader stopped.
    static func readBack(_ bytes: [UInt8], count: Int) -> (varints: [UInt64], signed: [Int64], end: Int) {
        bytes.withUnsafeBytes { raw in
            var reader = RecordReader(raw)
            var varints: [UInt64] = []
            var signed: [Int64] = []
            do {
                for _ in 0..<count { varints.append(try reader.varint()) }
                for _ in 0..<count { signed.append(try reader.signed()) }
            } catch {
                Issue.record("\(error)")
            }
            return (varints, signed, reader.offset)
        }
    }

    @Test(arguments: [
        [UInt8](repeating: 0xFF, count: 9) + [0x02],  // a tenth byte above 1: more than 64 bits
        [UInt8](repeating: 0x80, count: 11),  // no end within ten bytes
        [0x80, 0x80],  // cut short
        [UInt8](repeating: 0x80, count: 7),  // cut short, fewer than eight bytes
    ]) func damagedVarintsThrow(bytes: [UInt8]) {
        let thrown = bytes.withUnsafeBytes { raw -> Bool in
            var reader = RecordReader(raw)
            do {
                _ = try reader.varint()
                return false
            } catch {
                return true
            }
        }
        #expect(thrown)
    }
}
