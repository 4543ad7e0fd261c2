import Foundation
import RecountLog
import TestSupport
import Testing

/// What a crash and damage leave on disk, and what opening, checking and repairing make of it.
@Suite struct LogRecoveryTests {
    static let configuration = LogConfiguration(segmentBytes: 1 << 20, indexInterval: 256, durability: .none)

    /// A log as a crash leaves it: `committed` batches synced, then `uncommitted` ones written
    /// but never synced (the directory is copied while the writer still has it open).
    struct Crash {
        var directory: String
        var segment: String
        /// Where the first uncommitted frame starts, and each uncommitted frame's start.
        var frames: [Int64]
        var bytes: [UInt8]
        var committedEnd: UInt64
    }

    func crash(_ directory: String, committed: [Int], uncommitted: [Int], recordBytes: Int = 0) throws -> Crash {
        let source = directory + "/source"
        let log = try Log(directory: source, configuration: Self.configuration)
        try appendBatches(log, committed)
        try log.sync()
        var frames: [Int64] = []
        for count in uncommitted {
            frames.append(Int64(try log.reader().stats().fileBytes))
            if recordBytes > 0 {
                var batch = LogBatch()
                var generator = SplitMix64(seed: log.endPosition)
                for _ in 0..<count {
                    batch.append((0..<recordBytes).map { _ in UInt8.random(in: 1...255, using: &generator) })
                }
                try log.append(batch)
            } else {
                try appendBatches(log, [count])
            }
        }
        let crashed = directory + "/crashed"
        try FileManager.default.copyItem(atPath: source, toPath: crashed)
        try log.close()
        let segment = try segmentFiles(crashed).last!
        return Crash(
            directory: crashed, segment: segment, frames: frames,
            bytes: try Array(Data(contentsOf: URL(fileURLWithPath: segment))),
            committedEnd: 1 + UInt64(committed.reduce(0, +)))
    }

