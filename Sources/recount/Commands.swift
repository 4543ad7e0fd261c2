import Foundation
import Recount
import RecountLog

/// Dispatches a command and turns its errors into exit statuses.
enum Commands {
    static func run(_ invocation: Invocation) -> ExitStatus {
        if invocation.wantsHelp {
            print(Invocation.usage)
            return .success
        }
        if invocation.options["version"] != nil {
            // A result, so a JSON line with `--json`; the help stays text in every mode.
            if invocation.json {
                Output.jsonLine([("version", .string(String(Invocation.version.dropFirst("recount ".count))))])
            } else {
                print(Invocation.version)
            }
            return .success
        }
        do {
            let words = invocation.words
            if let command = command(named: words) { return try command(invocation) }
            switch words {
            case []: throw UsageError(message: "no command given")
            case ["log"]: throw UsageError(message: "log needs a command: dump, check, stats or repair")
            default:
                // A command's words followed by more: say which argument is not expected.
                if let named = (1..<words.count).reversed().first(where: {
                    command(named: Array(words.prefix($0))) != nil
                }) {
                    let extra = words.dropFirst(named).joined(separator: " ")
                    throw UsageError(
                        message: "\(words.prefix(named).joined(separator: " ")) takes no argument '\(extra)'")
                }
                throw UsageError(message: "unknown command '\(words.joined(separator: " "))'")
            }
        } catch let error as UsageError {
            Output.usageFailure(error.message, command: invocation.words, json: invocation.json)
            return .usage
        } catch let error as QueryError {
            Output.usageFailure(error.message, command: invocation.words, json: invocation.json)
            return .usage
        } catch let error as LogError where error.isDamage {
            Output.failure(
                "\(error); the log is damaged: `recount log repair` cuts it back to the last good frame and keeps "
                    + "a copy of what it removes", status: .verificationFailed, json: invocation.json)
            return .verificationFailed
        } catch let error as UnreadableRecord {
            Output.failure("\(error)", status: .verificationFailed, json: invocation.json)
            return .verificationFailed
        } catch {
            Output.failure(Output.sentence(for: error), status: .failure, json: invocation.json)
            return .failure
        }
    }

    /// The command `words` name: `ingest` and `import` with any words after them, every other
    /// command with none (its arguments are options); `nil` for none.
    private static func command(named words: [String]) -> ((Invocation) throws -> ExitStatus)? {
        switch words {
        case ["log", "check"]: LogCommands.check
        case ["log", "stats"]: LogCommands.stats
        case ["log", "repair"]: LogCommands.repair
        case ["log", "dump"]: DumpCommand.run
        case let words where words.first == "ingest": IngestCommand.run
        case let words where words.first == "import": ImportCommand.run
        case ["demo"]: DemoCommand.run
        case ["recompute"]: ProjectionCommands.recompute
        case ["rollups"]: ProjectionCommands.rollups
        case ["samples"]: ProjectionCommands.samples
        case ["dirty"]: ProjectionCommands.dirty
        case ["audit"]: ProjectionCommands.audit
        case ["cursor"]: ProjectionCommands.cursor
        case ["stale"]: ProjectionCommands.stale
        case ["stats"]: ProjectionCommands.stats
        case ["changes"]: ProjectionCommands.changes
        case ["digest"]: ProjectionCommands.digest
        case ["replay"]: ProjectionCommands.replay
        case ["verify"]: ProjectionCommands.verify
        default: nil
        }
    }
}
