// The projections against issue 8's goals (one core), as JSON lines: replay into memory and
// into the durable store, recompute, checkpoint save and load, opening an engine over a
// million-sample tail, the whole path NDJSON → log → projections → rollups, bytes on disk per
// live sample, peak memory (of a replay, and of an engine ingesting everything under a memory
// limit a fifth of the store, against the default), one envelope per call into the store held
// whole and into its ranges under that limit, and a query about one user against one through
// the checkpoint. Each measure carries its goal and the ratio to it.
//
//   swift run -c release ProjectionBenchmark        full run (refuses a debug build)
//   swift run ProjectionBenchmark --smoke           tiny run that checks counts, reports no times
//   ... --keep-input DIR                            leaves the workload (head.ndjson, tail.ndjson) in DIR
//   swift run -c release ProjectionBenchmark --fold-only DIR RUNS   times the fold of DIR's log alone
//   swift run -c release ProjectionBenchmark --recompute-only RUNS  times the recompute workload alone
//   swift run -c release ProjectionBenchmark --log-only FILE RUNS   times appending FILE to a new log alone
//   swift run -c release ProjectionBenchmark --open-only DIR RUNS   times opening DIR read-only, no recompute
import BenchmarkSupport
import Foundation
import Recount
import RecountLog
import TestSupport

if try ChildPeak.runChildIfAsked() { exit(0) }
// For profiling the fold alone: `--fold-only DIR RUNS` folds the log of data directory DIR
// into memory RUNS times, a JSON line each (no workload is written, no goal is checked).
if let at = CommandLine.arguments.firstIndex(of: "--fold-only"), CommandLine.arguments.count > at + 2,
    let runs = Int(CommandLine.arguments[at + 2])
{
    let reader = try RecountEngine.logReader(directory: CommandLine.arguments[at + 1])
    for _ in 0..<runs {
        var projections = Projections()
        var stopwatch = Stopwatch()
        let folded = try stopwatch.time { try ProjectionReplay.fold(reader, into: &projections) }
        emitJSONLine([
            ("benchmark", "fold"), ("samples", folded.samples), ("seconds", stopwatch.seconds),
            ("samplesPerSec", Double(folded.samples) / stopwatch.seconds),
        ])
    }
    exit(0)
}
// For profiling an engine's open: `--open-only DIR RUNS` opens data directory DIR read-only,
// not recomputing (its checkpoint loaded, the log after it folded), RUNS times.
if let at = CommandLine.arguments.firstIndex(of: "--open-only"), CommandLine.arguments.count > at + 2,
    let runs = Int(CommandLine.arguments[at + 2])
{
    for _ in 0..<runs {
        var stopwatch = Stopwatch()
        let engine = try stopwatch.time {
            try RecountEngine(readingDirectory: CommandLine.arguments[at + 1], recompute: false)
        }
        emitJSONLine([
            ("benchmark", "open"), ("recordsFolded", engine.recordsFoldedOnOpen), ("seconds", stopwatch.seconds),
        ])
    }
    exit(0)
}
// For profiling the log alone: `--log-only FILE RUNS` appends the NDJSON file FILE to a new log
// (decoding, encoding, LZ4, writing; no fold) RUNS times, a JSON line each.
if let at = CommandLine.arguments.firstIndex(of: "--log-only"), CommandLine.arguments.count > at + 2,
    let runs = Int(CommandLine.arguments[at + 2])
{
    let path = CommandLine.arguments[at + 1]
    let log = NSTemporaryDirectory() + "recount-log-only-\(ProcessInfo.processInfo.processIdentifier)"
    for _ in 0..<runs {
        try? FileManager.default.removeItem(atPath: log)
        var stopwatch = Stopwatch()
        let report = try stopwatch.time { try append(path, toLog: log) }
        emitJSONLine([
            ("benchmark", "log"), ("samples", report.samples), ("seconds", stopwatch.seconds),
            ("samplesPerSec", Double(report.samples) / stopwatch.seconds),
        ])
    }
    try? FileManager.default.removeItem(atPath: log)
    exit(0)
}
let run = BenchmarkRun(name: "ProjectionBenchmark")
let smoke = run.smoke

// MARK: - The workload

/// 1,000 users × 90 days of HealthKit deliveries, day by day: steps from a phone and from a
/// watch whose hours overlap, heart rate, a night of sleep; every third day the phone delivers
/// the day before's steps again (a re-delivery the fold must recognise).
let users = smoke ? 4 : 1000
let days = smoke ? 6 : 90
let phoneSteps = 6
let watchSteps = 6
let heartRates = 4
let liveSamplesPerUserDay = phoneSteps + watchSteps + heartRates + 1
let expectedLive = users * days * liveSamplesPerUserDay
/// Steps, heart rate and sleep each give one rollup a user and day.
let expectedRollups = users * days * 3
/// Days start at 2025-04-01T00:00-07:00.
let firstDayMillis: Int64 = 1_743_490_800_000
let offset: Int32 = -25_200

/// Whether the phone re-delivers the day before's steps on `day`.
func redelivers(_ day: Int) -> Bool { day > 0 && day % 3 == 0 }

