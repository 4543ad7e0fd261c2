// Ingest throughput: JSON parsing, validation, encoding and append, as JSON lines.
//
//   swift run -c release IngestBenchmark            full run (refuses a debug build)
//   swift run IngestBenchmark --smoke               small run that checks counts, reports no times
import BenchmarkSupport
import Foundation
import Recount
import RecountLog
import TestSupport

let run = BenchmarkRun(name: "IngestBenchmark")
let smoke = run.smoke

let envelopeCount = smoke ? 20 : 4000
let samplesPerEnvelope = 100

/// A random UUID written with `digits` (upper- or lowercase hex).
func randomUUID(_ random: inout SplitMix64, digits: String) -> String {
    let hex = Array(digits)
    var out = ""
    for i in 0..<32 {
        if [8, 12, 16, 20].contains(i) { out.append("-") }
        out.append(hex[Int(random.next() % 16)])
    }
    return out
}

/// A realistic file: HealthKit deliveries of steps and heart rate from a watch, UUID ids,
/// local offsets, one device and origin per delivery.
func makeInput() -> [UInt8] {
    var random = SplitMix64(seed: 42)
    func next() -> UInt64 { random.next() }
    func uuid() -> String { randomUUID(&random, digits: "0123456789ABCDEF") }
    var text = ""
    var minute: Int64 = 29_000_000  // minutes since 1970, mid-2025
    for e in 0..<envelopeCount {
        let steps = e % 2 == 0
        let type = steps ? "HKQuantityTypeIdentifierStepCount" : "HKQuantityTypeIdentifierHeartRate"
        var samples: [String] = []
        for _ in 0..<samplesPerEnvelope {
            minute += 1
            let start = RFC3339.format(millis: minute * 60_000, offsetSeconds: -25_200)
            let end = RFC3339.format(millis: (minute + 1) * 60_000, offsetSeconds: -25_200)
            let value = steps ? "\(next() % 150)" : "\(60 + next() % 90)"
            let unit = steps ? "count" : "count/min"
            samples.append(
                "{\"id\":\"\(uuid())\",\"type\":\"\(type)\",\"start\":\"\(start)\",\"end\":\"\(end)\",\"value\":\(value),\"unit\":\"\(unit)\",\"origin\":\"com.apple.health.8F1B2C3D\",\"device\":\"Apple Watch\"}"
            )
        }
        text +=
            "{\"kind\":\"healthkit.delivery\",\"user\":\"user-\(e % 50)\",\"receivedAt\":\"2025-07-14T07:15:02Z\",\"type\":\"\(type)\",\"anchor\":\"YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24=\",\"newAnchor\":\"YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24SAAGGoA==\",\"added\":[\(samples.joined(separator: ","))],\"deleted\":[]}\n"
    }
    return Array(text.utf8)
}

/// Health Connect changes pages of the same size: step upsertions from a phone app with a zone
/// and lowercase UUIDs, one deletion in twenty. Returns the file and its number of samples.
func makeChangesInput() -> (bytes: [UInt8], samples: Int) {
    var random = SplitMix64(seed: 43)
    func uuid() -> String { randomUUID(&random, digits: "0123456789abcdef") }
    var text = ""
    var samples = 0
    var minute: Int64 = 29_000_000
    for page in 0..<envelopeCount {
        var changes: [String] = []
        for change in 0..<samplesPerEnvelope {
            minute += 1
            guard change % 20 != 19 else {
                changes.append("{\"deletion\":{\"recordId\":\"\(uuid())\"}}")
                continue
            }
            let start = RFC3339.format(millis: minute * 60_000, offsetSeconds: 7_200)
            let end = RFC3339.format(millis: (minute + 1) * 60_000, offsetSeconds: 7_200)
            changes.append(
                "{\"upsertion\":{\"id\":\"\(uuid())\",\"type\":\"StepsRecord\",\"start\":\"\(start)\",\"end\":\"\(end)\",\"value\":\(random.next() % 150),\"unit\":\"count\",\"origin\":\"com.google.android.apps.fitness\",\"device\":\"Pixel Watch 2\",\"timeZone\":\"Europe/Berlin\"}}"
            )
            samples += 1
        }
        text +=
            "{\"kind\":\"healthconnect.changes\",\"user\":\"user-\(page % 50)\",\"receivedAt\":\"2025-07-14T07:15:02Z\",\"recordTypes\":[\"StepsRecord\"],\"token\":\"tok-\(page)\",\"nextChangesToken\":\"tok-\(page + 1)\",\"hasMore\":false,\"changesTokenExpired\":false,\"changes\":[\(changes.joined(separator: ","))]}\n"
    }
    return (Array(text.utf8), samples)
}

