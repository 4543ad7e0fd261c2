// Import throughput of the provider-export importers, as JSON lines: for each importer, a large
// synthetic export generated deterministically, imported end to end (parse, convert, samples
// checked with ingest's decoder rules, envelope JSON) into a sink that only counts the lines' bytes.
//
//   swift run -c release ImportBenchmark            full run, ~200 MB per importer (refuses a debug build)
//   swift run ImportBenchmark --smoke               ~1 MB per importer, checks counts, reports no times
//   ... --keep-input DIR                            leaves the generated exports in DIR
//   ... --only NAME                                 runs one importer (apple-health, fitbit, google-fit)
import BenchmarkSupport
import Foundation

let run = BenchmarkRun(name: "ImportBenchmark")
let keepDirectory = run.value(of: "--keep-input")
let only = run.value(of: "--only")
if let only, !ImporterCase.all.contains(where: { $0.name == only }) {
    run.check(false, "--only \(only): expected one of \(ImporterCase.all.map(\.name).joined(separator: ", "))")
}
let targetBytes = run.smoke ? 1 << 20 : 200 << 20
let scratch: String
if let keepDirectory {
    scratch = keepDirectory
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
} else {
    scratch = try run.scratchDirectory("import-bench")
}

for importer in ImporterCase.all where only == nil || importer.name == only {
    let path = scratch + "/" + importer.fileName
    let expected = try importer.generate(path, targetBytes)
    var outcome = ImporterCase.Outcome()
    var outputBytes = 0
    let seconds = try run.best(runs: 3) { stopwatch in
        outputBytes = 0
        outcome = try stopwatch.time { try importer.run(path) { outputBytes += $0 + 1 } }
    }
    run.check(outcome == expected.outcome, "\(importer.name): imported \(outcome), expected \(expected.outcome)")
    run.check(outputBytes > 0, "\(importer.name): no output")
    // Peak memory of one more import, from the resident set before it.
    let peakReset = resetPeakRSS()
    let rssBefore = procStatusKB("VmRSS") ?? 0
    _ = try importer.run(path) { _ in }
    let peakKB = procStatusKB("VmHWM") ?? 0
    if run.smoke {
        emitJSONLine([
            ("benchmark", "import.\(importer.name)"), ("mode", "smoke"), ("records", outcome.records),
            ("samples", outcome.samples), ("ok", true),
        ])
        continue
    }
    let megabytesPerSecond = Double(expected.bytes) / seconds / 1e6
    let goal = 100.0
    emitJSONLine([
        ("benchmark", "import.\(importer.name)"), ("MBps", megabytesPerSecond),
        ("recordsPerSec", Double(outcome.records) / seconds), ("samplesPerSec", Double(outcome.samples) / seconds),
        ("seconds", seconds), ("inputMB", Double(expected.bytes) / 1e6), ("records", outcome.records),
        ("samples", outcome.samples), ("outputMB", Double(outputBytes) / 1e6), ("goalMBps", goal),
        ("goalRatio", megabytesPerSecond / goal), ("meetsGoal", megabytesPerSecond >= goal),
        ("peakRSSMiB", Double(peakKB) / 1024), ("rssBeforeMiB", Double(rssBefore) / 1024),
        ("peakReset", peakReset),
    ])
}
