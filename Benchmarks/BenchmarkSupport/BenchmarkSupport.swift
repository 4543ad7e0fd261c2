// Timing and checking helpers shared by the benchmark executables.
import Foundation

/// How a benchmark run was asked to behave.
public struct BenchmarkRun: Sendable {
    /// `--smoke`: small sizes, counts checked, no times reported (what CI runs).
    public let smoke: Bool
    /// Timed repetitions after the warm-up.
    public let runs: Int
    private let name: String

    /// Reads `--smoke` from the command line; refuses to time a debug build.
    public init(name: String, arguments: [String] = CommandLine.arguments) {
        self.name = name
        smoke = arguments.contains("--smoke")
        runs = smoke ? 1 : 5
        #if DEBUG
            if !smoke {
                FileHandle.standardError.write(
                    Data("\(name): refusing to time a debug build; use swift run -c release \(name)\n".utf8))
                exit(2)
            }
        #endif
    }

    /// The wall-clock seconds `body` takes.
    public func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The CPU time (user and system, all threads) per wall-clock second of one run of `body`:
    /// about 1 when it keeps one core busy.
    public func coresUsed(_ body: () throws -> Void) rethrows -> Double {
        func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let cpu = cpuSeconds()
        let wall = try seconds(body)
        return (cpuSeconds() - cpu) / wall
    }

    /// The best of `runs` timings of `body`, after one warm-up run.
    public func best(_ body: () throws -> Void) rethrows -> Double {
        try body()
        var fastest = Double.infinity
        for _ in 0..<runs { fastest = min(fastest, try seconds(body)) }
        return fastest
    }

    /// The best of `runs` timings of each of `bodies`, after one warm-up run of each. The bodies
    /// take turns within each run, so a slow spell of a shared machine falls on all of them
    /// rather than on one, and differences between them stay meaningful.
    public func best(interleaving bodies: [() throws -> Void]) throws -> [Double] {
        for body in bodies { try body() }
        var fastest = [Double](repeating: .infinity, count: bodies.count)
        for _ in 0..<runs {
            for (index, body) in bodies.enumerated() { fastest[index] = min(fastest[index], try seconds(body)) }
        }
        return fastest
    }

    /// Exits with status 1 and `message` when `condition` is false.
    public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            FileHandle.standardError.write(Data("\(name): check failed: \(message())\n".utf8))
            exit(1)
        }
    }
}
