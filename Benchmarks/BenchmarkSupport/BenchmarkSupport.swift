// Timing and checking helpers shared by the benchmark executables.
import Foundation

/// How a benchmark run was asked to behave.
public struct BenchmarkRun: Sendable {
    /// `--smoke`: small sizes, counts checked, no times reported (what CI runs).
    public let smoke: Bool
    /// Timed repetitions after the warm-up.
    public let runs: Int
    private let name: String
    private let arguments: [String]

    /// Reads `--smoke` from the command line, refuses to time a debug build, and prints the
    /// run's metadata (`RunMetadata`) as its first JSON line.
    public init(name: String, arguments: [String] = CommandLine.arguments) {
        self.name = name
        self.arguments = arguments
        smoke = arguments.contains("--smoke")
        runs = smoke ? 1 : 5
        #if DEBUG
            if !smoke {
                FileHandle.standardError.write(
                    Data("\(name): refusing to time a debug build; use swift run -c release \(name)\n".utf8))
                exit(2)
            }
        #endif
        RunMetadata.current().emit(program: name, mode: smoke ? "smoke" : "full", runs: runs)
    }

    /// The argument after `option` (`--only NAME` gives `NAME`), when given.
    public func value(of option: String) -> String? {
        arguments.firstIndex(of: option).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
    }

    /// One run of `body`, without a warm-up; returns its stopwatch.
    public func once(_ body: (inout Stopwatch) throws -> Void) rethrows -> Stopwatch {
        var stopwatch = Stopwatch()
        try body(&stopwatch)
        check(stopwatch.stretches > 0, "a measured body timed nothing")
        return stopwatch
    }

    /// The best of `runs` timed seconds of `body`, after one warm-up run. Only what `body`
    /// runs inside `Stopwatch.time` counts.
    /// - Parameter count: fewer runs than `runs` for a measure that takes seconds (smoke
    ///   mode still runs once).
    public func best(runs count: Int? = nil, _ body: (inout Stopwatch) throws -> Void) rethrows -> Double {
        _ = try once(body)
        var fastest = Double.infinity
        for _ in 0..<min(count ?? runs, runs) { fastest = min(fastest, try once(body).seconds) }
        return fastest
    }

    /// The best of `runs` timed seconds of each of `bodies`, after one warm-up run of each. The
    /// bodies take turns within each run, so a slow spell of a shared machine falls on all of
    /// them rather than on one, and differences between them stay meaningful.
    /// - Parameter count: fewer runs than `runs`, as for `best(runs:_:)`.
    public func best(runs count: Int? = nil, interleaving bodies: [(inout Stopwatch) throws -> Void]) throws
        -> [Double]
    {
        for body in bodies { _ = try once(body) }
        var fastest = [Double](repeating: .infinity, count: bodies.count)
        for _ in 0..<min(count ?? runs, runs) {
            for (index, body) in bodies.enumerated() { fastest[index] = min(fastest[index], try once(body).seconds) }
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

/// The timed part of one run of a measured body: only what runs inside `time` counts, so
/// setting up and cleaning up (removing directories, closing logs, freeing) stay outside.
public struct Stopwatch {
    /// Wall-clock seconds spent inside `time`.
    public private(set) var seconds = 0.0
    /// CPU seconds (user and system, all threads of the process) spent inside `time`.
    public private(set) var cpuSeconds = 0.0
    /// How many times `time` ran.
    public private(set) var stretches = 0

    /// A stopwatch at zero.
    public init() {}

    /// The CPU time per wall-clock second inside `time`: about 1 when the timed work keeps one
    /// core busy.
    public var coresUsed: Double { cpuSeconds / seconds }

    /// Runs `body` and adds its time. Values `body` returns are freed by the caller, after the
    /// timing: return what should outlive it.
    public mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let cpu = Self.processCPUSeconds()
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            seconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            cpuSeconds += Self.processCPUSeconds() - cpu
            stretches += 1
        }
        return try body()
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// Prints one JSON object on a line: `fields` in order; a `Double` with 4 significant digits
/// (`null` when not finite), a `String` quoted and escaped, anything else (integers, booleans)
/// as Swift prints it.
public func emitJSONLine(_ fields: [(String, Any)]) {
    let body = fields.map { key, value -> String in
        let text: String
        switch value {
        case let number as Double: text = number.isFinite ? String(format: "%.4g", number) : "null"
        case let string as String: text = jsonString(string)
        default: text = "\(value)"
        }
        return jsonString(key) + ":" + text
    }
    print("{" + body.joined(separator: ",") + "}")
}

/// `text` as a JSON string literal.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
