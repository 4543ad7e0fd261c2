import Foundation
import RecountImport

/// `recount import apple-health FILE --user U`: an Apple Health `export.xml` as `samples.upsert`
/// NDJSON on standard output, a report of what was imported and skipped on standard error.
enum ImportCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user"])
        guard invocation.words.count == 3, invocation.words[1] == "apple-health" else {
            throw UsageError(message: "import needs: import apple-health FILE --user U")
        }
        let user = try invocation.require("user")
        try CommandError.requireReadable(invocation.words[2])
        let importer = AppleHealthImporter(user: user)
        var pending = ""
        let report: ImportReport
        do {
            report = try importer.run(
                xml: URL(fileURLWithPath: invocation.words[2]),
                progress: { Output.standardError("recount: \($0) records read\n") },
                emit: { line in
                    pending += line + "\n"
                    if pending.utf8.count > 1 << 16 {
                        FileHandle.standardOutput.write(Data(pending.utf8))
                        pending = ""
                    }
                })
        } catch let error as AppleHealthImportError where error.code == .invalidUser {
            throw UsageError(message: error.description)
        }
        FileHandle.standardOutput.write(Data(pending.utf8))
        Output.standardError((invocation.json ? report.jsonLine : report.summary) + "\n")
        return report.invalidTotal > 0 ? .someInputRejected : .success
    }
}