/// Samples delivered on `day` (re-deliveries included).
func samplesDelivered(on day: Int) -> Int {
    users * (liveSamplesPerUserDay + (redelivers(day) ? phoneSteps : 0))
}

/// The first day of the tail appended behind the checkpoint for the open measure: the latest
/// day from which at least a million samples (in smoke mode, half of them) follow.
let tailFirstDay: Int = {
    let wanted = smoke ? (0..<days).map(samplesDelivered).reduce(0, +) / 2 : 1_000_000
    var day = days
    var samples = 0
    while samples < wanted && day > 0 {
        day -= 1
        samples += samplesDelivered(on: day)
    }
    return day
}()

let hexDigits = Array("0123456789ABCDEF".utf8)

/// A deterministic uppercase UUID for the sample `index` of `stream` (which device and metric)
/// of `user` on `day`, and a deterministic number drawn with it.
func sampleID(user: Int, day: Int, stream: Int, index: Int) -> (id: String, draw: UInt64) {
    var random = SplitMix64(seed: UInt64(((user * 1000 + day) * 8 + stream) * 1000 + index))
    let high = random.next()
    let low = random.next()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(36)
    for nibble in 0..<32 {
        if [8, 12, 16, 20].contains(nibble) { bytes.append(UInt8(ascii: "-")) }
        let word = nibble < 16 ? high : low
        bytes.append(hexDigits[Int((word >> UInt64(60 - (nibble % 16) * 4)) & 0xF)])
    }
    return (String(decoding: bytes, as: UTF8.self), random.next())
}

func timestamp(_ day: Int, minute: Int) -> String {
    RFC3339.format(millis: firstDayMillis + Int64(day) * 86_400_000 + Int64(minute) * 60_000, offsetSeconds: offset)
}

/// A HealthKit step sample: `minutes` long from `minute` of `day`.
func stepSample(_ id: String, _ day: Int, minute: Int, minutes: Int, value: UInt64, device: String) -> String {
    #"{"id":"\#(id)","type":"HKQuantityTypeIdentifierStepCount","start":"\#(timestamp(day, minute: minute))","end":"\#(timestamp(day, minute: minute + minutes))","value":\#(value),"unit":"count","origin":"com.apple.health","device":"\#(device)"}"#
}

/// The phone's hourly step samples of `user` on `day`, 8:00 to 14:00.
func phoneStepSamples(user: Int, day: Int) -> [String] {
    (0..<phoneSteps).map { i in
        let (id, draw) = sampleID(user: user, day: day, stream: 0, index: i)
        return stepSample(id, day, minute: (8 + i) * 60, minutes: 60, value: 200 + draw % 800, device: "iPhone")
    }
}

func delivery(user: Int, day: Int, type: String, _ samples: [String]) -> String {
    #"{"kind":"healthkit.delivery","user":"user-\#(user)","receivedAt":"\#(timestamp(day, minute: 23 * 60))","type":"\#(type)","anchor":"YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24=","newAnchor":"YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24SAAGGoA==","added":[\#(samples.joined(separator: ","))],"deleted":[]}"#
}

/// The envelopes of `user` on `day`, one per line.
func envelopes(user: Int, day: Int) -> [String] {
    var phone = phoneStepSamples(user: user, day: day)
    if redelivers(day) { phone += phoneStepSamples(user: user, day: day - 1) }
    // The watch's samples overlap the phone's: 8:30 to 14:30.
    let watch = (0..<watchSteps).map { i in
        let (id, draw) = sampleID(user: user, day: day, stream: 1, index: i)
        return stepSample(
            id, day, minute: (8 + i) * 60 + 30, minutes: 60, value: 150 + draw % 700, device: "Apple Watch")
    }
    let heart = (0..<heartRates).map { i in
        let (id, draw) = sampleID(user: user, day: day, stream: 2, index: i)
        return
            #"{"id":"\#(id)","type":"HKQuantityTypeIdentifierHeartRate","start":"\#(timestamp(day, minute: (9 + 3 * i) * 60))","value":\#(55 + draw % 90),"unit":"count/min","origin":"com.apple.health","device":"Apple Watch"}"#
    }
    // The night ending this morning: 23:30 the evening before to 6:30 (a day by its end + 6 h).
    let (nightID, _) = sampleID(user: user, day: day, stream: 3, index: 0)
    let night =
        #"{"id":"\#(nightID)","type":"HKCategoryTypeIdentifierSleepAnalysis","start":"\#(timestamp(day, minute: -30))","end":"\#(timestamp(day, minute: 390))","stage":"asleep","origin":"com.apple.health","device":"Apple Watch"}"#
    return [
        delivery(user: user, day: day, type: "HKQuantityTypeIdentifierStepCount", phone),
        delivery(user: user, day: day, type: "HKQuantityTypeIdentifierStepCount", watch),
        delivery(user: user, day: day, type: "HKQuantityTypeIdentifierHeartRate", heart),
        delivery(user: user, day: day, type: "HKCategoryTypeIdentifierSleepAnalysis", [night]),
    ]
}