    /// A copy of `crash` whose segment holds `bytes`.
    func state(_ crash: Crash, _ bytes: [UInt8], in directory: String) throws -> String {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: crash.directory, toPath: directory)
        let segment = directory + "/" + URL(fileURLWithPath: crash.segment).lastPathComponent
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        return segment
    }

    /// Every byte of the last two (uncommitted) frames as the point where the file ends, and
    /// every sector boundary in them as the point where the disk stopped writing over the
    /// preallocated zeros: whole frames are kept, the torn one is cut with an exact copy
    /// kept, and positions go on from there.
    @Test(arguments: [false, true])
    func aCrashTearingTheLastTwoFramesAtEveryByteLosesOnlyTheTornFrame(zerosAfter: Bool) throws {
        try withTemporaryDirectory { directory in
            let crash = try crash(
                directory, committed: [5, 8], uncommitted: [3, 4], recordBytes: zerosAfter ? 700 : 0)
            let frameEnd = Int(try fileEndOfFrames(crash))
            let cuts = Int(crash.frames[0])..<frameEnd
            for cut in zerosAfter ? Array(cuts.filter { $0 % 512 == 0 }) : Array(cuts) {
                var bytes = Array(crash.bytes[..<cut])
                if zerosAfter { bytes += [UInt8](repeating: 0, count: crash.bytes.count - cut) }
                let segment = try state(crash, bytes, in: directory + "/copy")
                let copy = parentDirectory(segment)
                let wholeFrames =
                    crash.frames.filter { $0 < Int64(cut) }.count - (crash.frames.contains(Int64(cut)) ? 0 : 1)
                let kept: UInt64 = [14, 17, 21][max(0, wholeFrames)]
                let tornAt = wholeFrames < crash.frames.count ? crash.frames[max(0, wholeFrames)] : Int64(cut)

                let reader = try LogReader(directory: copy)
                #expect(reader.endPosition == crash.committedEnd, "a reader sees the committed records only")

                let log = try Log(directory: copy, configuration: Self.configuration)
                #expect(log.reader().snapshot.recordCount == kept - 1, "cut at \(cut)")
                let next = Log.positionReservation
                #expect(log.endPosition == next, "positions handed out before the crash are never given again")
                if tornAt == Int64(cut) || bytes[Int(tornAt)...].allSatisfy({ $0 == 0 }) {
                    #expect(log.recovery == nil, "cut at \(cut)")
                } else {
                    let recovery = try #require(log.recovery, "cut at \(cut)")
                    #expect(recovery.offset == tornAt && recovery.position == kept)
                    let saved = try Array(Data(contentsOf: URL(fileURLWithPath: try #require(recovery.savedTo))))
                    #expect(saved == Array(bytes[Int(tornAt)...]), "the copy is exact, cut at \(cut)")
                }
                try appendBatches(log, [2])
                let positions = Array(1..<kept) + [next, next + 1]
                #expect(try readAll(log.reader()).map(\.0) == positions)
                try log.close()
                #expect(try readAll(LogReader(directory: copy)).map(\.0) == positions)
            }
        }
    }

    /// The states a torn write can leave in the last, uncommitted frame, page by page: each is
    /// cut; a flipped bit in a whole uncommitted frame is damage, which the writer refuses.
    @Test func everyTornWriteStateIsCutAndAFlippedBitIsNot() throws {
        try withTemporaryDirectory { directory in
            // Incompressible records, so the last frame spans several 4 KiB pages.
            let crash = try crash(directory, committed: [3], uncommitted: [4], recordBytes: 5000)
            let start = Int(crash.frames[0])
            let end = Int(try fileEndOfFrames(crash))
            let pageAfterStart = (start / 4096 + 1) * 4096
            #expect(end - start > 3 * 4096)
            func zeroed(_ range: Range<Int>) -> [UInt8] {
                var bytes = crash.bytes
                for i in range { bytes[i] = 0 }
                return bytes
            }
            let torn: [(String, [UInt8])] =
                (1..<40).map { ("a partial header (\($0) bytes) then zeros", zeroed((start + $0)..<crash.bytes.count)) }
                + [
                    ("the first page missing, later pages written", zeroed(start..<pageAfterStart)),
                    ("a middle page missing", zeroed((pageAfterStart + 4096)..<(pageAfterStart + 8192))),
                    ("the last page missing", zeroed(((end - 1) / 4096 * 4096)..<end)),
                    ("the file ends inside the frame", Array(crash.bytes[..<(end - 100)])),
                ]
            for (name, bytes) in torn {
                let segment = try state(crash, bytes, in: directory + "/copy")
                let log = try Log(directory: parentDirectory(segment), configuration: Self.configuration)
                #expect(log.reader().snapshot.recordCount == 3, "\(name)")
                #expect(log.endPosition == Log.positionReservation, "\(name)")
                let recovery = try #require(log.recovery, "\(name)")
                #expect(recovery.offset == Int64(start), "\(name)")
                let saved = try Array(Data(contentsOf: URL(fileURLWithPath: try #require(recovery.savedTo))))
                #expect(saved == Array(bytes[start...]), "\(name): the copy is exact")
                try log.close()
            }
            // A flipped bit in the payload, and one in the header with the writer's preallocated
            // zeros after the frame (cut as torn, for the zeros, until an attack run).
            var flippedPayload = crash.bytes
            flippedPayload[start + 5000] ^= 0x04
            var flippedHeader = Array(crash.bytes[..<end]) + [UInt8](repeating: 0, count: 8192)
            flippedHeader[start + 10] ^= 0x01
            for flipped in [flippedPayload, flippedHeader] {
                let segment = try state(crash, flipped, in: directory + "/copy")
                #expect { try Log(directory: parentDirectory(segment), configuration: Self.configuration) } throws: {
                    let error = $0 as? LogError
                    return error?.code == .corruptFrame && error?.path == segment && error?.offset == Int64(start)
                }
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: segment))) == flipped, "nothing was cut")
            }
        }
    }

    /// Every single-bit flip of a small, cleanly closed log (three segments, every frame
    /// committed) is a loud error naming the damaged file and frame, for readers and for the
    /// writer, which refuses to open; `repair` then cuts back to the frame before it and the
    /// lost positions are never given again.
    @Test func everySingleBitFlipOfACommittedLogIsRefusedAndRepairedWithoutReusingPositions() throws {
        try withTemporaryDirectory { directory in
            let source = directory + "/source"
            let log = try Log(
                directory: source,
                configuration: LogConfiguration(segmentBytes: 300, indexInterval: 64, durability: .none))
            try appendBatches(log, Array(repeating: 2, count: 8))
            try log.close()
            let segments = try segmentFiles(source)
            #expect(segments.count >= 3)
            let copy = directory + "/copy"
            try FileManager.default.copyItem(atPath: source, toPath: copy)
            var repairs = 0
            for (number, segment) in segments.enumerated() {
                let original = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
                let starts = frameStarts(original)
                let target = copy + "/" + URL(fileURLWithPath: segment).lastPathComponent
                for bit in 0..<(original.count * 8) {
                    var flipped = original
                    flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                    try Data(flipped).write(to: URL(fileURLWithPath: target))
                    let frame = starts.last { $0 <= bit / 8 }!
                    func isThisDamage(_ error: any Error) -> Bool {
                        let error = error as? LogError
                        return error?.code == .corruptFrame && error?.path == target && error?.offset == Int64(frame)
                    }
                    let comment = Comment(rawValue: "bit \(bit) of \(target)")
                    #expect(comment, performing: { _ = try LogReader(directory: copy).check() }, throws: isThisDamage)
                    #expect(comment, performing: { _ = try Log(directory: copy) }, throws: isThisDamage)
                    #expect(try Array(Data(contentsOf: URL(fileURLWithPath: target))) == flipped, comment)
                    // Repairing every flip would be slow: one bit per frame stands for all.
                    if bit % 8 == 3 && starts.contains(bit / 8 - 20) {
                        repairs += 1
                        let repaired = directory + "/repaired"
                        try? FileManager.default.removeItem(atPath: repaired)
                        try FileManager.default.copyItem(atPath: copy, toPath: repaired)
                        let repair = try Log.repair(directory: repaired)
                        #expect(repair.damage?.code == .corruptFrame && repair.damage?.offset == Int64(frame), comment)
                        let lostFrom = try #require(repair.lostPositions?.lowerBound)
                        #expect(repair.lostPositions?.upperBound == 17)
                        let log = try Log(directory: repaired)
                        #expect(log.endPosition == 17, "no position is given twice")
                        try appendBatches(log, [1])
                        let records = try readAll(log.reader())
                        #expect(records.map(\.0) == Array(1..<lostFrom) + [17], "segment \(number), bit \(bit)")
                        try log.close()
                    }
                }
                try Data(original).write(to: URL(fileURLWithPath: target))
            }
            #expect(repairs >= segments.count)
        }
    }

    /// A log of three committed frames of three records, a bit of its second frame flipped, in
    /// `directory/damaged` (returned).
    func committedLogWithItsSecondFrameDamaged(_ directory: String) throws -> String {
        let damaged = try crash(directory, committed: [3, 3, 3], uncommitted: [])
        var bytes = damaged.bytes
        bytes[frameStarts(bytes)[1] + 20] ^= 0x10
        _ = try state(damaged, bytes, in: directory + "/damaged")
        return directory + "/damaged"
    }

    /// A repair killed after it replaced the commit record but before the manifest leaves two
    /// files that each read well but disagree: no writer opens the log, and the next repair
    /// rebuilds them (it used to call the log intact and change nothing).
    @Test func aRepairKilledBetweenTheCommitRecordAndTheManifestIsFinishedByTheNext() throws {
        try withTemporaryDirectory { directory in
            let killed = try committedLogWithItsSecondFrameDamaged(directory)
            let manifest = try Data(contentsOf: URL(fileURLWithPath: killed + "/MANIFEST"))
            let first = try Log.repair(directory: killed)
            #expect(first.damage?.code == .corruptFrame && first.lostPositions?.lowerBound == 4)
            let next = try #require(first.lostPositions?.upperBound)
            try manifest.write(to: URL(fileURLWithPath: killed + "/MANIFEST"))
            #expect(throws: LogError.self) { _ = try Log(directory: killed) }

            let second = try Log.repair(directory: killed)
            #expect(second.damage?.code == .corruptManifest && second.rebuiltManifest, "\(second)")
            let log = try Log(directory: killed)
            #expect(log.endPosition == next, "no position is given twice")
            try appendBatches(log, [1])
            #expect(try readAll(log.reader()).map(\.0) == [1, 2, 3, next])
            try log.close()
        }
    }

    /// A repair killed after it cut the damaged segment, before it wrote the manifest and
    /// commit record, leaves a segment that ends early; the next repair names the copy the first
    /// one kept of the cut bytes (it made an empty one and named that; an attack run).
    @Test func aRepairKilledAfterItCutTheSegmentNamesTheCopyItKept() throws {
        try withTemporaryDirectory { directory in
            let killed = try committedLogWithItsSecondFrameDamaged(directory)
            let kept = try ["MANIFEST", "COMMIT"].map { try Data(contentsOf: URL(fileURLWithPath: killed + "/" + $0)) }
            let first = try Log.repair(directory: killed)
            let copy = try #require(first.savedTo.first)
            for (name, data) in zip(["MANIFEST", "COMMIT"], kept) {
                try data.write(to: URL(fileURLWithPath: killed + "/" + name))
            }
            let second = try Log.repair(directory: killed)
            #expect(second.savedTo == [copy] && second.lostPositions == first.lostPositions, "\(second)")
            #expect(!FileManager.default.fileExists(atPath: copy + ".1"))
            let log = try Log(directory: killed)
            try appendBatches(log, [1])
            #expect(try readAll(log.reader()).map(\.0) == [1, 2, 3, try #require(first.lostPositions?.upperBound)])
            try log.close()
        }
    }

    /// A repair killed after its last write and before it printed left no word of the positions
    /// it lost: the next repair called the log intact, and a follower of the projections' feed
    /// was never told to read again (an attack run, 2026-12-07). The report is kept in the log
    /// directory first, and a repair with nothing to do gives it as the last repair's.
    @Test func aRepairWithNothingToDoGivesTheLastRepairsReport() throws {
        try withTemporaryDirectory { directory in
            let repaired = try committedLogWithItsSecondFrameDamaged(directory)
            let fresh = try Log(directory: directory + "/fresh", configuration: Self.configuration)
            try appendBatches(fresh, [2])
            try fresh.close()
            let intact = try Log.repair(directory: directory + "/fresh")
            #expect(intact.damage == nil && intact.lastRepairReport == nil, "no repair ran there")
            #expect(intact.description == "the log is intact; nothing was cut")

            let first = try Log.repair(directory: repaired)
            let lost = try #require(first.lostPositions)
            let second = try Log.repair(directory: repaired)
            #expect(second.damage == nil && second.lastRepairReport == first.description)
            #expect(second.description.contains("lost positions \(lost.lowerBound)..<\(lost.upperBound)"))
            #expect(second.description.hasPrefix("the log is intact; nothing was cut\nthe last repair's report"))
            let log = try Log(directory: repaired)
            try appendBatches(log, [1])
            try log.close()
            #expect(try Log.repair(directory: repaired).lastRepairReport == first.description)
        }
    }

    /// Deleting or cutting segments, or the manifest, is found by readers and the writer.
    @Test func missingSegmentsAndTruncationAtAFrameBoundaryAreDamage() throws {
        try withTemporaryDirectory { directory in
            let source = directory + "/source"
            let log = try Log(
                directory: source,
                configuration: LogConfiguration(segmentBytes: 400, indexInterval: 64, durability: .everyBatch))
            try appendBatches(log, Array(repeating: 3, count: 12))
            try log.close()
            let segments = try segmentFiles(source)
            #expect(segments.count >= 3)
            let last = segments.last!
            let lastBytes = try Array(Data(contentsOf: URL(fileURLWithPath: last)))
            let damages: [(String, (String) throws -> Void)] = [
                (
                    "the first segment deleted",
                    { try FileManager.default.removeItem(atPath: $0 + "/" + name(segments[0])) }
                ),
                (
                    "a middle segment deleted",
                    { try FileManager.default.removeItem(atPath: $0 + "/" + name(segments[1])) }
                ),
                ("the last segment deleted", { try FileManager.default.removeItem(atPath: $0 + "/" + name(last)) }),
                (
                    "the last segment cut at a frame boundary",
                    {
                        try Data(lastBytes[..<frameStarts(lastBytes).last!]).write(
                            to: URL(fileURLWithPath: $0 + "/" + name(last)))
                    }
                ),
                (
                    "a sealed segment cut at a frame boundary",
                    {
                        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segments[0])))
                        try Data(bytes[..<frameStarts(bytes).last!]).write(
                            to: URL(fileURLWithPath: $0 + "/" + name(segments[0])))
                    }
                ),
                (
                    "a segment the manifest does not list",
                    {
                        try Data(lastBytes).write(to: URL(fileURLWithPath: $0 + "/00000000000000009999.seg"))
                    }
                ),
                ("the manifest deleted", { try FileManager.default.removeItem(atPath: $0 + "/MANIFEST") }),
                ("the commit record deleted", { try FileManager.default.removeItem(atPath: $0 + "/COMMIT") }),
            ]
            for (what, damage) in damages {
                let copy = directory + "/copy"
                try? FileManager.default.removeItem(atPath: copy)
                try FileManager.default.copyItem(atPath: source, toPath: copy)
                try damage(copy)
                #expect(
                    Comment(rawValue: what), performing: { _ = try LogReader(directory: copy).check() },
                    throws: { ($0 as? LogError)?.isDamage == true })
                #expect(
                    Comment(rawValue: what), performing: { _ = try Log(directory: copy) },
                    throws: { ($0 as? LogError)?.isDamage == true })
                let repair = try Log.repair(directory: copy)
                #expect(repair.damage != nil, "\(what)")
                let repaired = try Log(directory: copy)
                // A segment file named for position 9999 says positions up to it may have been
                // handed out: its bytes are set aside, and new records start after it.
                let next: UInt64 = what == "a segment the manifest does not list" ? 9999 : 37
                #expect(repaired.endPosition == next, "\(what): no position is given twice")
                try appendBatches(repaired, [1])
                let records = try readAll(repaired.reader())
                #expect(records.last?.0 == next, "\(what)")
                expectRecords(Array(records.dropLast()), cover: 1..<(records.dropLast().last.map { $0.0 + 1 } ?? 1))
                try repaired.close()
                _ = try LogReader(directory: copy).check()
            }
        }
    }

    /// A crash between creating a new segment and listing it leaves an empty file, which the
    /// writer removes; zeros after the last frame are preallocated space.
    @Test func harmlessLeftoversOfACrashAreTidied() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(directory: directory, configuration: Self.configuration)
            try appendBatches(log, [3, 4])
            try log.close()
            let segment = try segmentFiles(directory).last!
            let end = try fileSize(segment)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: segment))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(count: 9000))
            try handle.close()
            let leftover = directory + "/00000000000000000008.seg"
            #expect(FileManager.default.createFile(atPath: leftover, contents: Data()))
            let reopened = try Log(directory: directory, configuration: Self.configuration)
            #expect(reopened.recovery == nil)
            #expect(reopened.endPosition == 8)
            try reopened.close()
            #expect(!FileManager.default.fileExists(atPath: leftover))
            #expect(try fileSize(segment) == end)
        }
    }

    /// A torn write of either commit slot leaves the other: nothing is lost, and when the
    /// newer slot (the clean close that released the reserved positions) is the torn one, the
    /// writer skips past the reservation rather than risk giving a position twice.
    @Test func aTornCommitSlotFallsBackToTheOther() throws {
        try withTemporaryDirectory { directory in
            var ends: [UInt64] = []
            for copy in try Self.logsWithATornCommitSlot(in: directory) {
                let reopened = try Log(directory: copy, configuration: Self.configuration)
                #expect(reopened.recovery == nil)
                ends.append(reopened.endPosition)
                expectRecords(try readAll(reopened.reader()), cover: 1..<8)
                try reopened.close()
            }
            #expect(ends.sorted() == [8, Log.positionReservation])
        }
    }

    /// A commit slot with a valid checksum but a sequence number or reservation no writer
    /// reaches (2^64 − 1) is refused like a torn one: the next commit's arithmetic overflowed,
    /// trapping every writer.
    @Test func aCommitSlotClaimingImpossibleNumbersIsRefused() throws {
        try withTemporaryDirectory { directory in
            for (field, value) in [(8, UInt64.max), (40, UInt64.max), (40, 1 << 63)] {
                let copy = directory + "/field\(field)-\(value)"
                let log = try Log(directory: copy, configuration: Self.configuration)
                try appendBatches(log, [3, 4])
                try log.close()
                try Self.rewriteCommitSlots(of: copy, field: field, to: value)
                #expect(throws: LogError.self, "field \(field) = \(value)") { _ = try Log(directory: copy) }
                let repair = try Log.repair(directory: copy)
                #expect(repair.rebuiltManifest, "field \(field) = \(value)")
                let reopened = try Log(directory: copy)
                try appendBatches(reopened, [1])
                #expect(try readAll(reopened.reader()).map(\.0).prefix(7) == ArraySlice(1..<8))
                try reopened.close()
            }
        }
    }

    /// Sets the `UInt64` at `field` of both commit slots of the log in `directory` to `value`,
    /// with valid checksums: the commit record of a writer that got its numbers wrong.
    static func rewriteCommitSlots(of directory: String, field: Int, to value: UInt64) throws {
        let path = directory + "/COMMIT"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        // Every slot: the newer one whichever it is.
        for slot in [0, 4096] {
            withUnsafeBytes(of: value.littleEndian) {
                bytes.replaceSubrange((slot + field)..<(slot + field + 8), with: $0)
            }
            let checksum = bytes.withUnsafeBytes {
                Checksum.xxh3(UnsafeRawBufferPointer(rebasing: $0[slot..<(slot + 48)]))
            }
            withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange((slot + 48)..<(slot + 56), with: $0) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Whole frames with valid checksums that the commit record, or their own record count,
    /// describe wrongly (what a faulty writer, or a copy of a live log taken file by file,
    /// leaves): the writer refuses the log, and `repair` makes it open again. It keeps every
    /// frame whose records are whole, cuts one that does not split into its records, and
    /// never gives a position the log had handed out again.
    @Test func repairMendsAValidLookingLogTheWriterRefuses() throws {
        try withTemporaryDirectory { directory in
            let source = directory + "/source"
            let log = try Log(directory: source, configuration: Self.configuration)
            try appendBatches(log, [3, 4])
            try log.close()
            let segment = try segmentFiles(source)[0]
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: segment)))
            let second = frameStarts(bytes)[1]
            let cases: [(name: String, damage: (String) throws -> Void, kept: Range<UInt64>, lost: Range<UInt64>?)] = [
                (
                    "the commit record's end past the frames",
                    {
                        try Self.rewriteCommitSlots(of: $0, field: 16, to: 12)
                        try Self.rewriteCommitSlots(of: $0, field: 40, to: 12)
                    },
                    1..<8, 8..<12
                ),
                (
                    "the commit record's length inside the last frame",
                    { try Self.rewriteCommitSlots(of: $0, field: 32, to: UInt64(bytes.count - 10)) }, 1..<8, nil
                ),
                (
                    "the last frame counting a record more than it holds",
                    {
                        var frame = Array(bytes[second...])
                        frame.withUnsafeMutableBytes { frame in
                            guard case .success(var header) = FrameHeader.decode(UnsafeRawBufferPointer(frame)) else {
                                return
                            }
                            header.recordCount += 1
                            header.encode(into: frame, payload: UnsafeRawBufferPointer(rebasing: frame[40...]))
                        }
                        try Data(bytes[..<second] + frame).write(to: URL(fileURLWithPath: $0 + "/" + name(segment)))
                    }, 1..<4, 4..<9
                ),
            ]
            for (number, damage) in cases.enumerated() {
                let copy = directory + "/case\(number)"
                try FileManager.default.copyItem(atPath: source, toPath: copy)
                try damage.damage(copy)
                #expect(throws: LogError.self, "\(damage.name)") { _ = try Log(directory: copy) }
                let repair = try Log.repair(directory: copy)
                #expect(repair.damage != nil, "\(damage.name)")
                #expect(repair.lostPositions == damage.lost, "\(damage.name)")
                #expect(try Log.repair(directory: copy).damage == nil, "\(damage.name): one repair mends it")
                let reopened = try Log(directory: copy)
                let appended = try appendBatches(reopened, [1])[0]
                #expect(appended.lowerBound >= (damage.lost?.upperBound ?? damage.kept.upperBound), "\(damage.name)")
                #expect(
                    try readAll(reopened.reader()).map(\.0) == Array(damage.kept) + Array(appended), "\(damage.name)")
                try reopened.close()
                #expect(try LogReader(directory: copy).check().records == UInt64(damage.kept.count + 1))
            }
        }
    }

    /// A manifest, checksum intact, whose sealed segment's end disagrees with the segment's
    /// frames: the writer refuses the log, and `repair` rewrites the manifest from the frames,
    /// keeping every record.
    @Test func repairRewritesAManifestWhoseSealedEndDisagreesWithTheFrames() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(
                directory: directory,
                configuration: LogConfiguration(segmentBytes: 400, indexInterval: 64, durability: .everyBatch))
            let appended = try appendBatches(log, Array(repeating: 3, count: 12))
            try log.close()
            #expect(try segmentFiles(directory).count >= 3)
            let path = directory + "/MANIFEST"
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            // The first entry's end position (after magic, version and count, and its first position).
            var end = bytes[20..<28].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            end += 2
            withUnsafeBytes(of: end.littleEndian) { bytes.replaceSubrange(20..<28, with: $0) }
            let checksum = bytes.withUnsafeBytes {
                Checksum.xxh3(UnsafeRawBufferPointer(rebasing: $0[..<(bytes.count - 8)]))
            }
            withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange((bytes.count - 8)..., with: $0) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(throws: LogError.self) { _ = try Log(directory: directory) }
            let repair = try Log.repair(directory: directory)
            #expect(repair.damage != nil && repair.lostPositions == nil)
            let reopened = try Log(directory: directory)
            let all = appended.flatMap { Array($0) }
            #expect(try readAll(reopened.reader()).map(\.0) == all)
            #expect(try appendBatches(reopened, [1])[0].lowerBound > all.last!)
            try reopened.close()
        }
    }

    /// Two copies of a closed log of records 1..<8, each with one of its two commit slots torn.
    static func logsWithATornCommitSlot(in directory: String) throws -> [String] {
        let source = directory + "/source"
        let log = try Log(directory: source, configuration: Self.configuration)
        try appendBatches(log, [3, 4])
        try log.close()
        return try [UInt64(0), 4096].map { slot in
            let copy = directory + "/torn\(slot)"
            try FileManager.default.copyItem(atPath: source, toPath: copy)
            let commit = try FileHandle(forWritingTo: URL(fileURLWithPath: copy + "/COMMIT"))
            try commit.seek(toOffset: slot + 20)
            try commit.write(contentsOf: Data([0xFF]))
            try commit.close()
            return copy
        }
    }

    /// A crashed writer leaves a gap in positions: the next writer starts after its
    /// reservation, in a new segment. Rebuilding a damaged manifest or commit record from the
    /// segment files keeps the segments after the gap, and positions are never given twice.
    @Test func aRebuiltManifestKeepsTheSegmentsAfterACrashsGap() throws {
        try withTemporaryDirectory { directory in
            // The newer commit slot torn: the writer skips past the reservation (see above).
            var gaps = 0
            for copy in try Self.logsWithATornCommitSlot(in: directory) {
                let log = try Log(directory: copy, configuration: Self.configuration)
                let skipped = log.endPosition == Log.positionReservation
                if skipped { try appendBatches(log, [2]) }
                try log.close()
                guard skipped else { continue }
                gaps += 1
                let expected = try readAll(LogReader(directory: copy)).map(\.0)
                #expect(expected == Array(1..<8) + [Log.positionReservation, Log.positionReservation + 1])
                for (what, damage) in [
                    (
                        "the manifest damaged",
                        { (at: String) in try Data([1, 2, 3]).write(to: URL(fileURLWithPath: at + "/MANIFEST")) }
                    ),
                    (
                        "the commit record deleted",
                        { (at: String) in try FileManager.default.removeItem(atPath: at + "/COMMIT") }
                    ),
                ] {
                    let damaged = directory + "/damaged"
                    try? FileManager.default.removeItem(atPath: damaged)
                    try FileManager.default.copyItem(atPath: copy, toPath: damaged)
                    try damage(damaged)
                    let repair = try Log.repair(directory: damaged)
                    #expect(repair.damage != nil && repair.lostRecords == 0 && repair.savedTo.isEmpty, "\(what)")
                    #expect(try readAll(LogReader(directory: damaged)).map(\.0) == expected, "\(what)")
                    let repaired = try Log(directory: damaged, configuration: Self.configuration)
                    #expect(repaired.endPosition == Log.positionReservation + 2, "\(what): no position is given twice")
                    try repaired.close()
                }
            }
            #expect(gaps == 1, "one of the two torn slots makes the writer skip its reservation")
        }
    }

    func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    func parentDirectory(_ path: String) -> String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    /// The end of the frames in a crash's segment (the zeros written ahead follow).
    func fileEndOfFrames(_ crash: Crash) throws -> Int64 {
        Int64(frameStarts(crash.bytes).last.map { $0 + frameLength(crash.bytes, at: $0) } ?? 0)
    }

    func frameLength(_ bytes: [UInt8], at offset: Int) -> Int {
        40 + bytes[(offset + 24)..<(offset + 28)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// The offsets of the frames in a segment's bytes, up to the first that is not a frame.
    func frameStarts(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var offset = 0
        while offset + 40 <= bytes.count, bytes[offset..<(offset + 4)] == [0x52, 0x43, 0x4C, 0x47] {
            starts.append(offset)
            offset += frameLength(bytes, at: offset)
        }
        return starts
    }
}
