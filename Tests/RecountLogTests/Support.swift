import Foundation
import RecountLog
import Testing

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withTemporaryDirectory<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: (String) throws -> T
) throws -> T {
    let path = NSTemporaryDirectory() + "recount-log-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A small, seedable, deterministic generator (SplitMix64) so randomised tests replay exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed for a randomised test: `RECOUNT_TEST_SEED` when set, else `fallback`; printed so a
/// failure can be replayed.
func testSeed(_ fallback: UInt64, _ name: String = #function) -> UInt64 {
    let seed = ProcessInfo.processInfo.environment["RECOUNT_TEST_SEED"].flatMap { UInt64($0) } ?? fallback
    print("\(name): seed \(seed) (replay with RECOUNT_TEST_SEED=\(seed))")
    return seed
}

/// The bytes a test writes at `position` (0 to 120 of them): derived from the position, so any
/// reader can check them.
func recordBytes(position: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: position)
    let length = Int(generator.next() % 121)
    return (0..<length).map { index in index % 5 == 0 ? UInt8(truncatingIfNeeded: generator.next()) : UInt8(index % 13) }
}

/// Appends one batch per element of `counts`, of that many records.
@discardableResult
func appendBatches(_ log: Log, _ counts: [Int]) throws -> [Range<UInt64>] {
    var ranges: [Range<UInt64>] = []
    for count in counts {
        var batch = LogBatch()
        for position in log.endPosition..<(log.endPosition + UInt64(count)) {
            batch.append(recordBytes(position: position))
        }
        ranges.append(try log.append(batch))
    }
    return ranges
}

/// Every record a reader returns from `start`, as (position, bytes).
func readAll(_ reader: LogReader, from start: UInt64 = Log.firstPosition) throws -> [(UInt64, [UInt8])] {
    var records: [(UInt64, [UInt8])] = []
    try reader.forEach(from: start) { record in records.append((record.position, Array(record.bytes))) }
    return records
}

/// Checks that `records` are exactly the positions of `range`, each with the bytes `recordBytes` gives it.
func expectRecords(
    _ records: [(UInt64, [UInt8])], cover range: Range<UInt64>, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(records.map(\.0) == Array(range), sourceLocation: sourceLocation)
    if let wrong = records.first(where: { $0.1 != recordBytes(position: $0.0) }) {
        Issue.record("record \(wrong.0) has the wrong bytes", sourceLocation: sourceLocation)
    }
}

func segmentFiles(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".seg") }.sorted()
        .map { directory + "/" + $0 }
}

func fileSize(_ path: String) throws -> Int64 {
    Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
}
