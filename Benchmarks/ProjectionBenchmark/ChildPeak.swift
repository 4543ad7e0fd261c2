import BenchmarkSupport
import Foundation
import Recount
import RecountLog

/// Peak memory, measured in a child process (this program run with a flag) from a fresh heap:
/// of a full replay, and of an engine ingesting files under a memory limit. In the benchmark's
/// own process the phases before leave heap behind and change how glibc allocates (it keeps
/// freed blocks, and raises its mmap threshold as large blocks are freed), so a peak measured
/// there also counts the earlier phases.
enum ChildPeak {
    /// What one child measured.
    struct Measure: Codable {
        var peakKiB: Int
        var seconds: Double
        /// Groups of users a replay folded one after another, or ranges an engine stored.
        var userGroups: Int
        var samples: Int
        /// The SHA-256 of the projections, hex.
        var digest: String
    }

    static let replayFlag = "--replay-peak"
    static let ingestFlag = "--ingest-peak"

    /// In a child: `replayFlag DIRECTORY GROUP-BYTES` replays the log of `DIRECTORY` as
    /// `recount replay` does (fold, recompute and digest, at most `GROUP-BYTES` of records at a
    /// time); `ingestFlag DIRECTORY LIMIT RECOMPUTE FILE...` ingests the files into a new engine
    /// there holding at most `LIMIT` ids and rollups, recomputing when `RECOMPUTE` is `true`,
    /// then closes it (the time covers both) and takes its digest, recomputed in the reader
    /// when the ingest was not. Prints the measure as JSON; `false` when this is not a child.
    static func runChildIfAsked() throws -> Bool {
        let arguments = CommandLine.arguments
        if let at = arguments.firstIndex(of: replayFlag), arguments.count > at + 2,
            let groupBytes = Int(arguments[at + 2])
        {
            let reader = try RecountEngine.logReader(directory: arguments[at + 1])
            var stopwatch = Stopwatch()
            let replayed = try stopwatch.time { try ProjectionReplay.digest(reader, groupBytes: groupBytes) }
            report(
                seconds: stopwatch.seconds, groups: replayed.userGroups, samples: replayed.summary.samples,
                digest: SHA256.hex(replayed.digest))
            return true
        }
        if let at = arguments.firstIndex(of: ingestFlag), arguments.count > at + 4, let limit = Int(arguments[at + 2]),
            let recompute = Bool(arguments[at + 3])
        {
            let directory = arguments[at + 1]
            var stopwatch = Stopwatch()
            let samples = try stopwatch.time {
                let engine = try RecountEngine(directory: directory, durability: .none, memoryLimit: limit)
                let report = try engine.ingest(files: Array(arguments[(at + 4)...]), recompute: recompute)
                try engine.close()
                return report.samples
            }
            let engine = try RecountEngine(readingDirectory: directory, recompute: !recompute, memoryLimit: limit)
            let ranges = try FileManager.default.contentsOfDirectory(atPath: DataDirectory(directory).projections)
                .count { $0.hasPrefix("range-") || $0 == "checkpoint" }
            report(seconds: stopwatch.seconds, groups: ranges, samples: samples, digest: try engine.digest())
            return true
        }
        return false
    }

    /// Prints a child's measure, with the process's peak resident memory so far.
    private static func report(seconds: Double, groups: Int, samples: Int, digest: String) {
        let measure = Measure(
            peakKiB: procStatusKB("VmHWM") ?? 0, seconds: seconds, userGroups: groups, samples: samples, digest: digest)
        // A Codable struct of numbers and a string always encodes.
        print(String(decoding: try! JSONEncoder().encode(measure), as: UTF8.self))
    }

    /// A full replay of the data directory `directory`'s log, `groupBytes` of records at a time.
    static func replay(directory: String, groupBytes: Int) throws -> Measure {
        try child([replayFlag, directory, String(groupBytes)])
    }

    /// An ingest of `files` into a new engine at `directory` holding at most `limit` ids and
    /// rollups, recomputing or not.
    static func ingest(_ files: [String], directory: String, limit: Int, recompute: Bool = true) throws -> Measure {
        try child([ingestFlag, directory, String(limit), String(recompute)] + files)
    }

    /// Runs this program as a child with `arguments`, and reads its measure.
    private static func child(_ arguments: [String]) throws -> Measure {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw LogError(.io, "the benchmark's child process exited \(child.terminationStatus)")
        }
        return try JSONDecoder().decode(Measure.self, from: bytes)
    }
}