/// Prints one measure of `samples` samples in `envelopes` envelopes; `jsonBytes` adds MB/s of
/// the input JSON (for measures that read it).
func emit(
    _ name: String, _ time: Double, samples: Int = envelopeCount * samplesPerEnvelope, envelopes: Int = envelopeCount,
    jsonBytes: Int? = input.count, _ extra: String = ""
) {
    let json = jsonBytes.map { String(format: ",\"jsonMBps\":%.1f", Double($0) / time / 1e6) } ?? ""
    print(
        String(
            format: "{\"benchmark\":\"%@\",\"samplesPerSec\":%.0f,\"envelopesPerSec\":%.0f%@%@}", name,
            Double(samples) / time, Double(envelopes) / time, json, extra))
}

let input = makeInput()
let lines: [Range<Int>] = {
    var ranges: [Range<Int>] = []
    var start = 0
    for (i, byte) in input.enumerated() where byte == UInt8(ascii: "\n") {
        ranges.append(start..<i)
        start = i + 1
    }
    return ranges
}()
run.check(lines.count == envelopeCount, "line count")

// Foundation's JSONSerialization, for comparison.
let serializationTime = try run.best { stopwatch in
    try stopwatch.time {
        for range in lines {
            _ = try JSONSerialization.jsonObject(with: Data(input[range]))
        }
    }
}

var parsed = 0
let parseTime = try run.best { stopwatch in
    parsed = 0
    try stopwatch.time {
        try input.withUnsafeBytes { bytes in
            for range in lines {
                _ = try JSONParser.parse(UnsafeRawBufferPointer(rebasing: bytes[range]))
                parsed += 1
            }
        }
    }
}
run.check(parsed == envelopeCount, "parsed")

let file = try run.scratchDirectory("ingest-bench") + "/input.ndjson"
let directory = file + ".log"
let changesFile = file + ".changes"
run.check(FileManager.default.createFile(atPath: file, contents: Data(input)), "write the input file")

/// Ingests `path` into a new, empty log at `directory`, timing only the ingest (reading the
/// file included): removing the old log, opening the new one and the input, and closing the log
/// (trim and fsync, timed apart as `closeSeconds`) are outside the timing.
func ingest(_ path: String, timing stopwatch: inout Stopwatch) throws -> (report: IngestReport, closeSeconds: Double) {
    try? FileManager.default.removeItem(atPath: directory)
    let log = try Log(directory: directory, configuration: LogConfiguration(durability: .none))
    let reader = try LineReader(path: path)
    let ingestor = Ingestor(log: log, clock: ReceiptClock())
    var report = IngestReport()
    try stopwatch.time { try ingestor.ingest(reader, source: path, into: &report) }
    var closing = Stopwatch()
    try closing.time { try log.close() }
    return (report, closing.seconds)
}

