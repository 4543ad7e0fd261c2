import Foundation

/// A usage mistake: exit status 2 with the usage text.
struct UsageError: Error {
    var message: String
}

/// The parsed command line: global options, the command words and their options.
struct Invocation {
    static let usage = """
        usage: recount [--data DIR] [--json] COMMAND ...

        commands:
          ingest FILE... | -   append NDJSON envelopes to the log; exit 3 when some lines were rejected
                              (--no-recompute is accepted; projections do not exist yet)
          import apple-health FILE --user U   an Apple Health export.xml as samples.upsert NDJSON
          log dump [--from POS] [--user U]   the log's envelopes as NDJSON with their positions
          log check        check every frame of the log; exit 4 when damaged
          log stats        segments, records, raw and compressed bytes
          log repair       cut a damaged log back to its last good frame, keeping a copy of what it removes
          demo             ingest a small day of example envelopes (DIR/demo.ndjson) and show the log

        DIR defaults to $RECOUNT_DATA, else ./recount-data (created on first use).
        """

    /// The data directory.
    var dataDirectory: String
    /// JSON lines instead of text.
    var json = false
    /// Options that take no value (`--no-recompute`), after the command.
    var flags: Set<String> = []
    /// The command words and arguments, without global options.
    var words: [String] = []
    /// `--name value` options after the command.
    var options: [String: String] = [:]

    init(_ arguments: some Sequence<String>) throws {
        var data: String? = nil
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--json": json = true
            case "--no-recompute": flags.insert("no-recompute")
            case "--data":
                guard let value = iterator.next() else { throw UsageError(message: "--data needs a directory") }
                data = value
            case "-h", "--help": throw UsageError(message: "help")
            case let option where option.hasPrefix("--") && option.count > 2:
                guard let value = iterator.next() else { throw UsageError(message: "\(option) needs a value") }
                options[String(option.dropFirst(2))] = value
            default: words.append(argument)
            }
        }
        dataDirectory = data ?? ProcessInfo.processInfo.environment["RECOUNT_DATA"] ?? "./recount-data"
        guard !words.isEmpty else { throw UsageError(message: "no command given") }
    }

    /// The log directory inside the data directory.
    var logDirectory: String { dataDirectory + "/log" }

    /// The value of `--name`, or a usage error when it is missing.
    func require(_ name: String) throws -> String {
        guard let value = options[name] else {
            throw UsageError(message: "\(words.joined(separator: " ")) needs --\(name)")
        }
        return value
    }

    /// Refuses options the command does not know.
    func allowOnly(_ names: Set<String>) throws {
        if let unknown = (Array(options.keys) + flags).sorted().first(where: { !names.contains($0) }) {
            throw UsageError(message: "unknown option --\(unknown) for \(words.joined(separator: " "))")
        }
    }
}
