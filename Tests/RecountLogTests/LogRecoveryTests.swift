import Foundation
import RecountLog
import TestSupport
import Testing

@Suite struct LogRecoveryTests {
    static let configuration = LogConfiguration(segmentBytes: 1 << 20, indexInterval: 256, durability: .none)

    /// Builds a log of `counts` batches in one segment; returns the last segment's path and the
    /// byte offset where its last frame starts.
    func buildLog(_ directory: String, _ counts: [Int]) throws -> (segment: String, lastFrame: Int64) {
        let log = try Log(directory: directory, configuration: Self.configuration)
        try appendBatches(log, counts.dropLast())
        let lastFrame = Int64(try log.reader().stats().fileBytes)
        try appendBatches(log, [counts.last!])
        try log.close()
        return (try segmentFiles(directory).last!, lastFrame)
    }

    @Test func truncatingTheLastFrameAtEveryByteLosesOnlyThatFrame() throws {
        try withTemporaryDirectory { directory in
            let source = directory + "/source"
            let (segment, lastFrame) = try buildLog(source, [5, 8, 3])
            let original = try Data(contentsOf: URL(fileURLWithPath: segment))
            let copy = directory + "/copy"
            for cut in Int(lastFrame)..<original.count {
                try? FileManager.default.removeItem(atPath: copy)
                try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
                let target = copy + "/" + URL(fileURLWithPath: segment).lastPathComponent
                try original.prefix(cut).write(to: URL(fileURLWithPath: target))

                // A reader sees the whole frames and leaves the tail alone.
                let reader = try LogReader(directory: copy)
                #expect(reader.endPosition == 14)
                #expect((reader.uncommittedTail?.bytes ?? 0) == Int64(cut) - lastFrame)

                let log = try Log(directory: copy, configuration: Self.configuration)
                if cut == Int(lastFrame) {
                    #expect(log.recovery == nil)
                } else {
                    let recovery = try #require(log.recovery, "cut at \(cut)")
                    #expect(recovery.offset == lastFrame)
                    #expect(recovery.position == 14)
                    #expect(recovery.bytes == Int64(cut) - lastFrame)
                    #expect(recovery.segment == target)
                    // The cut bytes are kept beside the segment, trailing zeros left out.
                    let saved = try Data(contentsOf: URL(fileURLWithPath: try #require(recovery.savedTo)))
                    let cutBytes = original[Int(lastFrame)..<cut]
                    #expect(
                        saved == cutBytes.prefix(through: cutBytes.lastIndex { $0 != 0 } ?? (cutBytes.startIndex - 1)))
                    #expect(recovery.savedTo == target + ".cut-\(lastFrame)")
                }
                #expect(log.endPosition == 14)
                #expect(try fileSize(target) == lastFrame)
                // The log goes on from there.
                try appendBatches(log, [2])
                expectRecords(try readAll(log.reader()), cover: 1..<16)
                try log.close()
            }
        }
    }

    @Test func aHalfWrittenFrameInPreallocatedSpaceIsTorn() throws {
        try withTemporaryDirectory { directory in
            let (segment, lastFrame) = try buildLog(directory, [3, 4])
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
            // The frame's second half never reached the disk; zeros were preallocated after it.
            for i in (Int(lastFrame) + (bytes.count - Int(lastFrame)) / 2)..<bytes.count { bytes[i] = 0 }
            bytes += [UInt8](repeating: 0, count: 4096)
            try Data(bytes).write(to: URL(fileURLWithPath: segment))
            let log = try Log(directory: directory, configuration: Self.configuration)
            #expect(log.recovery?.offset == lastFrame)
            #expect(log.recovery?.position == 4)
            #expect(log.endPosition == 4)
            try log.close()
            #expect(try fileSize(segment) == lastFrame)
        }
    }

    /// A whole last frame damaged after it was written looks like a torn one, so recovery cuts
    /// it, but it keeps the frame's bytes, and a second recovery at the same offset keeps its own.
    @Test func aDamagedLastFrameIsCutButItsBytesAreKept() throws {
        try withTemporaryDirectory { directory in
            let (segment, lastFrame) = try buildLog(directory, [3, 4])
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
            let frame = Array(bytes[Int(lastFrame)...])
            bytes[bytes.count - 3] ^= 0x10
            try Data(bytes).write(to: URL(fileURLWithPath: segment))
            let log = try Log(directory: directory, configuration: Self.configuration)
            let recovery = try #require(log.recovery)
            #expect(recovery.position == 4)
            let saved = try Array(Data(contentsOf: URL(fileURLWithPath: try #require(recovery.savedTo))))
            #expect(saved.count == frame.count)
            #expect(zip(saved, frame).filter { $0 != $1 }.count == 1)
            #expect("\(recovery)".hasSuffix("; saved to \(segment).cut-\(lastFrame)"))
            try log.close()
            #expect(try segmentFiles(directory) == [segment])

            // The same damage again (the file cut back and damaged the same way) is kept apart.
            try Data(bytes).write(to: URL(fileURLWithPath: segment))
            let again = try Log(directory: directory, configuration: Self.configuration)
            #expect(again.recovery?.savedTo == "\(segment).cut-\(lastFrame).1")
            try again.close()
        }
    }

    @Test func zeroFilledTailIsPreallocationButGarbageIsCorruption() throws {
        try withTemporaryDirectory { directory in
            let (segment, _) = try buildLog(directory, [3, 4])
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: segment))
            let end = try handle.seekToEnd()
            try handle.write(contentsOf: Data(count: 100))
            try handle.close()
            // Zeros after the last whole frame are space the writer preallocated, not a lost frame.
            let log = try Log(directory: directory, configuration: Self.configuration)
            #expect(log.recovery == nil)
            #expect(log.endPosition == 8)
            try log.close()
            #expect(try fileSize(segment) == Int64(end))

            let garbage = try FileHandle(forWritingTo: URL(fileURLWithPath: segment))
            try garbage.seekToEnd()
            try garbage.write(contentsOf: Data(repeating: 0x5A, count: 100))
            try garbage.close()
            #expect { try Log(directory: directory, configuration: Self.configuration) } throws: { error in
                let error = error as? LogError
                return error?.code == .corruptFrame && error?.path == segment && error?.offset == Int64(end)
            }
        }
    }

    @Test func everySingleBitFlipOfASealedSegmentIsALoudPreciseError() throws {
        try withTemporaryDirectory { directory in
            let source = directory + "/source"
            let log = try Log(
                directory: source,
                configuration: LogConfiguration(segmentBytes: 400, indexInterval: 64, durability: .none))
            try appendBatches(log, Array(repeating: 1, count: 12))
            try log.close()
            let segments = try segmentFiles(source)
            #expect(segments.count >= 2)
            let sealed = segments[0]
            let original = try Array(Data(contentsOf: URL(fileURLWithPath: sealed)))
            #expect(original.count > 100)
            // Frame starts in the sealed segment, to check that errors name the damaged frame.
            // Frame starts in the sealed segment (40-byte headers, stored length at byte 24), to
            // check that each error names the damaged frame.
            var frameStarts: [Int64] = []
            var offset = 0
            while offset < original.count {
                frameStarts.append(Int64(offset))
                let stored = original[(offset + 24)..<(offset + 28)].reversed().reduce(0) { $0 << 8 | Int($1) }
                offset += 40 + stored
            }
            #expect(offset == original.count && frameStarts.count >= 2)

            let copy = directory + "/copy"
            try FileManager.default.copyItem(atPath: source, toPath: copy)
            let target = copy + "/" + URL(fileURLWithPath: sealed).lastPathComponent
            var flipped = original
            for bit in 0..<(original.count * 8) {
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                defer { flipped[bit / 8] ^= 1 << UInt8(bit % 8) }
                try Data(flipped).write(to: URL(fileURLWithPath: target))
                let damagedFrame = frameStarts.last { $0 <= Int64(bit / 8) }!
                #expect(throws: LogError.self, "bit \(bit)") {
                    do {
                        _ = try LogReader(directory: copy).check()
                    } catch let error as LogError {
                        #expect(error.code == .corruptFrame, "bit \(bit)")
                        #expect(error.path == target, "bit \(bit)")
                        #expect(error.offset == damagedFrame, "bit \(bit)")
                        throw error
                    }
                }
            }
        }
    }

    @Test func damageBeforeTheTailOfTheLastSegmentStopsTheWriterFromOpening() throws {
        try withTemporaryDirectory { directory in
            let (segment, lastFrame) = try buildLog(directory, [5, 6, 7])
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
            bytes[Int(lastFrame) - 3] ^= 0x10  // inside the second frame's payload
            try Data(bytes).write(to: URL(fileURLWithPath: segment))
            #expect { try Log(directory: directory, configuration: Self.configuration) } throws: { error in
                let error = error as? LogError
                return error?.code == .corruptFrame && error?.path == segment && (error?.offset ?? -1) < lastFrame
            }
            // Nothing was truncated.
            #expect(try fileSize(segment) == Int64(bytes.count))
        }
    }
}
