// Issue 8's store bake-off, in Swift against the real libraries: LMDB, SQLite (WAL) and packed
// per-cell blocks take the same workload — 1,000 users × 90 days, 1,000,000 samples, a lookup
// then (when new) two writes per sample, 10,000 samples a transaction; then 10 % re-deliveries
// (lookups that hit); then a reopen and 120,000 random cells read whole. One JSON line per store.
//
//   swift run -j 1 -c release StoreBakeoff     full run (refuses a debug build)
//   swift run StoreBakeoff --smoke             tiny run that checks counts, reports no times
//   ... --samples-per-transaction N            N samples a write transaction (default 10,000)
//   ... --only NAME                            runs one store (lmdb, sqlite-wal, packed-cells)
//   ... --sort-batches                         applies each transaction's samples in id-key order
import BenchmarkSupport
import Foundation
import TestSupport

let run = BenchmarkRun(name: "StoreBakeoff")
let smoke = run.smoke
let workload =
    smoke ? Workload(users: 4, days: 6, samples: 270) : Workload(users: 1_000, days: 90, samples: 1_000_000)
let batchSize = run.value(of: "--samples-per-transaction").flatMap { Int($0) } ?? (smoke ? 50 : 10_000)
run.check(batchSize > 0, "--samples-per-transaction needs a positive number")
let only = run.value(of: "--only")
let sortBatches = CommandLine.arguments.contains("--sort-batches")
let storeNames = [LMDBStore.name, SQLiteStore.name, PackedCellStore.name]
run.check(only.map(storeNames.contains) ?? true, "--only: expected one of \(storeNames.joined(separator: ", "))")
let cellReads = smoke ? 60 : 120_000
/// Each store runs this many times from an empty directory, taking turns; each phase reports its best.
let repetitions = smoke ? 1 : 2

var random = SplitMix64(seed: 0xBA4E_0FF8)
let redelivered = (0..<workload.samples / 10).map { _ in Int(random.next() % UInt64(workload.samples)) }
let readCells = (0..<cellReads).map { _ in Int(random.next() % UInt64(workload.cells)) }

/// What reading `readCells` must find, from the workload's definition alone.
let expectedRead = readCells.reduce(into: ReadTotals()) { totals, cell in
    let userDay = cell / Workload.metrics
    let first = workload.firstSample(ofUserDay: userDay)
    for k in 0..<workload.count(ofUserDay: userDay) where Workload.metric(k) == cell % Workload.metrics {
        totals.add(workload.sample(first + k).record)
    }
}
run.check(
    (0..<workload.cells).reduce(0) { $0 + workload.count(ofCell: $1) } == workload.samples,
    "the cells hold every sample once")

let scratch = try run.scratchDirectory("store-bakeoff")

emitJSONLine([
    ("benchmark", "workload"), ("users", workload.users), ("days", workload.days), ("samples", workload.samples),
    ("cells", workload.cells), ("samplesPerTransaction", batchSize), ("sortedBatches", sortBatches),
    ("redeliveries", redelivered.count),
    ("cellReads", cellReads), ("recordBytes", SampleRecord.size), ("idKeyBytes", IDKey.size),
    ("repetitions", repetitions),
])

/// One store's figures; times are the best over the repetitions.
struct Figures {
    var write = Double.infinity
    var redeliver = Double.infinity
    var open = Double.infinity
    var read = Double.infinity
    var diskBytes = 0
    var usedBytes = 0
    var peakKB = 0
    var rssBeforeKB = 0
    /// Anonymous memory after the reads: the process's own, without mapped file pages the
    /// kernel may drop (LMDB's map counts in the peak).
    var anonymousKB = 0
    var peakReset = false
}

/// Whether `a`'s id key sorts before `b`'s (their bytes, big-endian, are key order).
func keyPrecedes(_ a: BakeoffSample, _ b: BakeoffSample) -> Bool {
    withBytes(of: a.key) { a in withBytes(of: b.key) { b in memcmp(a.baseAddress!, b.baseAddress!, IDKey.size) < 0 } }
}

