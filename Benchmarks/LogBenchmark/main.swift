// Log throughput against raw liblz4 on the same bytes, as JSON lines.
//
//   swift run -c release LogBenchmark            full run (refuses a debug build)
//   swift run LogBenchmark --smoke               small run that checks counts, reports no times
import BenchmarkSupport
import Foundation
import RecountLog
import TestSupport

let run = BenchmarkRun(name: "LogBenchmark")
let smoke = run.smoke

let recordsPerBatch = 1000
let batchCount = smoke ? 20 : 2000
let fsyncBatchCount = smoke ? 5 : 300

/// ~80-byte records shaped like encoded samples: a random 16-byte id, growing timestamps,
/// a small value, a repeated origin and unit.
func makeBatches(count: Int) -> [LogBatch] {
    var random = SplitMix64(seed: 0x1234_5678)
    func next() -> UInt64 { random.next() }
    var time: UInt64 = 1_780_000_000_000
    var batches: [LogBatch] = []
    for _ in 0..<count {
        var batch = LogBatch(reservingCapacity: recordsPerBatch * 82)
        for _ in 0..<recordsPerBatch {
            var record: [UInt8] = []
            record.reserveCapacity(80)
            withUnsafeBytes(of: (next(), next())) { record += $0 }  // id
            time += 60_000 + next() % 1000
            withUnsafeBytes(of: time.littleEndian) { record += $0 }
            withUnsafeBytes(of: (time + 60_000).littleEndian) { record += $0 }
            withUnsafeBytes(of: Double(next() % 200).bitPattern.littleEndian) { record += $0 }
            record += Array("com.apple.health.watch".utf8)
            record += [1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(next() % 4)]
            batch.append(record)
        }
        batches.append(batch)
    }
    return batches
}

let batches = makeBatches(count: batchCount)
let records = Double(batchCount * recordsPerBatch)
let rawBytes = Double(batches.reduce(0) { $0 + $1.byteCount })
let scratch = try run.scratchDirectory("log-bench") + "/log"

// The bound: raw LZ4 on the same payloads. Its output buffers (one slot per batch, kept for
// the decompression bound) are allocated once, before any timing, as the log reuses its
// frame buffer from batch to batch.
let slotStarts = batches.reduce(into: [0]) { starts, batch in
    starts.append(starts.last! + LZ4Block.compressBound(batch.byteCount))
}
var compressedSlots = [UInt8](repeating: 0, count: slotStarts.last!)
var compressedLengths = [Int](repeating: 0, count: batches.count)
let compressTime = run.best { stopwatch in
    stopwatch.time {
        compressedSlots.withUnsafeMutableBytes { slots in
            for (index, batch) in batches.enumerated() {
                let slot = UnsafeMutableRawBufferPointer(rebasing: slots[slotStarts[index]..<slotStarts[index + 1]])
                compressedLengths[index] = batch.payload.withUnsafeBytes { LZ4Block.compress($0, into: slot) }
            }
        }
    }
}
run.check(compressedLengths.allSatisfy { $0 > 0 }, "lz4 compressed every batch")
var decompressed = [UInt8](repeating: 0, count: batches.map(\.byteCount).max()!)
let decompressTime = run.best { stopwatch in
    let ok = stopwatch.time {
        compressedSlots.withUnsafeBytes { slots in
            decompressed.withUnsafeMutableBytes { out in
                var ok = true
                for (index, batch) in batches.enumerated() {
                    let start = slotStarts[index]
                    ok =
                        LZ4Block.decompress(
                            UnsafeRawBufferPointer(rebasing: slots[start..<(start + compressedLengths[index])]),
                            into: UnsafeMutableRawBufferPointer(rebasing: out[0..<batch.byteCount])) && ok
                }
                return ok
            }
        }
    }
    run.check(ok, "lz4 round trip")
}

