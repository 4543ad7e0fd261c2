import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import RecountLog

@Suite struct LogFaultTests {
    func configuration(
        _ plan: FaultyFileSystem.Plan, durability: LogConfiguration.Durability = .everyBatch, segmentBytes: Int64 = 2048
    ) -> LogConfiguration {
        var configuration = LogConfiguration(segmentBytes: segmentBytes, indexInterval: 256, durability: durability)
        configuration.fileSystem = FaultyFileSystem(plan)
        return configuration
    }

    @Test(arguments: [0, 1, 17, 39, 40, 100])
    func aFailedOrPartialWriteRejectsTheBatchAndLeavesAValidLog(partialBytes: Int) throws {
        try withTemporaryDirectory { directory in
            // Write 1 preallocates zeros; writes 2 to 4 are the first three frames. One segment
            // holds them all, so write 5 is the fourth frame's whatever the frames compress to.
            let log = try Log(
                directory: directory,
                configuration: configuration(
                    .init(failWrite: 5, partialBytes: partialBytes, errno: ENOSPC), segmentBytes: 1 << 20))
            try appendBatches(log, [10, 10, 10])
            #expect { try appendBatches(log, [10]) } throws: { ($0 as? LogError)?.errno == ENOSPC }
            #expect(log.endPosition == 31)
            // The failed batch left nothing behind, and the log goes on.
            try appendBatches(log, [5])
            expectRecords(try readAll(log.reader()), cover: 1..<36)
            try log.close()
            let reopened = try Log(directory: directory)
            #expect(reopened.recovery == nil)
            expectRecords(try readAll(reopened.reader()), cover: 1..<36)
        }
    }

    /// With room for a small batch but not for the zeros written ahead, appends still succeed:
    /// on a full disk, past a quota, or past a file-size limit (`ulimit -f` refused a batch
    /// that fitted; an attack run).
    @Test(arguments: [ENOSPC, EDQUOT, EFBIG])
    func aNearlyFullDiskStopsPreallocationButTakesSmallBatches(errno: Int32) throws {
        try withTemporaryDirectory { directory in
            var configuration = LogConfiguration(durability: .everyBatch)
            configuration.fileSystem = FaultyFileSystem(.init(errno: errno, roomForBytes: 64 << 10))
            let log = try Log(directory: directory, configuration: configuration)
            try appendBatches(log, [3, 4, 5])
            try log.close()
            expectRecords(try readAll(LogReader(directory: directory)), cover: 1..<13)
        }
    }