/// Applies the samples numbered by `indices` to `store`, `batchSize` a transaction, timing only
/// the stores' work; returns how many were new.
func apply(_ indices: some Collection<Int>, to store: some CandidateStore, _ stopwatch: inout Stopwatch) throws -> Int {
    var batch: [BakeoffSample] = []
    batch.reserveCapacity(batchSize)
    var added = 0
    var rest = indices[...]
    while !rest.isEmpty {
        batch.removeAll(keepingCapacity: true)
        for index in rest.prefix(batchSize) { batch.append(workload.sample(index)) }
        rest = rest.dropFirst(batchSize)
        added += try stopwatch.time {
            // In key order (timed too), a transaction walks the id index's B+tree leaf by leaf.
            if sortBatches { batch.sort(by: keyPrecedes) }
            return try store.apply(batch)
        }
    }
    return added
}

/// One run of `Store` from an empty directory, folded into `figures`.
func measure<Store: CandidateStore>(_: Store.Type, into figures: inout Figures) throws {
    let directory = scratch + "/" + Store.name
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    figures.peakReset = resetPeakRSS()
    figures.rssBeforeKB = procStatusKB("VmRSS") ?? 0
    do {
        let store = try Store(directory: directory)
        var added = 0
        figures.write = min(
            figures.write, try run.once { added = try apply(0..<workload.samples, to: store, &$0) }.seconds)
        run.check(added == workload.samples, "\(Store.name) added \(added) of \(workload.samples) samples")
        figures.redeliver = min(
            figures.redeliver, try run.once { added = try apply(redelivered, to: store, &$0) }.seconds)
        run.check(added == 0, "\(Store.name) took \(added) re-delivered samples for new ones")
        figures.usedBytes = try store.usedBytes()
        try store.close()
    }
    figures.diskBytes = diskBytes(directory)
    var reopened: Store?
    figures.open = min(
        figures.open, try run.once { reopened = try $0.time { try Store(directory: directory) } }.seconds)
    guard let store = reopened else { return }
    var totals = ReadTotals()
    let read = try run.once { stopwatch in
        try stopwatch.time { for cell in readCells { try store.read(workload.cellKey(cell), into: &totals) } }
    }
    figures.read = min(figures.read, read.seconds)
    run.check(totals == expectedRead, "\(Store.name) read \(totals), expected \(expectedRead)")
    figures.anonymousKB = procStatusKB("RssAnon") ?? 0
    try store.close()
    figures.peakKB = procStatusKB("VmHWM") ?? 0
}

var lmdb = Figures()
var sqlite = Figures()
var packed = Figures()
for _ in 0..<repetitions {
    if only == nil || only == LMDBStore.name { try measure(LMDBStore.self, into: &lmdb) }
    if only == nil || only == SQLiteStore.name { try measure(SQLiteStore.self, into: &sqlite) }
    if only == nil || only == PackedCellStore.name { try measure(PackedCellStore.self, into: &packed) }
}

if smoke {
    emitJSONLine([
        ("benchmark", "store-bakeoff"), ("mode", "smoke"), ("samples", workload.samples),
        ("redeliveries", redelivered.count), ("cellReads", cellReads), ("samplesRead", expectedRead.samples),
        ("ok", true),
    ])
    exit(0)
}

for (name, figures) in zip(storeNames, [lmdb, sqlite, packed]) where only == nil || only == name {
    emitJSONLine([
        ("benchmark", "store"), ("store", name),
        ("samplesPerSecWritten", Double(workload.samples) / figures.write),
        ("redeliveryLookupsPerSec", Double(redelivered.count) / figures.redeliver),
        ("cellsPerSecRead", Double(cellReads) / figures.read),
        ("samplesPerSecRead", Double(expectedRead.samples) / figures.read),
        ("bytesPerSample", Double(figures.diskBytes) / Double(workload.samples)), ("diskBytes", figures.diskBytes),
        ("usedBytesPerSample", Double(figures.usedBytes) / Double(workload.samples)),
        ("openSeconds", figures.open), ("peakRSSMiB", Double(figures.peakKB) / 1024),
        ("anonRSSMiB", Double(figures.anonymousKB) / 1024),
        ("rssBeforeMiB", Double(figures.rssBeforeKB) / 1024), ("peakReset", figures.peakReset),
    ])
}
