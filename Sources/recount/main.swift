// recount [--data DIR] [--json] COMMAND ...: the command-line shell over the Recount library.
import Foundation

let invocation: Invocation
do {
    invocation = try Invocation(CommandLine.arguments.dropFirst())
} catch let error as UsageError {
    Output.standardError("recount: \(error.message)\n\n\(Invocation.usage)")
    exit(ExitStatus.usage.rawValue)
}
exit(Commands.run(invocation).rawValue)
