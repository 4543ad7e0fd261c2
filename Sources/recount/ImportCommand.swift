import Foundation
import RecountImport

/// `recount import SOURCE INPUT --user U [--time-zone ZONE]`: an export as `samples.upsert` NDJSON
/// on standard output, a report of what was imported and skipped on standard error.
///
/// - `apple-health FILE|-`: an Apple Health `export.zip` or `export.xml` (or either on standard
///   input, for `-`). `--time-zone` is the zone of samples without `HKTimeZone` (by default
///   inferred when the file allows); `as-written` keeps the export-time offsets.
/// - `fitbit DIR|ZIP`: a Fitbit Google Takeout or account archive. `--time-zone` is the zone its
///   local times are read in (by default the profile's).
/// - `google-fit DIR|ZIP`: a Google Fit Takeout. `--time-zone` is the zone its instants are shown
///   in (by default the fixed offset of the session file names).
///
/// `ZONE` is checked here for every source, as ingest checks a sample's zone, so a name ingest
/// would refuse is a usage error rather than an import whose every sample is rejected.
enum ImportCommand {
    static let usage =
        "import needs: import apple-health FILE|- | fitbit DIR|ZIP | google-fit DIR|ZIP --user U [--time-zone ZONE]"

    static func run(_ invocation: Invocation) throws -> ExitStatus {
        guard invocation.words.count == 3 else { throw UsageError(message: usage) }
        let source = invocation.words[1]
        let input = invocation.words[2]
        guard ["apple-health", "fitbit", "google-fit"].contains(source) else { throw UsageError(message: usage) }
        try invocation.allowOnly(["user", "time-zone"])
        let user = try invocation.requireUser()
        let timeZone = invocation.option("time-zone")
        let policy = try timeZone.map { argument throws(UsageError) in try localTimePolicy(argument, source: source) }
        if input != "-" {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) || !isDirectory.boolValue {
                try CommandError.requireReadable(input)
            }
        } else if source != "apple-health" {
            throw UsageError(message: "import \(source) reads a folder or a zip, not standard input")
        }
        let output = LineOutput()
        let report: ImportReport
        let emit: (String) -> Void = { line in output.append(line) }
        do {
            switch source {
            case "fitbit":
                report = try FitbitImporter(user: user, timeZone: timeZone).run(path: input, emit: emit)
            case "google-fit":
                report = try GoogleFitImporter(user: user, timeZone: timeZone).run(path: input, emit: emit)
            default:
                var importer = AppleHealthImporter(user: user)
                if let policy { importer.timeZone = policy }
                let progress: (Int) -> Void = { Output.standardError("recount: \($0) records read\n") }
                // Lines go out as the importer's bytes, never made into a `String`.
                if input == "-" {
                    report = try importer.runUTF8(descriptor: 0, progress: progress, emit: output.append)
                } else {
                    report = try importer.runUTF8(
                        file: URL(fileURLWithPath: input), progress: progress, emit: output.append)
                }
            }
        } catch let error as ImportError where error.code == .invalidUser {
            throw UsageError(message: error.description)
        } catch {
            // The envelopes printed before damage, the last ones still pending here, are what
            // the error counts.
            try? output.finish()
            throw error
        }
        try output.finish()
        Output.standardError((invocation.json ? report.jsonLine : report.summary) + "\n")
        return report.invalidTotal > 0 ? .someInputRejected : .success
    }

    /// Parses `--time-zone`: an IANA zone name for every source, or `as-written` for
    /// `apple-health`, whose samples without `HKTimeZone` then keep their written offsets.
    private static func localTimePolicy(_ argument: String, source: String) throws(UsageError) -> LocalTimePolicy {
        let asWrittenAllowed = source == "apple-health"
        guard let policy = LocalTimePolicy(argument: argument), asWrittenAllowed || policy != .asWritten else {
            throw UsageError(
                message: "--time-zone expects an IANA zone name such as Europe/Paris"
                    + (asWrittenAllowed ? ", or as-written" : "") + "; got \(argument)")
        }
        return policy
    }
}

/// Envelope lines on their way to standard output, written a few tens of kilobytes at a time.
private final class LineOutput {
    /// Bytes not written yet.
    private var pending: [UInt8] = []
    /// Pending bytes past which they are written out.
    private static let bufferSize = 1 << 16

    /// Adds a line and its newline.
    func append(_ line: String) {
        pending.append(contentsOf: line.utf8)
        added()
    }

    /// Adds a line given as UTF-8 bytes, and its newline. A line longer than the buffer (an
    /// envelope of hundreds of kilobytes) is written straight from the caller's bytes, not
    /// copied into it first.
    func append(_ line: UnsafeBufferPointer<UInt8>) {
        if line.count > Self.bufferSize {
            flush()
            write(UnsafeRawBufferPointer(line))
        } else {
            pending.append(contentsOf: line)
        }
        added()
    }

    /// The first write that failed: later lines are dropped, and `finish` throws it.
    private var failure: StandardStream.WriteError?

    /// Writes what is pending (from the buffer itself: no `Data` copy of it).
    func flush() {
        pending.withUnsafeBytes { write($0) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes what is pending; throws the first write that failed.
    func finish() throws(StandardStream.WriteError) {
        flush()
        if let failure { throw failure }
    }

    /// Writes bytes to standard output unless a write failed already.
    private func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        do { try StandardStream.write(bytes, to: STDOUT_FILENO) } catch { failure = error }
    }

    /// Ends the line just added; writes out when enough is pending.
    private func added() {
        pending.append(UInt8(ascii: "\n"))
        if pending.count > Self.bufferSize { flush() }
    }
}
