import Foundation
import RecountLog
import TestSupport
import Testing

@Suite struct LogRoundTripTests {
    static let small = LogConfiguration(segmentBytes: 4096, indexInterval: 512, durability: .none)

    @Test(arguments: [1 as UInt64, 2, 3])
    func manyBatchesAcrossManySegmentsReadBackFromAnyPosition(seedBase: UInt64) throws {
        var random = SplitMix64(seed: testSeed(seedBase))
        try withTemporaryDirectory { directory in
            let counts = (0..<200).map { _ in Int.random(in: 1...40, using: &random) }
            let total = UInt64(counts.reduce(0, +))
            do {
                let log = try Log(directory: directory, configuration: Self.small)
                let ranges = try appendBatches(log, counts)
                #expect(ranges.first?.lowerBound == Log.firstPosition)
                #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                #expect(log.endPosition == Log.firstPosition + total)
                try log.close()
            }
            #expect(try segmentFiles(directory).count > 20)
            let reader = try LogReader(directory: directory)
            #expect(reader.uncommittedTail == nil)
            expectRecords(try readAll(reader), cover: Log.firstPosition..<(Log.firstPosition + total))
            for _ in 0..<15 {
                let start = UInt64.random(in: Log.firstPosition...(Log.firstPosition + total), using: &random)
                expectRecords(try readAll(reader, from: start), cover: start..<(Log.firstPosition + total))
            }
            let stats = try reader.check()
            #expect(stats.records == total)
            #expect(stats.frames == UInt64(counts.count))
        }
    }

    @Test func reopenedLogContinuesPositionsAndKeepsRecords() throws {
        try withTemporaryDirectory { directory in
            for round in 0..<3 {
                let log = try Log(directory: directory, configuration: Self.small)
                #expect(log.recovery == nil)
                #expect(log.endPosition == Log.firstPosition + UInt64(round * 30))
                try appendBatches(log, [10, 20])
                try log.close()
            }
            expectRecords(try readAll(try LogReader(directory: directory)), cover: 1..<91)
        }
    }