    /// A copy of bytes about to be cut that fails on a full disk is removed, and a copy an
    /// earlier attempt completed is kept rather than made again: each retry of a repair or of
    /// opening a torn log on a full disk left one more `.cut-` file (an attack run).
    @Test func aCopyOfCutBytesIsNotLeftHalfWrittenNorMadeTwice() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/00000000000000000001.seg"
            let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 5) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let fileSystem = FaultyFileSystem(.init(roomForCutBytes: 1 << 20))
            let file = try fileSystem.open(path, writable: false, create: false)
            let listing = { try FileManager.default.contentsOfDirectory(atPath: directory).sorted() }
            for _ in 0..<2 {
                #expect { try LogCut.save(path, file: file, from: 4096, fileSystem: fileSystem) } throws: {
                    ($0 as? LogError)?.errno == ENOSPC
                }
                #expect(try listing() == ["00000000000000000001.seg"], "no part of a copy is left")
            }
            fileSystem.plan.withLock { $0.roomForCutBytes = nil }
            let saved = try LogCut.save(path, file: file, from: 4096, fileSystem: fileSystem)
            #expect(saved == path + ".cut-4096")
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: saved))) == Array(bytes[4096...]))
            #expect(try LogCut.save(path, file: file, from: 4096, fileSystem: fileSystem) == saved)
            // Other bytes cut at that offset get a copy of their own beside it.
            try Data(bytes.reversed()).write(to: URL(fileURLWithPath: path))
            let other = try fileSystem.open(path, writable: false, create: false)
            #expect(try LogCut.save(path, file: other, from: 4096, fileSystem: fileSystem) == saved + ".1")
            #expect(
                try listing() == [
                    "00000000000000000001.seg", "00000000000000000001.seg.cut-4096",
                    "00000000000000000001.seg.cut-4096.1",
                ])
        }
    }

    /// A copy of cut bytes is written under a `.partial` name and renamed once whole, so a
    /// crash during it (SIGKILL, power loss) never leaves a short file under the name of an
    /// exact copy; the next copy removes what such a crash left.
    @Test func aCopyCutShortByACrashLeavesOnlyAPartialThatTheNextCopyRemoves() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/00000000000000000001.seg"
            let bytes = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            // What crashes during two copies left: the start of one at this offset, one at another.
            try Data(bytes[4096..<9000]).write(to: URL(fileURLWithPath: path + ".cut-4096.partial"))
            try Data(bytes[100..<200]).write(to: URL(fileURLWithPath: path + ".cut-100.1.partial"))
            let fileSystem = FaultyFileSystem(.init())
            let file = try fileSystem.open(path, writable: false, create: false)
            let saved = try LogCut.save(path, file: file, from: 4096, fileSystem: fileSystem)
            #expect(saved == path + ".cut-4096")
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: saved))) == Array(bytes[4096...]))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                    "00000000000000000001.seg", "00000000000000000001.seg.cut-4096",
                ])
        }
    }

    /// Creating a log fsyncs every directory it created, and the one it created it in, and
    /// the log directory after its files appear and are renamed.
    @Test func creatingALogSyncsEveryDirectoryItMade() throws {
        try withTemporaryDirectory { directory in
            let fileSystem = FaultyFileSystem(.init())
            var configuration = LogConfiguration()
            configuration.fileSystem = fileSystem
            let target = directory + "/data/log"
            let log = try Log(directory: target, configuration: configuration)
            try appendBatches(log, [1])
            try log.close()
            let synced = fileSystem.syncedDirectories.withLock { $0 }
            #expect(Array(synced.prefix(2)) == [directory, directory + "/data"])
            #expect(synced.filter { $0 == target }.count >= 3, "COMMIT created, MANIFEST renamed, segment created")
        }
    }

    @Test func aFailedFsyncStopsTheLogUntilItIsReopened() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(directory: directory, configuration: configuration(.init(failSyncFrom: 3)))
            try appendBatches(log, [4, 4])
            // The error names the batch whose fate is open.
            #expect { try appendBatches(log, [4]) } throws: {
                ($0 as? LogError)?.errno == EIO && ($0 as? LogError)?.unsynced == 9..<13
            }
            // Fail-stop: no retry, no carrying on, even once the disk would accept a sync again.
            for _ in 0..<3 {
                #expect { try appendBatches(log, [1]) } throws: { ($0 as? LogError)?.code == .failStopped }
                #expect { try log.sync() } throws: { ($0 as? LogError)?.code == .failStopped }
            }
            #expect(log.endPosition == 9, "readers never see the batch whose sync failed")
            try log.close()
            let reopened = try Log(directory: directory)
            // The unsynced batch may or may not have reached the disk; here it did, whole. The
            // log was not closed cleanly, so new positions start past the reserved ones.
            #expect(reopened.endPosition == Log.positionReservation)
            expectRecords(try readAll(reopened.reader()), cover: 1..<13)
        }
    }

    /// Without durability per batch, a failed sync names every position written since the
    /// last commit: none of them is known to be on disk.
    @Test func aFailedSyncNamesEveryPositionWrittenSinceTheLastCommit() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(
                directory: directory,
                configuration: configuration(.init(failSyncFrom: 2), durability: .none, segmentBytes: 1 << 20))
            try appendBatches(log, [3])
            try log.sync()
            try appendBatches(log, [4, 5])
            #expect { try log.sync() } throws: { ($0 as? LogError)?.unsynced == 4..<13 }
            try log.close()
        }
    }

    @Test func aFailedSyncWhileRollingASegmentStopsTheLog() throws {
        try withTemporaryDirectory { directory in
            let log = try Log(
                directory: directory, configuration: configuration(.init(failSyncFrom: 1), durability: .none))
            // Without durability nothing is synced until the segment is sealed, which always syncs it.
            try appendBatches(log, [40])
            #expect(throws: LogError.self) { try appendBatches(log, Array(repeating: 40, count: 3)) }
            #expect { try appendBatches(log, [1]) } throws: { ($0 as? LogError)?.code == .failStopped }
        }
    }

    /// Waits up to two seconds for `condition`.
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test func groupCommitSyncsOldBatchesWhenAppendsStop() throws {
        try withTemporaryDirectory { directory in
            let fileSystem = FaultyFileSystem(.init())
            var configuration = LogConfiguration(
                durability: .groupCommit(maxBytes: 1 << 30, maxDelay: .milliseconds(20)))
            configuration.fileSystem = fileSystem
            let log = try Log(directory: directory, configuration: configuration)
            try appendBatches(log, [5])
            let afterAppend = fileSystem.syncs.load(ordering: .relaxed)
            #expect(
                eventually { fileSystem.syncs.load(ordering: .relaxed) > afterAppend }, "the timer synced the batch")
            try log.close()
        }
    }

    @Test func aFailedTimerSyncStopsTheLog() throws {
        try withTemporaryDirectory { directory in
            let fileSystem = FaultyFileSystem(.init(failSyncFrom: 1))
            var configuration = LogConfiguration(
                durability: .groupCommit(maxBytes: 1 << 30, maxDelay: .milliseconds(20)))
            configuration.fileSystem = fileSystem
            let log = try Log(directory: directory, configuration: configuration)
            try appendBatches(log, [5])
            #expect(eventually { fileSystem.syncs.load(ordering: .relaxed) >= 1 })
            #expect { try appendBatches(log, [1]) } throws: { ($0 as? LogError)?.code == .failStopped }
        }
    }
}
