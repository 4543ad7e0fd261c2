import Foundation
import TestSupport
import Testing

@testable import RecountImport

/// Takeouts read a file at a time: a zip whose entries are not in path order gives what its
/// folder gives, and a stream file is read whatever the order of its two members.
@Suite struct TakeoutStreamingTests {
    /// Zips a folder with Python's zipfile, entries in reverse path order under `Takeout/`.
    static func zipReversed(_ folder: URL, to zip: URL) throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import os, sys, zipfile\n"
                + "root = sys.argv[1]\n"
                + "files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)\n"
                + "with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                + "    for f in reversed(files): z.write(os.path.join(root, f), 'Takeout/' + f)\n",
            folder.path, zip.path,
        ]
        try python.run()
        python.waitUntilExit()
        try #require(python.terminationStatus == 0, "python3 could not write the zip")
    }

    @Test(.enabled(if: FixturePaths.sharedExists(GoogleFitSharedExportTests.folder)))
    func zipOutOfPathOrderGivesWhatItsFolderGives() throws {
        let folder = FixturePaths.shared(GoogleFitSharedExportTests.folder)
        try withTemporaryDirectory { directory in
            let zip = URL(fileURLWithPath: directory + "/takeout.zip")
            try Self.zipReversed(folder, to: zip)
            let zipped = try ImportRun.googleFit(zip.path)
            let plain = try ImportRun.googleFit(folder.path)
            #expect(zipped.lines == plain.lines)
            #expect(zipped.report == plain.report)
            #expect(plain.report.samplesWritten == 2_384)
        }
    }

    /// The files of a zip not in path order wait in memory, up to a limit: past it the import
    /// stops and says why, rather than hold what a small zip can inflate to.
    @Test func filesWaitingForTheirTurnAreBounded() throws {
        try withTemporaryDirectory { directory in
            let folder = URL(fileURLWithPath: directory + "/export")
            try FileManager.default.createDirectory(
                atPath: folder.path + "/a", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: folder.path + "/b", withIntermediateDirectories: true)
            for name in ["a/1.json", "a/2.json", "b/3.json"] {
                try Data(repeating: UInt8(ascii: " "), count: 1000).write(to: folder.appendingPathComponent(name))
            }
            let zip = URL(fileURLWithPath: directory + "/reversed.zip")
            try Self.zipReversed(folder, to: zip)
            let export = try ExportFiles.open(path: zip.path, accepting: { _ in true })
            var read: [String] = []
            try export.forEach(waitingLimit: 2000) { read.append($0.path) }
            #expect(read == ["Takeout/a/1.json", "Takeout/a/2.json", "Takeout/b/3.json"])
            let error = try #require(throws: ImportError.self) {
                try export.forEach(waitingLimit: 1999) { _ in }
            }
            #expect(error.code == .unreadableFile)
            #expect(error.message.contains("not stored in path order"))
        }
    }

    /// A zip's file is held whole, and a zip of 2 MB can inflate to 2 GiB: past a limit the
    /// import stops and names the file (an attack run's zip bomb took 2 GiB, and under
    /// `ulimit -v` crashed).
    @Test func aZipFileInflatingPastTheLimitIsRefused() throws {
        try withTemporaryDirectory { directory in
            let folder = URL(fileURLWithPath: directory + "/export")
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            try Data(repeating: UInt8(ascii: " "), count: 3000).write(to: folder.appendingPathComponent("big.json"))
            let zip = URL(fileURLWithPath: directory + "/bomb.zip")
            try Self.zipReversed(folder, to: zip)
            let export = try ExportFiles.open(path: zip.path, accepting: { _ in true })
            var sizes: [Int] = []
            try export.forEach(zipFileLimit: 3000) { sizes.append($0.data.count) }
            #expect(sizes == [3000])
            let error = try #require(throws: ImportError.self) {
                try export.forEach(zipFileLimit: 2999) { _ in Issue.record("a file past the limit was read") }
            }
            #expect(error.code == .unreadableFile)
            #expect(error.message.contains("Takeout/big.json inflates to more than"))
        }
    }

    /// Python marks a non-ASCII entry name as UTF-8, as Takeout, Java, 7-Zip and Windows do: a
    /// French Takeout's `Données globales` was read as a nameless entry, and the zip was "not an
    /// export" (an attack run).
    @Test func zipEntryNamesMarkedUTF8AreRead() throws {
        try withTemporaryDirectory { directory in
            let folder = URL(fileURLWithPath: directory + "/export")
            let global = folder.path + "/Fitbit/Données globales"
            try FileManager.default.createDirectory(atPath: global, withIntermediateDirectories: true)
            let steps = (0..<3).map { "{\"dateTime\": \"10/10/23 00:0\($0):00\", \"value\": \"24\"}" }
            try Data("[\(steps.joined(separator: ","))]".utf8).write(
                to: URL(fileURLWithPath: global + "/steps-2023-10-09.json"))
            let apple = folder.path + "/apple_health_export"
            try FileManager.default.createDirectory(atPath: apple, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: ZipImportTests.xml, to: URL(fileURLWithPath: apple + "/書き出したデータ.xml"))
            let zip = URL(fileURLWithPath: directory + "/takeout.zip")
            try Self.zipReversed(folder, to: zip)
            #expect(
                try ZipEntryStream.entryPaths(path: zip.path) { _ in true } == [
                    "Takeout/apple_health_export/書き出したデータ.xml", "Takeout/Fitbit/Données globales/steps-2023-10-09.json",
                ])
            let fitbit = try ImportRun.fitbit(zip.path, timeZone: "UTC")
            #expect(fitbit.report.samplesWritten == 3)
            #expect(fitbit.lines == (try ImportRun.fitbit(folder.path, timeZone: "UTC")).lines)
            #expect(try ImportRun.file(zip).lines == (try ImportRun.file(ZipImportTests.xml)).lines)
        }
    }

    @Test func dataSourceAfterTheDataPointsIsStillRead() throws {
        try withTemporaryDirectory { directory in
            let allData = directory + "/Takeout/Fit/All Data"
            try FileManager.default.createDirectory(atPath: allData, withIntermediateDirectories: true)
            let point = { (start: Int, steps: Int) in
                "{\"fitValue\":[{\"value\":{\"intVal\":\(steps)}}],\"originDataSourceId\":\"o\","
                    + "\"startTimeNanos\":\(start * 1_000_000),\"endTimeNanos\":\((start + 60_000) * 1_000_000)}"
            }
            let source = "derived:com.google.step_count.delta:com.google.android.gms:estimated_steps"
            let first = "{\"Data Source\": \"\(source)\", \"Data Points\": [\(point(0, 5)), \(point(60_000, 7))]}"
            let last = "{\"Data Points\": [\(point(0, 5)), \(point(60_000, 7))], \"Data Source\": \"\(source)\"}"
            try Data(first.utf8).write(to: URL(fileURLWithPath: allData + "/a.json"))
            let sourceFirst = try ImportRun.googleFit(directory, timeZone: "UTC")
            try Data(last.utf8).write(to: URL(fileURLWithPath: allData + "/a.json"))
            let sourceLast = try ImportRun.googleFit(directory, timeZone: "UTC")
            #expect(sourceFirst.report.samplesWritten == 2)
            #expect(sourceLast.lines == sourceFirst.lines)
            #expect(sourceLast.report == sourceFirst.report)
            try Data("{\"Data Source\": \"\(source)\", \"Data Points\": [\(point(0, 5)),".utf8)
                .write(to: URL(fileURLWithPath: allData + "/a.json"))
            let error = try #require(throws: ImportError.self) { try ImportRun.googleFit(directory, timeZone: "UTC") }
            #expect(error.code == .malformedJSON)
            #expect(error.description.contains("a.json"))
            #expect(error.message.hasSuffix("(printed before it: 1 sample in 1 envelope)"))
        }
    }
}
