import Dispatch
import Foundation
import RecountLog
import Synchronization
import TestSupport
import Testing

@Suite struct LogConcurrencyTests {
    @Test func aReaderConcurrentWithTheWriterSeesAPrefixNeverGarbage() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(
                directory: directory,
                configuration: LogConfiguration(segmentBytes: 8192, indexInterval: 512, durability: .none))
            let done = Atomic<Bool>(false)
            let problems = Mutex<[String]>([])
            let reads = Atomic<Int>(0)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                while !done.load(ordering: .acquiring) {
                    // Each pass reads the newest few thousand records of a fresh snapshot (the
                    // whole log is read once at the end), so passes stay fast as the log grows.
                    let reader = log.reader()
                    var expected = max(Log.firstPosition, reader.endPosition.subtractingClamped(3000))
                    do {
                        try reader.forEach(from: expected) { record in
                            if record.position != expected
                                || Array(record.bytes) != recordBytes(position: record.position)
                            {
                                problems.withLock { $0.append("bad record at \(record.position)") }
                            }
                            expected += 1
                        }
                    } catch {
                        problems.withLock { $0.append("\(error)") }
                    }
                    if expected != reader.endPosition { problems.withLock { $0.append("short read") } }
                    reads.add(1, ordering: .relaxed)
                }
            }
            // Keep appending until the reader has read several snapshots taken mid-write.
            var batches = 0
            while batches < 200 || (reads.load(ordering: .relaxed) < 5 && batches < 200_000) {
                try appendBatches(log, [17])
                batches += 1
            }
            done.store(true, ordering: .releasing)
            group.wait()
            #expect(problems.withLock { $0 }.isEmpty)
            #expect(reads.load(ordering: .relaxed) >= 5)
            expectRecords(try readAll(log.reader()), cover: 1..<(1 + UInt64(batches) * 17))
        }
    }
}

extension UInt64 {
    fileprivate func subtractingClamped(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
