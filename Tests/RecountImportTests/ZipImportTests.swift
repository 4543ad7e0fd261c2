import Foundation
import Testing

@testable import RecountImport

/// `export.zip` as the Health app hands it out, standard input, and inputs that are not exports.
@Suite struct ZipImportTests {
    static let zip = FixturePaths.fixture("tdda-export.zip")
    static let xml = FixturePaths.fixture("tdda-export6s3sample.xml")
    static let frGarminZip = "apple-health-export-fr-garmin/export.zip"

    /// Imports bytes handed over a real pipe, as `recount import apple-health -` reads them.
    static func runPiped(_ data: Data, user: String = "u1") throws -> (lines: [String], report: ImportReport) {
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(data)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        var lines: [String] = []
        let report = try AppleHealthImporter(user: user).run(
            descriptor: pipe.fileHandleForReading.fileDescriptor, emit: { lines.append($0) })
        return (lines, report)
    }

    /// Bytes of a file.
    static func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test func zipGivesTheSameEnvelopesAsItsExportXML() throws {
        let zipped = try ImportRun.file(Self.zip)
        let plain = try ImportRun.file(Self.xml)
        #expect(zipped.lines == plain.lines)
        #expect(zipped.report == plain.report)
        #expect(zipped.report.samplesWritten == 16)
    }

    @Test func standardInputTakesAZipOrXML() throws {
        let plain = try ImportRun.file(Self.xml)
        // Standard input is read once, so no zone is inferred (this export has no HKTimeZone
        // anyway); everything else is the same.
        var expected = plain.report
        expected.rezoning?.reason = "the input is read once (standard input): pass --time-zone"
        let zipped = try Self.runPiped(Self.bytes(Self.zip))
        #expect(zipped.lines == plain.lines)
        #expect(zipped.report == expected)
        let xml = try Self.runPiped(Self.bytes(Self.xml))
        #expect(xml.lines == plain.lines)
        #expect(xml.report == expected)
    }

    /// A phone set to Spanish writes `exportar.zip` holding `apple_health_export/exportar.xml`:
    /// the same envelopes as the English export (it was not an export; an attack run).
    @Test func anExportNamedInAnotherLanguageIsRead() throws {
        let localized = try ImportRun.file(FixturePaths.fixture("tdda-export-es.zip"))
        let english = try ImportRun.file(Self.zip)
        #expect(localized.lines == english.lines)
        #expect(localized.report.samplesWritten == 16)
        for entry in ["apple_health_export/exportar.xml", "x/apple_health_export/eksport.xml", "export.xml"] {
            #expect(ExportInput.isExport(entry: entry), "\(entry)")
        }
        for entry in [
            "apple_health_export/export_cda.xml", "apple_health_export/exportar_cda.xml",
            "apple_health_export/workout-routes/route.gpx", "apple_health_export/electrocardiograms/ecg.csv",
            "other/notes.xml", "__MACOSX/apple_health_export/._exportar.xml", "apple_health_export/._export.xml",
            "apple_health_export/._exportar.xml",
        ] {
            #expect(!ExportInput.isExport(entry: entry), "\(entry)")
        }
    }

