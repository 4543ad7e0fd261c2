// recount [--data DIR] [--json] COMMAND ...: the command-line shell over the Recount library.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
do {
    exit(Commands.run(try Invocation(arguments)).rawValue)
} catch {
    // The options could not be read, so `--json` is looked for among the arguments themselves.
    Output.usageFailure(error.message, command: error.command, json: arguments.prefix { $0 != "--" }.contains("--json"))
    exit(ExitStatus.usage.rawValue)
}
