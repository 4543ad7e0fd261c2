import Foundation

/// Where and how a benchmark ran, printed as every run's first JSON line: figures compare only
/// with figures from the same commit, toolchain, machine and build configuration.
public struct RunMetadata: Sendable {
    /// The short commit hash, with `-dirty` when the tree has changes (untracked files
    /// included), or `unknown` without git or a repository.
    public var commit: String
    /// The first line of `swift --version`, or the compiler version known at compile time.
    public var swift: String
    /// The CPU's `model name` from `/proc/cpuinfo`, or `unknown`.
    public var cpu: String
    /// The cores this process may run on.
    public var cores: Int
    /// `debug` or `release`.
    public var configuration: String
    /// When the run started, ISO 8601 in UTC.
    public var date: String

    /// The metadata of this run, asking git (about the repository holding this file) and the
    /// toolchain; a missing tool gives `unknown` or the compile-time answer, never an error.
    public static func current() -> RunMetadata {
        let date = Date.now.formatted(.iso8601)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
        var commit = "unknown"
        if let hash = firstLine(of: ["git", "-C", repository, "rev-parse", "--short", "HEAD"]) {
            let status = output(of: ["git", "-C", repository, "status", "--porcelain"])
            commit = hash + (status.map { $0.isEmpty ? "" : "-dirty" } ?? "-unknown-status")
            // git answers for the repository as it is now: a binary built before its last commit
            // (or copied away and run later) ran older code than that commit.
            if let committed = firstLine(of: ["git", "-C", repository, "log", "-1", "--format=%ct"]).flatMap(
                Double.init),
                let built = executableModified(), built.timeIntervalSince1970 < committed
            {
                commit += "-built-before-it"
            }
        }
        #if DEBUG
            let configuration = "debug"
        #else
            let configuration = "release"
        #endif
        return RunMetadata(
            commit: commit, swift: firstLine(of: ["swift", "--version"]) ?? compilerVersion,
            cpu: cpuModel() ?? "unknown",
            cores: ProcessInfo.processInfo.activeProcessorCount, configuration: configuration, date: date)
    }

    /// Prints the metadata line for `program` run in `mode` with `runs` timed runs per measure.
    public func emit(program: String, mode: String, runs: Int) {
        emitJSONLine([
            ("benchmark", "metadata"), ("program", program), ("mode", mode), ("runs", runs), ("commit", commit),
            ("swift", swift), ("cpu", cpu), ("cores", cores), ("configuration", configuration), ("date", date),
        ])
    }

    /// The compiler's version as far as `#if compiler` tells it.
    private static var compilerVersion: String {
        #if compiler(>=6.3)
            "swiftc >= 6.3"
        #elseif compiler(>=6.2)
            "swiftc 6.2"
        #elseif compiler(>=6.1)
            "swiftc 6.1"
        #else
            "swiftc 6.0"
        #endif
    }

    /// When this process's executable was last written.
    private static func executableModified() -> Date? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return (try? FileManager.default.attributesOfItem(atPath: executable))?[.modificationDate] as? Date
    }

    private static func cpuModel() -> String? {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in cpuinfo.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The first line `command` prints, when it exits with 0 and prints something.
    private static func firstLine(of command: [String]) -> String? {
        guard let text = output(of: command),
            let line = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces), !line.isEmpty
        else { return nil }
        return line
    }

    /// What `command` (looked up on `PATH`) prints to standard output, or `nil` when it cannot be
    /// started or exits with another status than 0.
    private static func output(of command: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
