import Foundation
import RecountImport

/// `recount import apple-health FILE|- --user U [--time-zone ZONE|as-written]`: an Apple Health
/// `export.zip` or `export.xml` (or either on standard input, for `-`) as `samples.upsert` NDJSON
/// on standard output, a report of what was imported and skipped on standard error.
/// `--time-zone` sets the zone of samples without `HKTimeZone` (by default inferred when the file
/// allows; `as-written` keeps the export-time offsets).
enum ImportCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user", "time-zone"])
        guard invocation.words.count == 3, invocation.words[1] == "apple-health" else {
            throw UsageError(message: "import needs: import apple-health FILE|- --user U [--time-zone ZONE]")
        }
        let user = try invocation.require("user")
        let input = invocation.words[2]
        var importer = AppleHealthImporter(user: user)
        if let zone = invocation.options["time-zone"] {
            guard let policy = LocalTimePolicy(argument: zone) else {
                throw UsageError(
                    message: "--time-zone expects an IANA zone name such as Europe/Paris, or as-written; got \(zone)")
            }
            importer.timeZone = policy
        }
        if input != "-" { try CommandError.requireReadable(input) }
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
