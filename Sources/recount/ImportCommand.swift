import Foundation
import RecountImport

/// `recount import SOURCE INPUT --user U`: an export as `samples.upsert` NDJSON on standard
/// output, a report of what was imported and skipped on standard error.
///
/// - `apple-health FILE|-`: an Apple Health `export.zip` or `export.xml` (or either on standard
///   input, for `-`).
/// - `fitbit DIR|ZIP [--time-zone ZONE]`: a Fitbit Google Takeout or account archive.
/// - `google-fit DIR|ZIP [--time-zone ZONE]`: a Google Fit Takeout.
enum ImportCommand {
    static let usage = "import needs: import apple-health FILE|- | fitbit DIR|ZIP | google-fit DIR|ZIP --user U"

    static func run(_ invocation: Invocation) throws -> ExitStatus {
        guard invocation.words.count == 3 else { throw UsageError(message: usage) }
        let source = invocation.words[1]
        let input = invocation.words[2]
        switch source {
        case "apple-health": try invocation.allowOnly(["user"])
        case "fitbit", "google-fit": try invocation.allowOnly(["user", "time-zone"])
        default: throw UsageError(message: usage)
        }
        let user = try invocation.require("user")
        let timeZone = invocation.option("time-zone")
        if input != "-" {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) || !isDirectory.boolValue {
                try CommandError.requireReadable(input)
            }
        } else if source != "apple-health" {
            throw UsageError(message: "import \(source) reads a folder or a zip, not standard input")
        }
        var pending = ""
        let report: ImportReport
        let emit: (String) -> Void = { line in
            pending += line + "\n"
            if pending.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(pending.utf8))
                pending = ""
            }
        }
        do {
            switch source {
            case "fitbit":
                report = try FitbitImporter(user: user, timeZone: timeZone).run(path: input, emit: emit)
            case "google-fit":
                report = try GoogleFitImporter(user: user, timeZone: timeZone).run(path: input, emit: emit)
            default:
                let importer = AppleHealthImporter(user: user)
                let progress: (Int) -> Void = { Output.standardError("recount: \($0) records read\n") }
                if input == "-" {
                    report = try importer.run(descriptor: 0, progress: progress, emit: emit)
                } else {
                    report = try importer.run(file: URL(fileURLWithPath: input), progress: progress, emit: emit)
                }
            }
        } catch let error as ImportError where error.code == .invalidUser {
            throw UsageError(message: error.description)
        }
        FileHandle.standardOutput.write(Data(pending.utf8))
        Output.standardError((invocation.json ? report.jsonLine : report.summary) + "\n")
        return report.invalidTotal > 0 ? .someInputRejected : .success
    }
}