    @Test func zipWithoutTheExportSaysWhatWasExpected() throws {
        let path = FixturePaths.fixture("cda-only.zip").path
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1").run(file: URL(fileURLWithPath: path)) { _ in }
        }
        #expect(error.code == .notAnExport)
        #expect(error.path == path)
        #expect(error.message.contains("apple_health_export/export.xml"))
        #expect(error.message.contains("entries: apple_health_export/export_cda.xml"))
        let piped = try #require(throws: ImportError.self) {
            _ = try Self.runPiped(Self.bytes(FixturePaths.fixture("cda-only.zip")))
        }
        #expect(piped.code == .notAnExport && piped.path == "-")
    }

    /// A gzipped export.xml is named as such, from a file and from standard input (it was
    /// "malformed XML: document has no root element" at 1:1; an attack run).
    @Test func aGzipFileIsNamedNotParsed() throws {
        let gzip = Data([0x1F, 0x8B, 0x08, 0x00] + [UInt8](repeating: 0, count: 16))
        try withTemporaryFile(gzip) { url in
            let error = try #require(throws: ImportError.self) {
                _ = try AppleHealthImporter(user: "u1").run(file: url) { _ in }
            }
            #expect(error.code == .unreadableFile && error.message.hasPrefix("a gzip file"))
        }
        let piped = try #require(throws: ImportError.self) { _ = try Self.runPiped(gzip) }
        #expect(piped.code == .unreadableFile && piped.message.hasPrefix("a gzip file"))
    }

    @Test func damagedZipIsAnErrorNotAnEmptyImport() throws {
        let whole = try Self.bytes(Self.zip)
        try withTemporaryFile(whole.prefix(whole.count / 2)) { url in
            let error = try #require(throws: ImportError.self) {
                _ = try AppleHealthImporter(user: "u1").run(file: url) { _ in }
            }
            #expect(error.code == .unreadableFile)
            #expect(error.message.hasPrefix("unreadable zip"))
        }
        let piped = try #require(throws: ImportError.self) {
            _ = try Self.runPiped(whole.prefix(whole.count / 2))
        }
        #expect(piped.code == .unreadableFile)
    }

    @Test(
        arguments: [
            ("<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><title>Health</title></ClinicalDocument>", "ClinicalDocument"),
            (
                "<Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\" sourceName=\"Watch\" "
                    + "startDate=\"2024-01-01 10:00:00 +0200\" endDate=\"2024-01-01 11:00:00 +0200\"/>",
                "Workout"
            ),
            ("<HealthDataX/>", "HealthDataX"),
        ])
    func documentWithAnotherRootIsNotAnExport(text: String, root: String) throws {
        var emitted = 0
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1").run(data: Data(("<?xml version=\"1.0\"?>\n" + text).utf8)) { _ in
                emitted += 1
            }
        }
        #expect(error.code == .notAnExport)
        #expect(error.message.contains("<HealthData>") && error.message.contains("found <\(root)>"))
        #expect(error.line == 2)
        #expect(emitted == 0)
    }

    @Test func anExportWithoutRecordsIsStillAnExport() throws {
        let run = try ImportRun.xml(exportDocument(""))
        #expect(run.lines.isEmpty && run.report.recordsSeen == 0)
    }

    @Test(.enabled(if: FixturePaths.sharedExists(frGarminZip), "needs ../shared/data/\(frGarminZip)"))
    func frGarminZipEqualsItsUnzippedExport() throws {
        let zip = FixturePaths.shared(Self.frGarminZip)
        let zipped = try ImportRun.file(zip)
        // The reference: export.xml unpacked by Python's zipfile, a reader independent of ours.
        try withTemporaryFile(Data()) { xml in
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = [
                "python3", "-c",
                "import sys, zipfile; open(sys.argv[2], 'wb').write("
                    + "zipfile.ZipFile(sys.argv[1]).read('apple_health_export/export.xml'))",
                zip.path, xml.path,
            ]
            try python.run()
            python.waitUntilExit()
            try #require(python.terminationStatus == 0, "python3 could not unpack the zip")
            let plain = try ImportRun.file(xml)
            #expect(zipped.lines == plain.lines)
            #expect(zipped.report == plain.report)
        }
        #expect(zipped.report.importedTotal == 56_138)
        #expect(zipped.report.envelopesWritten == 57)
        #expect(zipped.report.skippedCount("HKQuantityTypeIdentifierWalkingSpeed") == 2_663)
    }
}

/// Runs `body` with a temporary file holding `data`, removed afterwards.
func withTemporaryFile(_ data: some DataProtocol, _ body: (URL) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("recount-import-\(UInt64.random(in: 0...UInt64.max))")
    try Data(data).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    try body(url)
}