/// A new, empty log at `scratch`.
func freshLog(_ durability: LogConfiguration.Durability) throws -> Log {
    try? FileManager.default.removeItem(atPath: scratch)
    return try Log(directory: scratch, configuration: LogConfiguration(durability: durability))
}

// Appends are timed from an open, empty log to the last append's return. Segment rolls (each
// fsyncs the sealed segment) count; opening, closing (trim and fsync) and removing do not.
// First, on a disk as quiet as it gets: one fsync and commit record per 1,000-record batch.
// The best of several runs, like every measure: a single run on a shared disk was seen to
// vary tenfold.
sync()
let fsyncTime = try run.best { stopwatch in
    let log = try freshLog(.everyBatch)
    try stopwatch.time { for batch in batches.prefix(fsyncBatchCount) { try log.append(batch) } }
    try log.close()
}
let fsyncRecords = Double(fsyncBatchCount * recordsPerBatch)
run.check(try LogReader(directory: scratch).check().records == UInt64(fsyncRecords), "fsync log record count")

let appendTime = try run.best { stopwatch in
    let log = try freshLog(.none)
    try stopwatch.time { for batch in batches { try log.append(batch) } }
    try log.close()
}
let logStats = try LogReader(directory: scratch).check()
run.check(logStats.records == UInt64(records), "appended \(logStats.records) records")

var scanned = 0
let scanTime = try run.best { stopwatch in
    let reader = try LogReader(directory: scratch)
    let sum = try stopwatch.time {
        var count = 0
        var sum = 0
        try reader.forEach { record in
            count += 1
            sum &+= record.bytes.count
        }
        scanned = count
        return sum
    }
    run.check(sum > 0, "scan read bytes")
}
run.check(scanned == batchCount * recordsPerBatch, "scan saw \(scanned) records")

// Opening the writer checks the whole log: every frame of every segment (header, checksum,
// positions; no decompression), from the page cache here. Closing is outside the timing.
let openTime = try run.best { stopwatch in
    let log = try stopwatch.time { try Log(directory: scratch, configuration: LogConfiguration(durability: .none)) }
    try log.close()
}
try? FileManager.default.removeItem(atPath: scratch)

if smoke {
    emitJSONLine([
        ("benchmark", "log"), ("mode", "smoke"), ("records", Int(records)), ("scanned", scanned), ("ok", true),
    ])
    exit(0)
}
let mb = 1_000_000.0
let diskBytes = Double(logStats.fileBytes)
emitJSONLine([("benchmark", "lz4.compress"), ("MBps", rawBytes / compressTime / mb)])
emitJSONLine([("benchmark", "lz4.decompress"), ("MBps", rawBytes / decompressTime / mb)])
emitJSONLine([
    ("benchmark", "log.append.durability-none"), ("recordsPerSec", records / appendTime),
    ("MBps", rawBytes / appendTime / mb), ("vsLZ4Compress", compressTime / appendTime),
])
emitJSONLine([
    ("benchmark", "log.append.fsync-per-batch"), ("recordsPerSec", fsyncRecords / fsyncTime),
    ("batchesPerSec", Double(fsyncBatchCount) / fsyncTime),
    ("MBps", fsyncRecords * rawBytes / records / fsyncTime / mb),
    ("vsLZ4Compress", compressTime * fsyncRecords / records / fsyncTime),
])
emitJSONLine([
    ("benchmark", "log.scan"), ("recordsPerSec", records / scanTime), ("MBps", rawBytes / scanTime / mb),
    ("vsLZ4Decompress", decompressTime / scanTime),
])
emitJSONLine([
    ("benchmark", "log.open.verify"), ("GBps", diskBytes / openTime / 1e9), ("logBytes", Int(diskBytes)),
    ("segments", logStats.segments),
])
emitJSONLine([
    ("benchmark", "log.size"), ("recordBytes", rawBytes / records), ("diskBytesPerRecord", diskBytes / records),
    ("compressionRatio", rawBytes / diskBytes),
])
