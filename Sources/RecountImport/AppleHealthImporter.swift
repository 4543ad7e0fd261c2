package import Foundation
import Recount

/// Converts an Apple Health `export.xml` into contract NDJSON: `samples.upsert` envelopes with
/// `"provider":"healthkit"` (contract §1).
///
/// The file is streamed through libxml2's SAX2 parser (`XMLStreamParser`), so memory stays flat
/// for exports of gigabytes. Imported types: `HKQuantityTypeIdentifierStepCount`,
/// `…DistanceWalkingRunning`, `…ActiveEnergyBurned`, `…HeartRate`, `…BodyMass`, `…BloodGlucose`,
/// `HKCategoryTypeIdentifierSleepAnalysis` and `<Workout>` (as `HKWorkoutTypeIdentifier`); every
/// other top-level element is counted as skipped. Malformed records are counted as invalid and
/// skipped; a malformed document throws.
///
/// Output is a pure function of the file's bytes and the toolchain's time-zone data: no clock, no
/// hash order, so importing the same export twice gives byte-identical lines. Sample ids are
/// derived from each record's identity (see `RecordID`), so an overlapping later export yields
/// the same ids for the same records. Envelopes are emitted while parsing: when `run` throws
/// part-way, the lines already emitted are complete envelopes but the import is incomplete.
///
/// ```swift
/// let importer = AppleHealthImporter(user: "u1")
/// let report = try importer.run(file: url) { line in print(line) }
/// FileHandle.standardError.write(Data((report.summary + "\n").utf8))
/// ```
package struct AppleHealthImporter: Sendable {
    /// The `user` of every envelope.
    package var user: String
    /// Most samples per envelope.
    package var batchSize: Int
    /// Records between two calls of the progress callback.
    package var progressInterval: Int
    /// How samples without `HKTimeZone` get their offset (default: inferred when the file allows).
    package var timeZone: LocalTimePolicy = .infer

    /// Creates an importer.
    /// - Parameters:
    ///   - user: the envelopes' user: 1–128 characters of `[A-Za-z0-9._:@-]` (checked by `run`).
    ///   - batchSize: most samples per envelope (default 1000, at least 1; checked by `run`).
    ///   - progressInterval: top-level records between progress calls (default 100 000).
    package init(user: String, batchSize: Int = 1000, progressInterval: Int = 100_000) {
        self.user = user
        self.batchSize = batchSize
        self.progressInterval = progressInterval
    }

    /// Imports an export file: the `export.zip` the Health app hands out, or the
    /// `apple_health_export/export.xml` inside it (told apart by the first bytes).
    ///
    /// From a zip, `export.xml` is streamed out of the archive as it is parsed; nothing is
    /// unpacked to disk.
    /// - Parameters:
    ///   - file: a file URL of the zip or the XML.
    ///   - progress: called with the number of top-level records seen so far, every
    ///     `progressInterval` records.
    ///   - emit: receives each envelope as one JSON line, without a trailing newline, in document
    ///     order. An error it throws stops the import and is rethrown unchanged.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: `ImportError` (`.invalidUser`, `.invalidBatchSize`, `.unreadableFile`,
    ///   `.notAnExport` for a zip without the export or XML whose root is not `<HealthData>`,
    ///   `.malformedXML` with line and column), or the error `emit` threw.
    package func run(
        file: URL, progress: ((Int) -> Void)? = nil, emit: (String) throws -> Void
    ) throws -> ImportReport {
        try runUTF8(file: file, progress: progress) { try emit(String(decoding: $0, as: UTF8.self)) }
    }

    /// Imports an export file as `run(file:progress:emit:)` does, handing each envelope line out as
    /// UTF-8 bytes: no `String` is made of a line (hundreds of kilobytes each), so a caller that
    /// writes the lines out saves validating and copying them.
    /// - Parameters:
    ///   - file: a file URL of the zip or the XML.
    ///   - progress: as for `run(file:progress:emit:)`.
    ///   - emit: receives each envelope line's bytes (without a trailing newline), valid only
    ///     during the call. An error it throws stops the import and is rethrown unchanged.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: as `run(file:progress:emit:)`.
    package func runUTF8(
        file: URL, progress: ((Int) -> Void)? = nil, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws -> ImportReport {
        try validateArguments()
        // Inferring the zone needs every HKTimeZone of the file before the first sample: a quick
        // byte scan of a second reading (a second inflation, for a zip).
        let census = timeZone == .infer ? ZoneCensus.scan(try ExportInput.open(path: file.path).stream) : nil
        return try run(
            input: ExportInput.open(path: file.path), census: census, progress: progress, emit: emit)
    }

    /// Imports an export read front to back from a file descriptor (standard input): a zip or
    /// the XML, told apart by the first bytes.
    ///
    /// - Parameters:
    ///   - descriptor: an open descriptor, such as 0; read to its end, not closed.
    ///   - name: what errors call the input (default `-`).
    ///   - progress: as for `run(file:progress:emit:)`.
    ///   - emit: as for `run(file:progress:emit:)`.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: as `run(file:progress:emit:)`.
    package func run(
        descriptor: Int32, name: String = "-", progress: ((Int) -> Void)? = nil, emit: (String) throws -> Void
    ) throws -> ImportReport {
        try runUTF8(descriptor: descriptor, name: name, progress: progress) {
            try emit(String(decoding: $0, as: UTF8.self))
        }
    }

    /// Imports an export read from a file descriptor as `run(descriptor:name:progress:emit:)`
    /// does, handing each envelope line out as UTF-8 bytes (see `runUTF8(file:progress:emit:)`).
    /// - Parameters:
    ///   - descriptor: an open descriptor, such as 0; read to its end, not closed.
    ///   - name: what errors call the input (default `-`).
    ///   - progress: as for `run(file:progress:emit:)`.
    ///   - emit: as for `runUTF8(file:progress:emit:)`.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: as `run(file:progress:emit:)`.
    package func runUTF8(
        descriptor: Int32, name: String = "-", progress: ((Int) -> Void)? = nil,
        emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws -> ImportReport {
        try validateArguments()
        return try run(
            input: ExportInput.open(descriptor: descriptor, name: name), census: nil, progress: progress, emit: emit)
    }

    /// Imports an export held in memory (small files, tests, fragments wrapped in a root element).
    ///
    /// - Parameters:
    ///   - data: the XML document.
    ///   - progress: as for `run(file:progress:emit:)`.
    ///   - emit: as for `run(file:progress:emit:)`.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: as `run(file:progress:emit:)`, never `.unreadableFile`.
    package func run(
        data: Data, progress: ((Int) -> Void)? = nil, emit: (String) throws -> Void
    ) throws -> ImportReport {
        try validateArguments()
        let census = timeZone == .infer ? ZoneCensus.scan(InputStream(data: data)) : nil
        return try run(
            stream: DoctypeBlankingStream(wrapping: InputStream(data: data)), path: nil, zip: nil, census: census,
            progress: progress
        ) { try emit(String(decoding: $0, as: UTF8.self)) }
    }

    /// Parses the XML of an opened input.
    private func run(
        input: ExportInput, census: ZoneCensus?, progress: ((Int) -> Void)?,
        emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws -> ImportReport {
        try run(
            stream: DoctypeBlankingStream(wrapping: input.stream), path: input.name, zip: input.zip, census: census,
            progress: progress, emit: emit)
    }

    /// What a document with another root than `<HealthData>` is told.
    static func notAnExportMessage(root: String) -> String {
        let hint =
            switch root {
            case "ClinicalDocument":
                "this is a clinical document (export_cda.xml); import export.xml or the export.zip"
            case "Record", "Workout", "Correlation", "ActivitySummary", "Me", "ExportDate":
                "this is a fragment of an export; wrap its elements in <HealthData>…</HealthData>"
            default: "import apple_health_export/export.xml or the export.zip"
            }
        return "expected an Apple Health export.xml, whose root element is <HealthData>, found <\(root)>: \(hint)"
    }

    /// Checks `user` and `batchSize`.
    private func validateArguments() throws(ImportError) {
        try ImportArguments.validate(user: user, batchSize: batchSize)
    }

    /// Parses the document a stream holds and flushes the last envelope.
    private func run(
        stream: InputStream, path: String?, zip: ZipEntryStream?, census: ZoneCensus?,
        progress: ((Int) -> Void)?, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws -> ImportReport {
        try withoutActuallyEscaping(emit) { emit in
            try withoutActuallyEscaping(progress ?? { _ in }) { progressCallback in
                let writer = EnvelopeWriter(user: user, provider: "healthkit", batchSize: batchSize, emitUTF8: emit)
                let reader = ExportReader(
                    writer: writer, converter: RecordConverter(policy: timeZone, census: census),
                    progressInterval: progressInterval,
                    progress: progress == nil ? nil : progressCallback)
                stream.open()
                defer { stream.close() }
                var readFailure: (any Error)?
                let parser = XMLStreamParser(handler: reader) { buffer in
                    let count = stream.read(
                        buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
                    guard count >= 0 else {
                        readFailure = readFailure ?? stream.streamError ?? POSIXError(.EIO)
                        return 0
                    }
                    return count
                }
                let outcome = parser.parse()
                if let failure = reader.emitFailure { throw failure }
                // The samples read before damage to the input are printed, and the error counts them.
                if let failure = zip?.failure {
                    throw ImportError(
                        code: .unreadableFile, path: path,
                        message: "unreadable zip entry \(zip?.entryPath ?? ""): \(failure)"
                            + (try reader.flushBeforeStopping()))
                }
                if let readFailure {
                    throw ImportError(
                        code: .unreadableFile, path: path,
                        message: "read failed: \(readFailure)" + (try reader.flushBeforeStopping()))
                }
                if let root = reader.foreignRoot {
                    throw ImportError(
                        code: .notAnExport, path: path, line: root.line, column: root.column,
                        message: Self.notAnExportMessage(root: root.name))
                }
                if case .failed(let failure) = outcome {
                    guard reader.sawElement || failure.code != XMLErrorText.documentEmpty else {
                        throw ImportError(
                            code: .malformedXML, path: path, line: 1, column: 1,
                            message: "document has no root element")
                    }
                    throw ImportError(
                        code: .malformedXML, path: path, line: failure.line, column: failure.column,
                        message: XMLErrorText.message(code: failure.code) + (try reader.flushBeforeStopping()))
                }
                guard reader.sawElement else {
                    throw ImportError(
                        code: .malformedXML, path: path, line: 1, column: 1,
                        message: "document has no root element")
                }
                try reader.flush()
                return reader.report
            }
        }
    }
}
