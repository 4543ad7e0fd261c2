import Foundation
import RecountLog

/// Dispatches a command and turns its errors into exit statuses.
enum Commands {
    static func run(_ invocation: Invocation) -> ExitStatus {
        do {
            switch invocation.words {
            case ["log", "check"]: return try LogCommands.check(invocation)
            case ["log", "stats"]: return try LogCommands.stats(invocation)
            case ["log", "repair"]: return try LogCommands.repair(invocation)
            case ["log", "dump"]: return try DumpCommand.run(invocation)
            case let words where words.first == "ingest": return try IngestCommand.run(invocation)
            case let words where words.first == "import": return try ImportCommand.run(invocation)
            case ["demo"]: return try DemoCommand.run(invocation)
            default: throw UsageError(message: "unknown command '\(invocation.words.joined(separator: " "))'")
            }
        } catch let error as UsageError {
            Output.standardError("recount: \(error.message)\n\n\(Invocation.usage)")
            return .usage
        } catch let error as LogError where error.isDamage {
            Output.standardError(
                "recount: \(error)\nrecount: the log is damaged; `recount log repair` cuts it back to the last good "
                    + "frame and keeps a copy of what it removes\n")
            return .verificationFailed
        } catch {
            Output.standardError("recount: \(error)\n")
            return .failure
        }
    }
}
