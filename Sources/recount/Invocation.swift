import Foundation
import Recount
import RecountLog

/// A usage mistake: exit status 2, with the usage of the command it was made in.
struct UsageError: Error {
    var message: String
    /// The command words read before the mistake, whose usage lines it shows (the
    /// invocation's words when it was read whole).
    var command: [String] = []
}

/// The parsed command line: the command words and the options, wherever they were given.
///
/// Options are `--name value` or `--name=value` (flags take no value); `-h` is `--help`. An
/// unknown or repeated option is a usage error, and `--` ends the options: every argument after
/// it is a word, even one starting with `-`.
struct Invocation {
    static let version = "recount 0.1.0"

    static let usage = """
        usage: recount [--data DIR] [--json] [--memory-limit N] COMMAND ...
               recount --help | --version

        commands:
          ingest FILE... | -   append NDJSON envelopes to the log; exit 3 when some lines were rejected
                  [--durability every-batch|group-commit|none]   when appended envelopes are fsynced
                                                                  (default every-batch)
                  [--no-recompute]   leave the dirty days for `recompute`
          recompute        rebuild every dirty day from its live samples
          rollups --user U --metric M [--from D] [--to D] [--as-of T]   one row per day (D is YYYY-MM-DD):
                           known, partial or unknown (with the reason), as of T (RFC 3339) if given
          samples --user U --metric M --day D   the live samples of that day
          audit --user U --metric M --day D   that day's rollup and what each source counted or had suppressed
          cursor --user U --provider P --metric M   the stored anchor or changes token, its state and recovery window
          stale [--as-of T]   channels silent past their provider's expected check-in, and the fraction per provider
          stats            what the projections hold; per provider: channels, recoveries, stuck clients,
                           full re-deliveries and how many of their samples were already known
          changes --since VERSION [--user U]   cells whose version moved after VERSION, old and new values
          dirty            the days whose inputs changed since they were recomputed
          digest           SHA-256 over a canonical form of all projections
          replay [--user U] [--until POS]   rebuild the projections from the log in memory (the records before
                           POS when given); print the digest
          verify           check the log, replay it into memory, compare digests; exit 4 on mismatch
          import apple-health FILE|- --user U   an Apple Health export.zip or export.xml as samples.upsert NDJSON
                  [--time-zone ZONE|as-written]   the zone of samples without HKTimeZone (default: inferred
                                                  when the file's HKTimeZone and export offset agree)
          import fitbit DIR|ZIP --user U [--time-zone ZONE]   a Fitbit export (Takeout or account archive);
                                                  its local times are read in ZONE (default: the profile's)
          import google-fit DIR|ZIP --user U [--time-zone ZONE]   a Google Fit Takeout; its instants are
                                                  shown in ZONE (default: the session file names' offset)
          log dump [--from POS] [--user U]   the log's envelopes as NDJSON with their positions
          log check        check every frame's checksum and that each record is an envelope; exit 4 if not
          log stats        segments, records, raw and compressed bytes
          log repair       cut a damaged log back to its last good frame, keeping a copy of what it removes
          demo             ingest an example day and two generated weeks of five users (DIR/demo.ndjson,
                           DIR/demo-weeks.ndjson) and answer from them: rollups, audit, cursor, stats, verify
                           (in a DIR with no log or a log of its own: it refuses another store)
          help             this text

        DIR defaults to $RECOUNT_DATA, else ./recount-data (created on first use by ingest and demo).
        --memory-limit N: the most ids and rollups (about 250 bytes each; 16 check-ins weigh as one,
        a user and each of its channels as two) held in memory at once (default 2000000); past it,
        ranges of users are stored and dropped.
        With --json, results (--version's too) are JSON lines on standard output, and errors,
        rejections and notices JSON lines on standard error; this help stays text.
        """

    /// What a usage error shows after its message: the entries of `usage` for the command that
    /// `words` name (or begin: `log` shows every `log` command), else the first two lines; then
    /// where the rest is.
    static func usage(for words: [String]) -> String {
        var shown: [Substring] = []
        var inEntry = false
        for line in usage.split(separator: "\n") {
            if line.hasPrefix("  ") && !line.hasPrefix("   ") {
                let synopsis = line.dropFirst(2).components(separatedBy: "  ")[0]
                let commandWords = synopsis.split(separator: " ").prefix {
                    $0.allSatisfy { $0 == "-" || ("a"..."z").contains($0) } && !$0.hasPrefix("-")
                }.map(String.init)
                inEntry =
                    !words.isEmpty && !commandWords.isEmpty && commandWords != ["help"]
                    && (words.starts(with: commandWords) || commandWords.starts(with: words))
            } else if !line.hasPrefix("   ") {
                inEntry = false
            }
            if inEntry { shown.append(line) }
        }
        let lines = shown.isEmpty ? usage.split(separator: "\n").prefix(2) : ["usage:"] + shown
        return lines.joined(separator: "\n") + "\nrun `recount help` for every command and option"
    }

    /// Whether an option takes a value.
    private enum Arity { case flag, value }

