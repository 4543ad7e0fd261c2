import Foundation
import RecountLog
import TestSupport
import Testing

/// The bytes a test writes at `position` (0 to 120 of them): derived from the position, so any
/// reader can check them.
func recordBytes(position: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: position)
    let length = Int(generator.next() % 121)
    return (0..<length).map { index in index % 5 == 0 ? UInt8(truncatingIfNeeded: generator.next()) : UInt8(index % 13)
    }
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