    @Test func readingARangeStopsAtItsEnd() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(directory: directory, configuration: Self.small)
            try appendBatches(log, Array(repeating: 7, count: 30))
            var seen: [UInt64] = []
            try log.reader().forEach(from: 50, to: 60) { seen.append($0.position) }
            #expect(seen == Array(50..<60))
            #expect(throws: LogError.self) { try log.reader().forEach(from: 500) { _ in } }
        }
    }

    @Test func emptyAndMissingDirectories() throws {
        try withTemporaryDirectory { directory in
            let missing = directory + "/not/yet"
            #expect { try LogReader(directory: missing) } throws: { ($0 as? LogError)?.code == .noLog }
            #expect(!FileManager.default.fileExists(atPath: missing), "a reader creates nothing")
            try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
            #expect { try LogReader(directory: missing) } throws: { ($0 as? LogError)?.code == .noLog }
            let log = try Log(directory: missing)
            #expect(log.endPosition == Log.firstPosition)
            #expect(try segmentFiles(missing).isEmpty)
            try log.close()
            let reader = try LogReader(directory: missing)
            #expect(reader.endPosition == Log.firstPosition)
            #expect(try readAll(reader).isEmpty)
            #expect(try reader.check() == LogStats())
            let file = directory + "/plain-file"
            #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
            #expect { try Log(directory: file) } throws: { ($0 as? LogError)?.code == .notADirectory }
            #expect { try LogReader(directory: file) } throws: { ($0 as? LogError)?.code == .notADirectory }
        }
    }

    @Test func emptyBatchAndEmptyRecords() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(directory: directory)
            #expect(try log.append(LogBatch()) == 1..<1)
            var batch = LogBatch()
            batch.append([UInt8]())
            batch.append([1, 2, 3])
            #expect(try log.append(batch) == 1..<3)
            let records = try readAll(log.reader())
            #expect(records.map(\.1) == [[], [1, 2, 3]])
        }
    }

    @Test func secondWriterIsRefusedUntilTheFirstCloses() throws {
        try withTemporaryDirectory { directory in
            let first = try Log(directory: directory)
            #expect { try Log(directory: directory) } throws: { ($0 as? LogError)?.code == .locked }
            try first.close()
            #expect { try appendBatches(first, [1]) } throws: { ($0 as? LogError)?.code == .closed }
            let second = try Log(directory: directory)
            try appendBatches(second, [1])
        }
    }

    /// A writer's lock outlives the removal of its `LOCK` file (a stale-lock cleanup): a
    /// second writer locked a new file of that name and appended beside the first, and both
    /// acknowledged batches that `log repair` later moved aside (an attack run, 2026-12-06).
    @Test func aSecondWriterIsRefusedAfterTheLockFileIsRemoved() throws {
        try withTemporaryDirectory { directory in
            let first = try Log(directory: directory)
            try FileManager.default.removeItem(atPath: directory + "/LOCK")
            #expect { try Log(directory: directory) } throws: { ($0 as? LogError)?.code == .locked }
            try appendBatches(first, [1])
            try first.close()
            let second = try Log(directory: directory)
            try appendBatches(second, [1])
            try second.close()
        }
    }

    @Test func aDamagedIndexIsIgnoredAndReadsStayCorrect() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(
                directory: directory,
                configuration: LogConfiguration(segmentBytes: 1 << 20, indexInterval: 256, durability: .none))
            try appendBatches(log, Array(repeating: 9, count: 60))
            try log.close()
            let index = try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".idx") }!
            // Entries that point at the wrong frames, then a torn entry.
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: directory + "/" + index)))
            #expect(bytes.count >= 32)
            bytes[8] ^= 0x40
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + index))
            expectRecords(try readAll(try LogReader(directory: directory), from: 300), cover: 300..<541)
            try Data(bytes.dropLast(3)).write(to: URL(fileURLWithPath: directory + "/" + index))
            expectRecords(try readAll(try LogReader(directory: directory), from: 400), cover: 400..<541)
        }
    }

    @Test func theWriterRebuildsMissingOrWrongIndexesOfSealedSegments() throws {
        try withTemporaryDirectory { directory in
            do {
                let log = try Log(directory: directory, configuration: Self.small)
                try appendBatches(log, Array(repeating: 20, count: 40))
                try log.close()
            }
            let indexes = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".idx") }
                .sorted()
                .map { directory + "/" + $0 }
            #expect(indexes.count >= 4)
            let good = try Data(contentsOf: URL(fileURLWithPath: indexes[1]))
            try FileManager.default.removeItem(atPath: indexes[0])
            // An entry that points into the middle of a frame.
            var wrong = Array(good)
            wrong[wrong.count - 8] &+= 3
            try Data(wrong).write(to: URL(fileURLWithPath: indexes[1]))

            let log = try Log(directory: directory, configuration: Self.small)
            #expect(
                log.rebuiltIndexes == [
                    indexes[0].replacingOccurrences(of: ".idx", with: ".seg"),
                    indexes[1].replacingOccurrences(of: ".idx", with: ".seg"),
                ])
            #expect(try Data(contentsOf: URL(fileURLWithPath: indexes[1])) == good)
            #expect(FileManager.default.fileExists(atPath: indexes[0]))
            expectRecords(try readAll(log.reader(), from: 37), cover: 37..<801)
            try log.close()
            #expect(try Log(directory: directory, configuration: Self.small).rebuiltIndexes.isEmpty)
        }
    }

    @Test func groupCommitAndEveryBatchDurabilityRoundTrip() throws {
        for durability in [
            LogConfiguration.Durability.everyBatch, .groupCommit(maxBytes: 2048, maxDelay: .milliseconds(5)),
        ] {
            try withTemporaryDirectory { directory in
                let log = try Log(
                    directory: directory, configuration: LogConfiguration(segmentBytes: 8192, durability: durability))
                try appendBatches(log, Array(repeating: 25, count: 20))
                try log.sync()
                try log.close()
                expectRecords(try readAll(try LogReader(directory: directory)), cover: 1..<501)
            }
        }
    }
}