    /// Every option of every command; `allowOnly` narrows them per command.
    private static let options: [String: Arity] = [
        "data": .value, "json": .flag, "help": .flag, "version": .flag,
        "durability": .value, "no-recompute": .flag, "from": .value, "user": .value,
        "metric": .value, "to": .value, "day": .value, "until": .value, "as-of": .value, "provider": .value,
        "since": .value, "time-zone": .value, "memory-limit": .value,
    ]
    /// Options every command takes.
    private static let global: Set<String> = ["data", "json", "help", "version", "memory-limit"]

    /// The command words and arguments, without options.
    var words: [String] = []
    /// The options given, by name without `--`; a flag's value is empty.
    private(set) var options: [String: String] = [:]

    init(_ arguments: some Sequence<String>) throws(UsageError) {
        var iterator = arguments.makeIterator()
        var optionsEnded = false
        while let argument = iterator.next() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                words.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let spelled = argument == "-h" ? "--help" : argument
            guard spelled.hasPrefix("--") else {
                throw UsageError(message: "unknown option \(argument)", command: words)
            }
            let text = spelled.dropFirst(2)
            let name = String(text.prefix { $0 != "=" })
            let inline = text.firstIndex(of: "=").map { String(text[text.index(after: $0)...]) }
            guard let arity = Self.options[name] else {
                throw UsageError(message: "unknown option --\(name)", command: words)
            }
            guard options[name] == nil else {
                throw UsageError(message: "option --\(name) is given twice", command: words)
            }
            switch arity {
            case .flag:
                guard inline == nil else {
                    throw UsageError(message: "option --\(name) takes no value", command: words)
                }
                options[name] = ""
            case .value:
                // The next argument, unless it is itself an option (`--user --from D` left the
                // user out; a value spelled like an option is given as `--user=--from`).
                guard let value = inline ?? iterator.next(), inline != nil || !Self.namesOption(value) else {
                    throw UsageError(message: "option --\(name) needs a value", command: words)
                }
                // An empty directory name (an unset variable expanded) must not become `/log`.
                guard !(name == "data" && value.isEmpty) else {
                    throw UsageError(message: "option --data needs a directory, not an empty name", command: words)
                }
                options[name] = value
            }
        }
        // Checked whatever the command, even one that never opens an engine.
        _ = try memoryLimit()
    }

    /// Whether `argument` is an option's spelling (`--from`, `--from=D`, `-h`).
    private static func namesOption(_ argument: String) -> Bool {
        guard argument.hasPrefix("--") else { return argument == "-h" }
        return options[String(argument.dropFirst(2).prefix { $0 != "=" })] != nil
    }

    /// JSON lines instead of text.
    var json: Bool { options["json"] != nil }

    /// `--help`, `-h` or the `help` command: the usage text is wanted.
    var wantsHelp: Bool { options["help"] != nil || words.first == "help" }

    /// The data directory: `--data`, else `$RECOUNT_DATA` when set and not empty, else
    /// `./recount-data` (an empty `RECOUNT_DATA` made the log `/log`).
    var dataDirectory: String {
        if let given = options["data"] { return given }
        if let variable = ProcessInfo.processInfo.environment["RECOUNT_DATA"], !variable.isEmpty { return variable }
        return "./recount-data"
    }

    /// `--memory-limit`: the most ids and rollups (`Projections.rangeSize`) an engine holds in
    /// memory (`nil`: its default).
    func memoryLimit() throws(UsageError) -> Int? {
        guard let given = options["memory-limit"] else { return nil }
        guard let limit = Int(given), limit > 0 else {
            throw UsageError(message: "--memory-limit takes a positive number of ids and rollups, not '\(given)'")
        }
        return limit
    }

    /// The log directory inside the data directory.
    var logDirectory: String { DataDirectory(dataDirectory).log }

    /// Creates the data directory when missing (the engine would too, but its error would carry
    /// Foundation's dump where this one becomes a sentence). Not the log inside it: the engine
    /// creates that, after it has checked that no stored projections lost theirs (created here
    /// first, it hid the loss, and `ingest` replaced the projections; a docs audit).
    func createDataDirectory() throws {
        // Foundation's reason, "File exists", hid that the path names a file.
        guard (try? Segment.directoryExists(dataDirectory)) != nil else {
            throw CommandError("cannot write \(dataDirectory): it is a file, not a directory")
        }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    }

    /// The value of `--name`, if given.
    func option(_ name: String) -> String? {
        options[name]
    }

    /// The value of `--name`, or a usage error when it is missing.
    func require(_ name: String) throws(UsageError) -> String {
        guard let value = options[name] else {
            throw UsageError(message: "\(words.joined(separator: " ")) needs --\(name)")
        }
        return value
    }

    /// The value of `--user`, if given; a usage error when no envelope can carry that name.
    func user() throws(UsageError) -> String? {
        guard let user = options["user"] else { return nil }
        if let problem = Envelope.userNameProblem(user) { throw UsageError(message: "--user " + problem) }
        return user
    }

    /// The value of `--user`; a usage error when it is missing or no envelope can carry it.
    func requireUser() throws(UsageError) -> String {
        guard let user = try user() else { return try require("user") }
        return user
    }

    /// Refuses options the command does not take (beyond the global ones).
    func allowOnly(_ names: Set<String>) throws(UsageError) {
        if let unknown = options.keys.sorted().first(where: { !names.contains($0) && !Self.global.contains($0) }) {
            throw UsageError(message: "unknown option --\(unknown) for \(words.joined(separator: " "))")
        }
    }
}
