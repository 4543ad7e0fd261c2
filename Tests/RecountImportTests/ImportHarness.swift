import Foundation
import Testing

@testable import RecountImport

/// Where the test inputs live: copied fixtures next to the tests, and the shared real exports
/// (some not redistributable) read in place from `../shared/data` beside the package.
enum FixturePaths {
    /// This test target's directory.
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// `/work/shared/data`, found relative to the package root (`<root>/../shared/data`).
    static let sharedData = testsDirectory.appendingPathComponent("../../../shared/data")
        .standardizedFileURL

    /// A file under `Fixtures/`.
    static func fixture(_ name: String) -> URL {
        testsDirectory.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// A file under the shared data directory, e.g. `apple-health-grll-fixture/export.xml`.
    static func shared(_ relativePath: String) -> URL {
        sharedData.appendingPathComponent(relativePath)
    }

    /// Whether a shared file is present (tests that need it are skipped otherwise).
    static func sharedExists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: shared(relativePath).path)
    }
}

/// One decoded `samples.upsert` envelope.
struct EmittedEnvelope: Decodable {
    var kind: String
    var user: String
    var provider: String
    var receivedAt: String?
    var samples: [EmittedSample]
}

/// One decoded sample of an envelope.
struct EmittedSample: Decodable, Hashable {
    var id: String
    var type: String
    var start: String
    var end: String?
    var timeZone: String?
    var value: Double?
    var unit: String?
    var stage: String?
    var origin: String
    var device: String?
    var syncIdentifier: String?
    var syncVersion: Int64?
    var activity: String?
    var distance: EmittedTotal?
    var energy: EmittedTotal?
}

/// A workout total as emitted: a bare number (m, kcal) or `{"value", "unit"}`.
struct EmittedTotal: Decodable, Hashable {
    var value: Double
    var unit: String?

    private enum Keys: String, CodingKey { case value, unit }

    init(from decoder: any Decoder) throws {
        if let number = try? decoder.singleValueContainer().decode(Double.self) {
            value = number
            return
        }
        let object = try decoder.container(keyedBy: Keys.self)
        value = try object.decode(Double.self, forKey: .value)
        unit = try object.decode(String.self, forKey: .unit)
    }
}

/// The outcome of one import: the raw lines, the report and the decoded envelopes.
struct ImportRun {
    var lines: [String]
    var report: ImportReport
    var envelopes: [EmittedEnvelope]
    var progress: [Int]

    /// Every sample of every envelope, in output order.
    var samples: [EmittedSample] { envelopes.flatMap(\.samples) }

    /// The samples of one HealthKit type.
    func samples(of type: String) -> [EmittedSample] { samples.filter { $0.type == type } }

    /// Imports a file.
    static func file(
        _ url: URL, user: String = "u1", batchSize: Int = 1000, progressInterval: Int = 100_000
    ) throws -> ImportRun {
        try run(user: user, batchSize: batchSize, progressInterval: progressInterval) {
            try $0.run(file: url, progress: $1, emit: $2)
        }
    }

    /// Imports a document given as text.
    static func xml(
        _ text: String, user: String = "u1", batchSize: Int = 1000, progressInterval: Int = 100_000
    ) throws -> ImportRun {
        try run(user: user, batchSize: batchSize, progressInterval: progressInterval) {
            try $0.run(data: Data(text.utf8), progress: $1, emit: $2)
        }
    }

    /// Runs a Takeout importer (Fitbit, Google Fit), collecting its lines.
    static func takeout(_ body: (_ emit: (String) throws -> Void) throws -> ImportReport) throws -> ImportRun {
        var lines: [String] = []
        let report = try body { lines.append($0) }
        return try ImportRun(lines: lines, report: report, progress: [])
    }

    /// Imports a Fitbit export folder or zip.
    static func fitbit(_ path: String, timeZone: String? = nil, batchSize: Int = 1000) throws -> ImportRun {
        try takeout {
            try FitbitImporter(user: "u1", timeZone: timeZone, batchSize: batchSize).run(path: path, emit: $0)
        }
    }

    /// Imports a Google Fit Takeout folder or zip.
    static func googleFit(_ path: String, timeZone: String? = nil) throws -> ImportRun {
        try takeout { try GoogleFitImporter(user: "u1", timeZone: timeZone).run(path: path, emit: $0) }
    }

    /// Runs an importer, collecting its lines and progress calls.
    private static func run(
        user: String, batchSize: Int, progressInterval: Int,
        _ body: (AppleHealthImporter, @escaping (Int) -> Void, (String) throws -> Void) throws -> ImportReport
    ) throws -> ImportRun {
        let importer = AppleHealthImporter(user: user, batchSize: batchSize, progressInterval: progressInterval)
        var lines: [String] = []
        var progress: [Int] = []
        let report = try body(importer, { progress.append($0) }, { lines.append($0) })
        return try ImportRun(lines: lines, report: report, progress: progress)
    }

    private init(lines: [String], report: ImportReport, progress: [Int]) throws {
        self.lines = lines
        self.report = report
        self.progress = progress
        envelopes = try Self.decode(lines)
    }

    /// Decodes envelope lines.
    static func decode(_ lines: [String]) throws -> [EmittedEnvelope] {
        let decoder = JSONDecoder()
        return try lines.map { try decoder.decode(EmittedEnvelope.self, from: Data($0.utf8)) }
    }
}

/// A minimal export document around some top-level elements, `ExportDate` first.
func exportDocument(exportDate: String = "2024-06-01 08:10:05 +0200", _ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="\(exportDate)"/>
    \(body)
    </HealthData>

    """
}
