// recount [--data DIR] [--json] COMMAND ...: the command-line shell over the Recount library.
// swift-format-ignore-file: OrderedImports
// Glibc first and `@preconcurrency`: `stdout`, read once at exit, is a C global var.
@preconcurrency import Glibc
import Foundation

let arguments = CommandLine.arguments.dropFirst()
do {
    let invocation = try Invocation(arguments)
    let status = Commands.run(invocation)
    // What `print` buffered goes out now: results that could not be written are a failure,
    // of the output alone: the command's work (an ingest's appends, say) is done and stays.
    do {
        try StandardStream.flushPrinted(stdout)
    } catch {
        Output.failure(
            "\(error) (the command ran to its end, with exit status \(status.rawValue), but its results were not "
                + "all written)", status: .failure, json: invocation.json)
        exit(ExitStatus.failure.rawValue)
    }
    exit(status.rawValue)
} catch {
    // The options could not be read, so `--json` is looked for among the arguments themselves.
    Output.usageFailure(error.message, command: error.command, json: arguments.prefix { $0 != "--" }.contains("--json"))
    exit(ExitStatus.usage.rawValue)
}
