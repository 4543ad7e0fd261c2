import Foundation
import Recount
import RecountLog

/// Dispatches a command and turns its errors into exit statuses.
enum Commands {
    /// The commands that take no words after their name (their arguments are options).
    private static let commandWords: [[String]] =
        [["log", "check"], ["log", "stats"], ["log", "repair"], ["log", "dump"]]
        + [
            "demo", "recompute", "rollups", "samples", "dirty", "audit", "cursor", "stale", "stats", "changes",
            "digest",
            "replay", "verify",
        ].map { [$0] }

    static func run(_ invocation: Invocation) -> ExitStatus {
        if invocation.wantsHelp {
            print(Invocation.usage)
            return .success
        }
        if invocation.options["version"] != nil {
            print(Invocation.version)
            return .success
        }
        do {
            switch invocation.words {
            case []: throw UsageError(message: "no command given")
            case ["log", "check"]: return try LogCommands.check(invocation)
            case ["log", "stats"]: return try LogCommands.stats(invocation)
            case ["log", "repair"]: return try LogCommands.repair(invocation)
            case ["log", "dump"]: return try DumpCommand.run(invocation)
            case ["log"]: throw UsageError(message: "log needs a command: dump, check, stats or repair")
            case let words where words.first == "ingest": return try IngestCommand.run(invocation)
            case let words where words.first == "import": return try ImportCommand.run(invocation)
            case ["demo"]: return try DemoCommand.run(invocation)
            case ["recompute"]: return try ProjectionCommands.recompute(invocation)
            case ["rollups"]: return try ProjectionCommands.rollups(invocation)
            case ["samples"]: return try ProjectionCommands.samples(invocation)
            case ["dirty"]: return try ProjectionCommands.dirty(invocation)
            case ["audit"]: return try ProjectionCommands.audit(invocation)
            case ["cursor"]: return try ProjectionCommands.cursor(invocation)
            case ["stale"]: return try ProjectionCommands.stale(invocation)
            case ["stats"]: return try ProjectionCommands.stats(invocation)
            case ["changes"]: return try ProjectionCommands.changes(invocation)
            case ["digest"]: return try ProjectionCommands.digest(invocation)
            case ["replay"]: return try ProjectionCommands.replay(invocation)
            case ["verify"]: return try ProjectionCommands.verify(invocation)
            case let words:
                // A command's words followed by more: say which argument is not expected.
                if let command = Self.commandWords.first(where: { words.starts(with: $0) && words.count > $0.count }) {
                    let extra = words.dropFirst(command.count).joined(separator: " ")
                    throw UsageError(message: "\(command.joined(separator: " ")) takes no argument '\(extra)'")
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
}