/// Writes the envelopes of `days`, day by day, to the NDJSON file `path`; returns its counts.
func writeWorkload(_ days: Range<Int>, to path: String) -> (envelopes: Int, samples: Int, bytes: Int) {
    run.check(FileManager.default.createFile(atPath: path, contents: nil), "create \(path)")
    let handle = FileHandle(forWritingAtPath: path)!
    var buffer: [UInt8] = []
    var counts = (envelopes: 0, samples: 0, bytes: 0)
    for day in days {
        counts.samples += samplesDelivered(on: day)
        for user in 0..<users {
            for line in envelopes(user: user, day: day) {
                buffer.append(contentsOf: line.utf8)
                buffer.append(UInt8(ascii: "\n"))
                counts.envelopes += 1
            }
            if buffer.count > 1 << 22 {
                handle.write(Data(buffer))
                counts.bytes += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }
    handle.write(Data(buffer))
    counts.bytes += buffer.count
    try? handle.close()
    return counts
}

/// The recompute workload: 300 step samples a day (a phone's and a watch's overlapping
/// 3-minute samples, 150 each) for `recomputeUsers` users over `recomputeDays` days.
let recomputeUsers = smoke ? 2 : 100
let recomputeDays = smoke ? 2 : 20
let recomputeSamplesPerDevice = 150

func recomputeLines() -> [String] {
    var lines: [String] = []
    for day in 0..<recomputeDays {
        for user in 0..<recomputeUsers {
            for (stream, device) in ["iPhone", "Apple Watch"].enumerated() {
                let samples = (0..<recomputeSamplesPerDevice).map { i in
                    let (id, draw) = sampleID(user: user, day: day, stream: 4 + stream, index: i)
                    return stepSample(
                        id, day, minute: 6 * 60 + 4 * i + 2 * stream, minutes: 3, value: 10 + draw % 200, device: device
                    )
                }
                lines.append(delivery(user: user, day: day, type: "HKQuantityTypeIdentifierStepCount", samples))
            }
        }
    }
    return lines
}

/// The projections of `recomputeLines()`, folded and not recomputed, with how many samples.
func recomputeWorkload() throws -> (projections: Projections, samples: Int) {
    let decoder = EnvelopeDecoder()
    var projections = Projections()
    var samples = 0
    for (number, line) in recomputeLines().enumerated() {
        let envelope = try Array(line.utf8).withUnsafeBytes { bytes in
            try decoder.decode(line: bytes, number: number + 1).stamped(at: Instant(millis: 0, offsetSeconds: 0))
        }
        samples += envelope.samples.count
        _ = projections.apply(envelope, at: UInt64(number + 1))
    }
    return (projections, samples)
}

// For profiling the recompute alone: `--recompute-only RUNS` rebuilds the recompute workload's
// cells RUNS times, a JSON line each (nothing is written, no goal is checked).
if let at = CommandLine.arguments.firstIndex(of: "--recompute-only"), CommandLine.arguments.count > at + 1,
    let runs = Int(CommandLine.arguments[at + 1])
{
    let workload = try recomputeWorkload().projections
    for _ in 0..<runs {
        var projections = workload
        var stopwatch = Stopwatch()
        let cells = stopwatch.time { projections.recompute() }
        emitJSONLine([
            ("benchmark", "recompute"), ("days", cells), ("seconds", stopwatch.seconds),
            ("daysPerSec", Double(cells) / stopwatch.seconds),
        ])
    }
    exit(0)
}

// MARK: - Helpers

let scratch = try run.scratchDirectory("projection-bench")
/// Where the workload's NDJSON is written: `--keep-input DIR`, else the scratch directory.
let inputDirectory: String = {
    guard let kept = run.value(of: "--keep-input") else { return scratch }
    try? FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
    return kept
}()

/// The log at `directory` (unsynced) and an ingestor appending to it without folding (the
/// workload's envelopes carry their `receivedAt`, which must not lie after the clock).
func appendingIngestor(toLog directory: String) throws -> (Log, Ingestor) {
    let log = try Log(directory: directory, configuration: LogConfiguration(durability: .none))
    return (log, Ingestor(log: log, clock: ReceiptClock()))
}

/// Appends the NDJSON file `path` to the log at `directory` without folding it.
func append(_ path: String, toLog directory: String) throws -> IngestReport {
    let (log, ingestor) = try appendingIngestor(toLog: directory)
    var report = IngestReport()
    try ingestor.ingest(LineReader(path: path), source: path, into: &report)
    try log.close()
    return report
}

/// Prints a measure with its goal: `atLeast` for a floor (ratio figure/goal, ≥ 1 meets it),
/// else a ceiling (ratio goal/figure, ≥ 1 meets it).
func emit(
    _ name: String, _ fields: [(String, Any)], figure: Double, goal: Double, atLeast: Bool,
    _ extra: [(String, Any)] = []
) {
    let ratio = atLeast ? figure / goal : goal / figure
    emitJSONLine(
        [("benchmark", name)] + fields + [("goal", goal), ("goalRatio", ratio), ("meetsGoal", ratio >= 1)] + extra)
}

// MARK: - Inputs

let headPath = inputDirectory + "/head.ndjson"
let tailPath = inputDirectory + "/tail.ndjson"
let head = writeWorkload(0..<tailFirstDay, to: headPath)
let tail = writeWorkload(tailFirstDay..<days, to: tailPath)
let totalSamples = head.samples + tail.samples
let totalEnvelopes = head.envelopes + tail.envelopes
emitJSONLine([
    ("benchmark", "workload"), ("users", users), ("days", days), ("envelopes", totalEnvelopes),
    ("samples", totalSamples), ("liveSamples", expectedLive), ("rollups", expectedRollups),
    ("ndjsonMB", Double(head.bytes + tail.bytes) / 1e6), ("tailDays", days - tailFirstDay),
    ("tailSamples", tail.samples),
])

// MARK: - End to end: NDJSON → log → projections → recomputed rollups

let endToEndDirectory = scratch + "/end-to-end"
let stagesDirectory = scratch + "/end-to-end-stages"
/// The whole input, in order: every pass that ingests it reads these.
let inputPaths = [headPath, tailPath]
var endToEndReport = IngestReport()
var endToEndCores = 0.0
var (unrecomputedReport, logOnlyReport) = (IngestReport(), IngestReport())
// Where the whole path's time goes: the same input appended to a log alone (decoding,
// encoding, LZ4, writing), then ingested by an engine that folds it but does not recompute,
// then the whole path. They take turns.
let endToEndTimes = try run.best(
    runs: 2,
    interleaving: [
        { stopwatch in
            try? FileManager.default.removeItem(atPath: endToEndDirectory)
            let engine = try RecountEngine(directory: endToEndDirectory, durability: .none)
            endToEndReport = try stopwatch.time { try engine.ingest(files: inputPaths) }
            endToEndCores = stopwatch.coresUsed
            try engine.close()
        },
        { stopwatch in
            try? FileManager.default.removeItem(atPath: stagesDirectory)
            let engine = try RecountEngine(directory: stagesDirectory, durability: .none)
            unrecomputedReport = try stopwatch.time {
                try engine.ingest(files: inputPaths, recompute: false)
            }
            try engine.close()
        },
        { stopwatch in
            try? FileManager.default.removeItem(atPath: stagesDirectory)
            let (log, ingestor) = try appendingIngestor(toLog: stagesDirectory)
            var report = IngestReport()
            let readers = try inputPaths.map { try LineReader(path: $0) }
            try stopwatch.time {
                for (path, reader) in zip(inputPaths, readers) {
                    try ingestor.ingest(reader, source: path, into: &report)
                }
            }
            logOnlyReport = report
            try log.close()
        },
    ])
let (endToEndTime, unrecomputedTime, logOnlyTime) = (endToEndTimes[0], endToEndTimes[1], endToEndTimes[2])
try? FileManager.default.removeItem(atPath: stagesDirectory)
run.check(
    unrecomputedReport.samples == totalSamples && unrecomputedReport.daysRecomputed == 0
        && logOnlyReport.samples == totalSamples,
    "the stages ingested \(unrecomputedReport.samples) and \(logOnlyReport.samples) samples")
run.check(
    endToEndReport.appended == totalEnvelopes && endToEndReport.samples == totalSamples,
    "ingested \(endToEndReport.appended) envelopes, \(endToEndReport.samples) samples")
run.check(
    endToEndReport.newSamples == expectedLive && endToEndReport.knownSamples == totalSamples - expectedLive,
    "\(endToEndReport.newSamples) new, \(endToEndReport.knownSamples) known samples")
run.check(endToEndReport.daysRecomputed == expectedRollups, "\(endToEndReport.daysRecomputed) days recomputed")
// The engine's digest, kept alone: the projections themselves are freed before the peak
// memory of a replay is measured, so that figure is the replay's.
let storedDigest: String = try {
    let stored = try RecountEngine(readingDirectory: endToEndDirectory, recompute: false)
    let stats = try stored.stats()
    run.check(stats.liveSamples == expectedLive, "\(stats.liveSamples) live samples")
    run.check(stats.rollups == expectedRollups, "\(stats.rollups) rollups")
    run.check(stats.dirtyDays == 0, "dirty days left after the end-to-end run")
    return try stored.digest()
}()
let logBytes = diskBytes(DataDirectory(endToEndDirectory).log)
let checkpointBytes = diskBytes(DataDirectory(endToEndDirectory).projections)

// MARK: - Replay into memory (fold only) from the written log, and its peak memory

let logReader = try RecountEngine.logReader(directory: endToEndDirectory)
var (foldedSamples, foldedNew, readRecords, decodedSamples, indexedIds) = (0, 0, 0, 0, 0)
// The fold, and where its time goes: reading the log alone (frames, checksums, LZ4); reading
// and decoding each record into its envelope and sample block as the fold does, folding
// nothing; and that plus the id index alone (each sample's id looked up, and numbered with an
// empty record when new), none of the rest of the fold. They take turns, so a slow spell of
// the machine falls on all of them.
/// Reads and decodes every record of the log as the fold does, handing each to `body`.
func decodeEach(_ body: (Envelope, SampleBlock) -> Void) throws -> Int {
    try ProjectionReplay.fold(
        logReader, from: logReader.snapshot.startPosition, until: .max, picking: { _, _ in true }, progress: nil
    ) { envelope, samples, _ in
        body(envelope, samples)
        return Projections.Effect()
    }.samples
}
let replayTimes = try run.best(interleaving: [
    { stopwatch in
        var projections = Projections()
        let folded = try stopwatch.time { try ProjectionReplay.fold(logReader, into: &projections) }
        (foldedSamples, foldedNew) = (folded.samples, folded.effect.newSamples)
    },
    { stopwatch in
        readRecords = 0
        try stopwatch.time { try logReader.forEach { _ in readRecords += 1 } }
    },
    { stopwatch in
        decodedSamples = try stopwatch.time { try decodeEach { _, _ in } }
    },
    { stopwatch in
        var (users, providers, index) = (Interner(), Interner(), IdIndex())
        let provider = providers.intern("healthkit")
        var ids = 0
        _ = try stopwatch.time {
            try decodeEach { envelope, samples in
                let user = users.intern(envelope.user)
                // As the fold does: the envelope's ids' buckets read together first.
                samples.entries.withUnsafeBufferPointer { index.prefetch($0, user: user, provider: provider) }
                for number in samples.entries.indices {
                    let id = index.insert(IdIndex.Key(user: user, provider: provider, id: samples.id(of: number)))
                    ids = max(ids, id + 1)
                }
            }
        }
        indexedIds = ids
    },
])
let (foldTime, readTime, decodeTime, indexTime) = (replayTimes[0], replayTimes[1], replayTimes[2], replayTimes[3])
run.check(foldedSamples == totalSamples, "folded \(foldedSamples) samples")
run.check(foldedNew == expectedLive, "the replay found \(foldedNew) new samples")
run.check(readRecords == totalEnvelopes, "read \(readRecords) records")
run.check(decodedSamples == totalSamples, "decoded \(decodedSamples) samples")
run.check(indexedIds == expectedLive, "indexed \(indexedIds) ids")

// A full replay as `recount replay` runs it (fold, recompute and digest, a group of users at a
// time once the log's records pass `ProjectionReplay.defaultGroupBytes`), in a process of its own.
let fullReplay = try ChildPeak.replay(directory: endToEndDirectory, groupBytes: ProjectionReplay.defaultGroupBytes)
run.check(fullReplay.digest == storedDigest, "the replay's digest differs from the engine's")
run.check(fullReplay.samples == totalSamples, "the replay folded \(fullReplay.samples) samples")
// The baseline: the same replay with every user in one group.
let wholeReplay = try ChildPeak.replay(directory: endToEndDirectory, groupBytes: .max)
run.check(
    wholeReplay.digest == storedDigest && wholeReplay.userGroups == 1, "the replay in one group differs")

/// Milliseconds per `ingest(ndjson:)` call of one envelope (a user's steps of a day after the
/// workload) for users spread over the store, syncing every batch as the embedding API does
/// by default: in a store held whole, or, under a lower limit, one in ranges of users where
/// each call's range may have to be loaded. The warm-up run ingests the envelopes; the timed
/// one delivers them again.
func millisPerEnvelopeCall(directory: String, memoryLimit: Int) throws -> (millis: Double, calls: Int) {
    let engine = try RecountEngine(directory: directory, memoryLimit: memoryLimit)
    let calls = smoke ? 4 : 20
    let lines = (0..<calls).map { envelopes(user: $0 * users / calls, day: days)[0] }
    var appended = 0
    let seconds = try run.best(runs: 1) { stopwatch in
        appended = try stopwatch.time {
            try lines.reduce(0) { sum, line in
                sum + (try engine.ingest(ndjson: Array((line + "\n").utf8), source: "bench").appended)
            }
        }
    }
    try engine.close()
    run.check(appended == calls, "appended \(appended) of \(calls) envelopes one per call")
    return (seconds / Double(calls) * 1000, calls)
}

// The engine's own peak, ingesting the whole input in a child: under a memory limit of a
// fifth of the store's ids and rollups (so it splits into ranges of users, stores and drops
// them), recomputing and not (`--no-recompute`: a range splits all the same, recomputed
// first), and under the default limit, which holds this store whole.
let boundedLimit = (expectedLive + expectedRollups) / 5
let bounded = try ChildPeak.ingest(
    inputPaths, directory: scratch + "/bounded", limit: boundedLimit)
run.check(bounded.digest == storedDigest, "the bounded engine's digest differs")
run.check(bounded.userGroups >= 2, "the bounded engine stored \(bounded.userGroups) ranges")
let boundedEnvelopeCall = try millisPerEnvelopeCall(directory: scratch + "/bounded", memoryLimit: boundedLimit)
let boundedUnrecomputed = try ChildPeak.ingest(
    inputPaths, directory: scratch + "/bounded-no-recompute", limit: boundedLimit, recompute: false)
run.check(boundedUnrecomputed.digest == storedDigest, "the bounded engine's digest differs without recompute")
run.check(
    boundedUnrecomputed.userGroups >= 2,
    "the bounded engine stored \(boundedUnrecomputed.userGroups) ranges without recompute")
let unbounded = try ChildPeak.ingest(
    inputPaths, directory: scratch + "/unbounded", limit: RecountEngine.defaultMemoryLimit)
run.check(unbounded.digest == storedDigest, "the engine's digest differs")
try? FileManager.default.removeItem(atPath: scratch + "/bounded")
try? FileManager.default.removeItem(atPath: scratch + "/bounded-no-recompute")
try? FileManager.default.removeItem(atPath: scratch + "/unbounded")

var replayed = Projections()
_ = try ProjectionReplay.fold(logReader, into: &replayed)
let replayedCells = replayed.recompute()
run.check(replayedCells == expectedRollups, "the replay recomputed \(replayedCells) cells")

// MARK: - The digest of the whole projections (as `recount digest`, and each side of `verify`)

var replayedDigest: [UInt8] = []
let digestTime = run.best(runs: 2) { stopwatch in replayedDigest = stopwatch.time { replayed.digest() } }
run.check(
    SHA256.hex(replayedDigest) == storedDigest, "the digest of the replayed projections differs from the engine's")

// MARK: - Checkpoint save and load

let checkpointDirectory = scratch + "/checkpoint"
let checkpointFile = CheckpointFile(dataDirectory: checkpointDirectory)
let replayedRecord = try CheckpointFile.fingerprint(of: logReader, at: replayed.position) ?? 0
let saveTime = try run.best(runs: 2) { stopwatch in
    _ = try stopwatch.time { try checkpointFile.save(replayed, record: replayedRecord) }
}
let checkpointMB = Double(diskBytes(checkpointDirectory)) / 1e6
var loadedLive = 0
let loadTime = run.best(runs: 2) { stopwatch in
    let loaded = stopwatch.time { checkpointFile.load() }
    if case .success(let projections) = loaded { loadedLive = projections.index.liveCount }
}
run.check(loadedLive == expectedLive, "the loaded checkpoint holds \(loadedLive) live samples")
replayed = Projections()

// MARK: - Opening an engine over the log's tail, and replay into the durable store

let openDirectory = scratch + "/open"
do {
    let engine = try RecountEngine(directory: openDirectory, durability: .none)
    let report = try engine.ingest(files: [headPath])
    run.check(report.samples == head.samples, "the head holds \(report.samples) samples")
    try engine.close()
}
let tailReport = try append(tailPath, toLog: DataDirectory(openDirectory).log)
run.check(tailReport.appended == tail.envelopes, "appended \(tailReport.appended) tail envelopes")
let openProjections = DataDirectory(openDirectory).projections
let savedProjections = scratch + "/head-projections"
try FileManager.default.copyItem(atPath: openProjections, toPath: savedProjections)

var foldedOnOpen = 0
let openTime = try run.best(runs: 2) { stopwatch in
    try FileManager.default.removeItem(atPath: openProjections)
    try FileManager.default.copyItem(atPath: savedProjections, toPath: openProjections)
    let engine = try stopwatch.time { try RecountEngine(directory: openDirectory, durability: .none) }
    foldedOnOpen = engine.recordsFoldedOnOpen
    try engine.close()
}
run.check(foldedOnOpen == tail.envelopes, "the engine folded \(foldedOnOpen) records on open")

// Without a checkpoint the engine folds the whole log, and closing it stores the result.
var foldedFromScratch = 0
let durableTime = try run.best(runs: 1) { stopwatch in
    try? FileManager.default.removeItem(atPath: openProjections)
    try stopwatch.time {
        let engine = try RecountEngine(directory: openDirectory, durability: .none)
        foldedFromScratch = engine.recordsFoldedOnOpen
        try engine.close()
    }
}
run.check(
    FileManager.default.fileExists(atPath: DataDirectory(openDirectory).ranges),
    "closing the engine stored its projections")
run.check(foldedFromScratch == totalEnvelopes, "the engine folded \(foldedFromScratch) records from scratch")

// MARK: - One envelope per call into the whole store, as a service ingests a request

let (oneEnvelopeMillis, oneEnvelopeCalls) = try millisPerEnvelopeCall(
    directory: openDirectory, memoryLimit: RecountEngine.defaultMemoryLimit)

// MARK: - A follower of the feed, polling after each upload

/// Milliseconds per `changes(since:)` poll after one upload (a user's next day), asked since the
/// version before it as a follower that polls after each upload does: answered from the
/// readings the engine kept (`FeedReadings`), and, as the baseline, from a replay of the
/// user's records up to that version (as every poll was before them). Both answers must agree.
/// Medians: a poll that finds a checkpoint due stores it first.
func millisPerFeedPoll(directory: String) throws -> (kept: Double, replayed: Double, polls: Int) {
    let engine = try RecountEngine(directory: directory)
    let polls = smoke ? 2 : 21
    var (kept, replayed): ([Double], [Double]) = ([], [])
    for poll in 0..<polls {
        let line = envelopes(user: poll * users / polls, day: days + 1)[1]
        let report = try engine.ingest(ndjson: Array((line + "\n").utf8), source: "bench")
        run.check(report.positions != nil, "poll \(poll): the upload appended nothing")
        let since = (report.positions?.lowerBound ?? 1) - 1
        func changes(keptReadings: Bool) throws -> (rows: [CellChangeRow], replayedUsers: Int) {
            try engine.changesReplaying(
                since: since, user: nil, groupBytes: ProjectionReplay.defaultGroupBytes, keptReadings: keptReadings)
        }
        var (keptWatch, replayWatch) = (Stopwatch(), Stopwatch())
        let fromKept = try keptWatch.time { try changes(keptReadings: true) }
        let fromReplay = try replayWatch.time { try changes(keptReadings: false) }
        kept.append(keptWatch.seconds * 1000)
        replayed.append(replayWatch.seconds * 1000)
        run.check(!fromKept.rows.isEmpty && fromKept.replayedUsers == 0, "poll \(poll) replayed the log")
        run.check(fromKept.rows == fromReplay.rows, "poll \(poll): the kept readings differ from the replay's")
    }
    try engine.close()
    let median = { (times: [Double]) in times.sorted()[times.count / 2] }
    return (median(kept), median(replayed), polls)
}
let feedPoll = try millisPerFeedPoll(directory: openDirectory)

// MARK: - Queries a backend asks: a user's days of steps, and one day's step samples
// (after the replays: the engine it opens leaves the allocator in another state)

/// Queries per second of each kind, on the end-to-end engine opened read-only.
let (rollupQueriesPerSec, sampleQueriesPerSec, queryUsers): (Double, Double, Int) = try {
    let engine = try RecountEngine(readingDirectory: endToEndDirectory)
    let queried = min(users, 200)
    let day = CivilDay(daysSinceEpoch: CivilDay(parsing: "2025-04-01")!.daysSinceEpoch + Int32(days / 2))
    var (rollupRows, sampleRows) = (0, 0)
    let rollupTime = try run.best(runs: 3) { stopwatch in
        rollupRows = try stopwatch.time {
            try (0..<queried).reduce(0) { rows, user in
                rows + (try engine.rollups(user: "user-\(user)", metric: "steps").count)
            }
        }
    }
    let sampleTime = try run.best(runs: 3) { stopwatch in
        sampleRows = try stopwatch.time {
            try (0..<queried).reduce(0) { rows, user in
                rows + (try engine.samples(user: "user-\(user)", metric: "steps", day: "\(day)").count)
            }
        }
    }
    run.check(rollupRows == queried * days, "\(rollupRows) rollup rows")
    run.check(sampleRows == queried * (phoneSteps + watchSteps), "\(sampleRows) sample rows")
    return (Double(queried) / rollupTime, Double(queried) / sampleTime, queried)
}()

// MARK: - A query about one user: folding that user's records from the log, against loading
// every user's projections from the checkpoint (what the CLI's one-user queries did before)

let (oneUserSeconds, wholeStoreSeconds): (Double, Double) = try {
    let user = "user-\(users / 2)"
    func rollupsQuery(_ open: () throws -> RecountEngine) throws {
        let rows = try open().rollups(user: user, metric: "steps")
        run.check(rows.count == days, "\(rows.count) rollup rows for \(user)")
    }
    let oneUser = try run.best(runs: 3) { stopwatch in
        try stopwatch.time { try rollupsQuery { try RecountEngine(readingDirectory: endToEndDirectory, user: user) } }
    }
    let wholeStore = try run.best(runs: 3) { stopwatch in
        try stopwatch.time { try rollupsQuery { try RecountEngine(readingDirectory: endToEndDirectory) } }
    }
    return (oneUser, wholeStore)
}()

// MARK: - Recompute at ~300 samples a day

let (recomputeBase, recomputeSamples) = try recomputeWorkload()
var recomputedCells = 0
let recomputeTime = run.best { stopwatch in
    var projections = recomputeBase
    recomputedCells = stopwatch.time { projections.recompute() }
}
run.check(recomputedCells == recomputeUsers * recomputeDays, "recomputed \(recomputedCells) cells")
run.check(recomputeSamples == recomputedCells * 2 * recomputeSamplesPerDevice, "recompute workload samples")

if smoke {
    emitJSONLine([
        ("benchmark", "projections"), ("mode", "smoke"), ("samples", totalSamples), ("liveSamples", expectedLive),
        ("rollups", expectedRollups), ("ok", true),
    ])
    exit(0)
}

// MARK: - Figures against the goals

emit(
    "replay.memory",
    [
        ("samplesPerSec", Double(totalSamples) / foldTime), ("seconds", foldTime),
        ("readOnlySamplesPerSec", Double(totalSamples) / readTime), ("readSeconds", readTime),
        ("decodeOnlySamplesPerSec", Double(totalSamples) / decodeTime), ("decodeSeconds", decodeTime),
        ("idIndexOnlySamplesPerSec", Double(totalSamples) / indexTime), ("idIndexSeconds", indexTime),
    ], figure: Double(totalSamples) / foldTime, goal: 5_000_000, atLeast: true)
emit(
    "replay.durable",
    [("samplesPerSec", Double(totalSamples) / durableTime), ("seconds", durableTime), ("records", foldedFromScratch)],
    figure: Double(totalSamples) / durableTime, goal: 500_000, atLeast: true)
emit(
    "recompute",
    [
        ("daysPerSec", Double(recomputedCells) / recomputeTime),
        ("samplesPerSec", Double(recomputeSamples) / recomputeTime), ("days", recomputedCells),
        ("samplesPerDay", recomputeSamples / recomputedCells),
    ], figure: Double(recomputedCells) / recomputeTime, goal: 20_000, atLeast: true)
emitJSONLine([
    ("benchmark", "checkpoint"), ("MB", checkpointMB), ("saveSeconds", saveTime), ("loadSeconds", loadTime),
    ("saveMBps", checkpointMB / saveTime), ("loadMBps", checkpointMB / loadTime), ("liveSamples", expectedLive),
])
emit(
    "engine.open", [("seconds", openTime), ("recordsFoldedOnOpen", foldedOnOpen), ("tailSamples", tail.samples)],
    figure: openTime, goal: 1, atLeast: false)
emit(
    "end-to-end",
    [
        ("samplesPerSec", Double(totalSamples) / endToEndTime), ("seconds", endToEndTime),
        ("coresUsed", endToEndCores), ("daysRecomputed", endToEndReport.daysRecomputed),
        // The stages, each including the ones before it.
        ("logOnlySeconds", logOnlyTime), ("withoutRecomputeSeconds", unrecomputedTime),
    ], figure: Double(totalSamples) / endToEndTime, goal: 700_000, atLeast: true)
emitJSONLine([
    ("benchmark", "ingest.oneEnvelope"), ("msPerCall", oneEnvelopeMillis), ("calls", oneEnvelopeCalls),
    ("liveSamples", expectedLive),
])
emitJSONLine([
    ("benchmark", "feed.poll"), ("msPerPoll", feedPoll.kept), ("replayedMsPerPoll", feedPoll.replayed),
    ("speedup", feedPoll.replayed / feedPoll.kept), ("polls", feedPoll.polls), ("liveSamples", expectedLive),
])
emitJSONLine([
    ("benchmark", "queries"), ("rollupsPerSec", rollupQueriesPerSec), ("samplesPerSec", sampleQueriesPerSec),
    ("users", queryUsers), ("daysPerRollupsQuery", days), ("storedUsers", users), ("liveSamples", expectedLive),
])
emitJSONLine([
    ("benchmark", "query.oneUser"), ("seconds", oneUserSeconds), ("wholeStoreSeconds", wholeStoreSeconds),
    ("speedup", wholeStoreSeconds / oneUserSeconds), ("storedUsers", users), ("liveSamples", expectedLive),
])
emit(
    "disk",
    [
        ("bytesPerLiveSample", Double(logBytes + checkpointBytes) / Double(expectedLive)),
        ("logBytes", logBytes), ("checkpointBytes", checkpointBytes),
    ], figure: Double(logBytes + checkpointBytes) / Double(expectedLive), goal: 150, atLeast: false)
emitJSONLine([
    ("benchmark", "digest"), ("seconds", digestTime), ("liveSamplesPerSec", Double(expectedLive) / digestTime),
    ("liveSamples", expectedLive), ("rollups", expectedRollups),
])
emitJSONLine([
    ("benchmark", "engine.bounded"), ("memoryLimit", boundedLimit), ("ranges", bounded.userGroups),
    ("peakMiB", Double(bounded.peakKiB) / 1024), ("samplesPerSec", Double(bounded.samples) / bounded.seconds),
    ("noRecomputePeakMiB", Double(boundedUnrecomputed.peakKiB) / 1024),
    ("noRecomputeSamplesPerSec", Double(boundedUnrecomputed.samples) / boundedUnrecomputed.seconds),
    ("noRecomputeRanges", boundedUnrecomputed.userGroups),
    ("oneEnvelopeMsPerCall", boundedEnvelopeCall.millis),
    ("defaultLimitPeakMiB", Double(unbounded.peakKiB) / 1024),
    ("defaultLimitSamplesPerSec", Double(unbounded.samples) / unbounded.seconds),
    ("peakRatio", Double(bounded.peakKiB) / Double(unbounded.peakKiB)),
    ("throughputRatio", unbounded.seconds / bounded.seconds),
])
emit(
    "replay.peakRSS",
    [
        ("MiB", Double(fullReplay.peakKiB) / 1024), ("seconds", fullReplay.seconds),
        ("userGroups", fullReplay.userGroups), ("oneGroupMiB", Double(wholeReplay.peakKiB) / 1024),
        ("oneGroupSeconds", wholeReplay.seconds), ("process", "own"),
    ], figure: Double(fullReplay.peakKiB) / 1024, goal: 512, atLeast: false)
