import Foundation
import RecountImport

/// `recount import apple-health FILE|- --user U`: an Apple Health `export.zip` or `export.xml`
/// (or either on standard input, for `-`) as `samples.upsert` NDJSON on standard output, a report
/// of what was imported and skipped on standard error.
enum ImportCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user"])
        guard invocation.words.count == 3, invocation.words[1] == "apple-health" else {
            throw UsageError(message: "import needs: import apple-health FILE|- --user U")
        }
        let user = try invocation.require("user")
        let input = invocation.words[2]
        if input != "-" { try CommandError.requireReadable(input) }
        let importer = AppleHealthImporter(user: user)
        var pending = ""
        let report: ImportReport
        let progress: (Int) -> Void = { Output.standardError("recount: \($0) records read\n") }
        let emit: (String) -> Void = { line in
            pending += line + "\n"
            if pending.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(pending.utf8))
                pending = ""
            }
        }
        do {
            if input == "-" {
                report = try importer.run(descriptor: 0, progress: progress, emit: emit)
            } else {
                report = try importer.run(file: URL(fileURLWithPath: input), progress: progress, emit: emit)
            }
        } catch let error as AppleHealthImportError where error.code == .invalidUser {
            throw UsageError(message: error.description)
        }
        FileHandle.standardOutput.write(Data(pending.utf8))
        Output.standardError((invocation.json ? report.jsonLine : report.summary) + "\n")
        return report.invalidTotal > 0 ? .someInputRejected : .success
    }
}
