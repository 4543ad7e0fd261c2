import Foundation
import RecountImport

/// One importer under benchmark: how to generate its synthetic export and how to import it.
/// Adding an importer is one more entry in `all`.
struct ImporterCase: Sendable {
    /// What an import found: the figures the smoke run checks.
    struct Outcome: Equatable, Sendable, CustomStringConvertible {
        /// Records (elements, rows) read.
        var records = 0
        /// Samples written into envelopes.
        var samples = 0

        var description: String { "\(records) records, \(samples) samples" }
    }

    /// What a generated export holds.
    struct Expected {
        /// Its size in bytes.
        var bytes: Int
        /// What importing it must find.
        var outcome: Outcome
    }

    /// The name in the JSON lines: `import.NAME`.
    var name: String
    /// The generated file's (or folder's) name.
    var fileName: String
    /// Writes a deterministic export of about the given bytes at the path.
    var generate: @Sendable (_ path: String, _ targetBytes: Int) throws -> Expected
    /// Imports the file at the path, handing the byte count of each envelope line (without its
    /// newline) to the closure.
    var run: @Sendable (_ path: String, _ lineBytes: (Int) -> Void) throws -> Outcome

    /// Every importer benchmarked, in order.
    static let all: [ImporterCase] = [appleHealth, fitbit, googleFit]

    /// Apple Health's `export.xml` (see `AppleHealthExportGenerator`).
    static let appleHealth = ImporterCase(
        name: "apple-health", fileName: "export.xml",
        generate: { path, targetBytes in
            let expected = try AppleHealthExportGenerator(targetBytes: targetBytes).write(to: path)
            return Expected(
                bytes: expected.bytes, outcome: Outcome(records: expected.recordsSeen, samples: expected.imported))
        },
        run: { path, lineBytes in
            // As `recount import` runs it: lines handed out as bytes, no `String` made of them.
            let report = try AppleHealthImporter(user: "bench").runUTF8(file: URL(fileURLWithPath: path)) {
                lineBytes($0.count)
            }
            return Outcome(records: report.recordsSeen, samples: report.samplesWritten)
        })

    /// A Fitbit Google Takeout folder (see `FitbitExportGenerator`), its zone from the profile.
    static let fitbit = ImporterCase(
        name: "fitbit", fileName: "fitbit-takeout",
        generate: { path, targetBytes in try FitbitExportGenerator(targetBytes: targetBytes).write(to: path) },
        run: { path, lineBytes in
            let report = try FitbitImporter(user: "bench").run(path: path) { lineBytes($0.utf8.count) }
            return Outcome(records: report.recordsSeen, samples: report.samplesWritten)
        })

    /// A Google Fit Takeout folder (see `GoogleFitExportGenerator`), its offset from the session
    /// file names.
    static let googleFit = ImporterCase(
        name: "google-fit", fileName: "google-fit-takeout",
        generate: { path, targetBytes in try GoogleFitExportGenerator(targetBytes: targetBytes).write(to: path) },
        run: { path, lineBytes in
            let report = try GoogleFitImporter(user: "bench").run(path: path) { lineBytes($0.utf8.count) }
            return Outcome(records: report.recordsSeen, samples: report.samplesWritten)
        })
}
