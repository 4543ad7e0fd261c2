import BenchmarkSupport
import Foundation
import Recount
import RecountLog

/// A full replay's peak memory, measured in a child process (this program run with `flag`),
/// from a fresh heap: in the benchmark's own process the phases before it leave heap behind and
/// change how glibc allocates (it keeps freed blocks, and raises its mmap threshold as large
/// blocks are freed), so a peak measured there also counts the earlier phases.
enum ReplayPeak {
    /// What one replay measured.
    struct Measure: Codable {
        var peakKiB: Int
        var seconds: Double
        var userGroups: Int
        var samples: Int
        /// The SHA-256 of the projections, hex.
        var digest: String
    }

    static let flag = "--replay-peak"

    /// In the child (`flag DIRECTORY GROUP-BYTES`): replays the log of `DIRECTORY` as `recount
    /// replay` does (fold, recompute and digest, at most `GROUP-BYTES` of records at a time) and
    /// prints the measure as JSON; `false` when this is not the child.
    static func runChildIfAsked() throws -> Bool {
        guard let at = CommandLine.arguments.firstIndex(of: flag), CommandLine.arguments.count > at + 2,
            let groupBytes = Int(CommandLine.arguments[at + 2])
        else { return false }
        let reader = try RecountEngine.logReader(directory: CommandLine.arguments[at + 1])
        var stopwatch = Stopwatch()
        let replayed = try stopwatch.time { try ProjectionReplay.digest(reader, groupBytes: groupBytes) }
        let measure = Measure(
            peakKiB: procStatusKB("VmHWM") ?? 0, seconds: stopwatch.seconds,
            userGroups: replayed.userGroups, samples: replayed.summary.samples, digest: SHA256.hex(replayed.digest))
        print(String(decoding: try JSONEncoder().encode(measure), as: UTF8.self))
        return true
    }

    /// Runs this program as the child over the data directory `directory`.
    static func measure(directory: String, groupBytes: Int) throws -> Measure {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = [flag, directory, String(groupBytes)]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw LogError(.io, "the replay's child process exited \(child.terminationStatus)")
        }
        return try JSONDecoder().decode(Measure.self, from: bytes)
    }
}