// The ingest path by stages, each one including the ones before it; the stages take turns so
// that their differences (the split) are measured under the same conditions.
var scannedLines = 0
var decodedSamples = 0
var report = IngestReport()
let decoder = EnvelopeDecoder()
let stageTimes = try run.best(interleaving: [
    { stopwatch in
        // The first pass: the scan that reads sample arrays without a JSON tree.
        scannedLines = 0
        stopwatch.time {
            input.withUnsafeBytes { bytes in
                for range in lines
                where EnvelopeScan.scan(UnsafeRawBufferPointer(rebasing: bytes[range]), maxDepth: 64) != nil {
                    scannedLines += 1
                }
            }
        }
    },
    { stopwatch in
        decodedSamples = 0
        try stopwatch.time {
            try input.withUnsafeBytes { bytes in
                for (index, range) in lines.enumerated() {
                    decodedSamples += try decoder.decode(
                        line: UnsafeRawBufferPointer(rebasing: bytes[range]), number: index + 1
                    ).samples.count
                }
            }
        }
    },
    { stopwatch in
        var record: [UInt8] = []
        try stopwatch.time {
            try input.withUnsafeBytes { bytes in
                for (index, range) in lines.enumerated() {
                    let envelope = try decoder.decode(
                        line: UnsafeRawBufferPointer(rebasing: bytes[range]), number: index + 1
                    ).stamped(at: Instant(millis: 0, offsetSeconds: 0))
                    record.removeAll(keepingCapacity: true)
                    EnvelopeCodec.encode(envelope, into: &record)
                }
            }
        }
    },
    { stopwatch in report = try ingest(file, timing: &stopwatch).report },
])
let (scanTime, decodeTime, encodeTime, endToEndTime) = (stageTimes[0], stageTimes[1], stageTimes[2], stageTimes[3])
// The ingest runs on the calling thread alone: CPU time per wall second shows it.
var closeSeconds = 0.0
let endToEndCores = try run.once { stopwatch in closeSeconds = try ingest(file, timing: &stopwatch).closeSeconds }
    .coresUsed
run.check(scannedLines == envelopeCount, "scanned \(scannedLines) lines")
run.check(decodedSamples == envelopeCount * samplesPerEnvelope, "decoded samples")
run.check(report.appended == envelopeCount && report.rejected.isEmpty, "ingest appended \(report.appended)")
let stats = try LogReader(directory: directory).check()
let bytesPerSample = Double(stats.fileBytes) / Double(envelopeCount * samplesPerEnvelope)

// The way back, which every replay of the projections takes: read the log, decode each record.
var replayedSamples = 0
let replayTime = try run.best { stopwatch in
    let reader = try LogReader(directory: directory)
    replayedSamples = 0
    try stopwatch.time {
        try reader.forEach { record in
            replayedSamples += try EnvelopeCodec.decode(record.bytes).samples.count
        }
    }
}
run.check(replayedSamples == envelopeCount * samplesPerEnvelope, "replayed \(replayedSamples) samples")

// Health Connect pages, end to end.
let changesInput = makeChangesInput()
run.check(FileManager.default.createFile(atPath: changesFile, contents: Data(changesInput.bytes)), "write the pages")
var changesReport = IngestReport()
let changesTime = try run.best { stopwatch in changesReport = try ingest(changesFile, timing: &stopwatch).report }
run.check(
    changesReport.appended == envelopeCount && changesReport.samples == changesInput.samples,
    "ingest appended \(changesReport.appended) pages")

if smoke {
    print(
        "{\"benchmark\":\"ingest\",\"mode\":\"smoke\",\"envelopes\":\(report.appended),\"samples\":\(report.samples),\"ok\":true}"
    )
    exit(0)
}
emit("json.JSONSerialization", serializationTime)
emit("json.JSONParser", parseTime, String(format: ",\"vsJSONSerialization\":%.2f", serializationTime / parseTime))
emit("ingest.scan", scanTime)
emit("ingest.scan+validate", decodeTime)
emit("ingest.scan+validate+encode", encodeTime)
emit(
    "ingest.end-to-end", endToEndTime,
    String(
        format: ",\"coresUsed\":%.2f,\"closeSeconds\":%.3f,\"logBytesPerSample\":%.1f", endToEndCores, closeSeconds,
        bytesPerSample)
        + String(
            format: ",\"secondsSplit\":{\"scan\":%.3f,\"validate\":%.3f,\"encode\":%.3f,\"append\":%.3f}", scanTime,
            decodeTime - scanTime, encodeTime - decodeTime, endToEndTime - encodeTime))
emit("replay.decode", replayTime, jsonBytes: nil)
emit("ingest.end-to-end.healthconnect", changesTime, samples: changesInput.samples, jsonBytes: changesInput.bytes.count)
