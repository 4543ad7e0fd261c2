import Recount

/// The SAX side of the importer: an `XMLStreamHandler` that walks an `export.xml` element by
/// element and never builds a tree.
///
/// It reads `ExportDate`, captures each top-level `<Record>` of a supported type and each
/// `<Workout>` with its direct `<MetadataEntry>` children, converts it when the element closes and
/// passes the sample to the `ImportSession`, which writes it and moves samples ingest's decoder
/// refuses from the imported counts to the invalid ones. Everything else at top level is counted as skipped
/// by its `type` attribute (or element name). `<Record>`s inside a `<Correlation>` are only
/// counted: Apple writes them at top level too. Metadata of nested elements (`WorkoutRoute`,
/// `WorkoutActivity`, ...) is ignored, so a route's sync identifier never lands on its workout.
/// The root element must be `<HealthData>`; any other root (`<ClinicalDocument>` of
/// `export_cda.xml`, a bare `<Workout>` fragment) stops the parse and is left in `foreignRoot`.
final class ExportReader: XMLStreamHandler {
    /// Record validation and conversion.
    private var converter: RecordConverter
    /// Envelope output and counts.
    private let session: ImportSession
    /// Called with `recordsSeen` every `progressInterval` records.
    private let progress: ((Int) -> Void)?
    /// How often `progress` is called.
    private let progressInterval: Int

    /// Element depth: 1 inside the root, 2 inside a top-level record.
    private var depth = 0
    /// The supported record being read (while `readingRecord`); its buffer is reused.
    private var record = AppleHealthRecord()
    /// Whether a supported record is open.
    private var readingRecord = false
    /// Whether a top-level `<Correlation>` is open.
    private var inCorrelation = false
    /// Whether any element was seen.
    private(set) var sawElement = false
    /// The first error `emit` threw; parsing stops there.
    private(set) var emitFailure: (any Error)?
    /// The root element, when it is not `<HealthData>`; parsing stops there.
    private(set) var foreignRoot: (name: String, line: Int, column: Int)?

    /// Creates a reader.
    /// - Parameters:
    ///   - writer: where samples go.
    ///   - converter: record validation and conversion.
    ///   - progressInterval: records between `progress` calls (at least 1).
    ///   - progress: optional progress callback.
    init(writer: EnvelopeWriter, converter: RecordConverter, progressInterval: Int, progress: ((Int) -> Void)?) {
        self.session = ImportSession(writer: writer)
        self.converter = converter
        self.progressInterval = max(1, progressInterval)
        self.progress = progress
    }

    /// The report of what was read so far.
    var report: ImportReport {
        session.report(unknownTimeZones: converter.unknownTimeZones, rezoning: converter.rezoning)
    }

    func startElement(_ tag: XMLStartTag) -> Bool {
        depth += 1
        sawElement = true
        if depth == 1, !tag.isNamed("HealthData") {
            foreignRoot = (tag.qualifiedName, tag.line, tag.column)
            return false
        }
        if depth == 2 {
            startTopLevel(tag)
        } else if depth == 3 {
            if readingRecord, tag.isNamed("MetadataEntry") {
                record.addMetadata(tag)
            } else if readingRecord, tag.isNamed("WorkoutStatistics") {
                record.addStatistics(tag)
            } else if inCorrelation, tag.isNamed("Record") {
                session.tally.correlationChildrenIgnored += 1
            }
        }
        return true
    }

    func endElement() -> Bool {
        if depth == 2 {
            if readingRecord {
                readingRecord = false
                finishRecord()
            }
            inCorrelation = false
        }
        depth -= 1
        return emitFailure == nil
    }

    /// Handles a child of the root element.
    private func startTopLevel(_ tag: XMLStartTag) {
        if tag.isNamed("ExportDate") {
            if let value = tag.attribute("value"), let date = ExportTimestamp(parsing: value) {
                session.tally.exportDate = date.rfc3339AtWrittenOffset
                session.writer.receivedAt = Instant(
                    millis: date.epochSeconds * 1000, offsetSeconds: date.writtenOffsetSeconds)
                converter.decideZone(exportDate: date)
            }
            return
        }
        if tag.isNamed("Me") { return }
        session.tally.recordsSeen += 1
        if let progress, session.tally.recordsSeen % progressInterval == 0 {
            progress(session.tally.recordsSeen)
        }
        if tag.isNamed("Record") {
            guard let type = tag.attribute("type") else {
                session.addInvalid(type: "Record", line: tag.line, reason: "missing attribute type")
                return
            }
            if let supported = AppleHealthRecord.supportedRecordType(type) {
                record.start(supported, tag: tag)
                readingRecord = true
            } else {
                session.skip(String(decoding: type, as: UTF8.self))
            }
        } else if tag.isNamed("Workout") {
            record.start(AppleHealthRecord.workoutType, tag: tag)
            readingRecord = true
        } else {
            if tag.isNamed("Correlation") { inCorrelation = true }
            session.skip(tag.string("type") ?? tag.qualifiedName)
        }
    }

    /// Converts the record just finished and writes it, or counts it as invalid.
    private func finishRecord() {
        guard emitFailure == nil else { return }
        // Lent in place: read out of the stored property, the record would be copied (and its
        // buffer retained and released) for every sample.
        withUnsafePointer(to: &record) { finish($0.pointee) }
    }

    /// Converts a finished record and writes it, or counts it as invalid.
    private func finish(_ record: AppleHealthRecord) {
        let sample: Sample
        do {
            sample = try converter.convert(record)
        } catch {
            session.addInvalid(type: record.type, line: record.line, reason: error.reason)
            return
        }
        do {
            try session.add(sample, type: record.type, line: record.line)
        } catch {
            emitFailure = error
        }
    }

    /// Writes the last envelope.
    /// - Throws: whatever the writer throws.
    func flush() throws {
        try session.flush()
    }

    /// Writes the last envelope and says how many samples were printed (`ImportSession`).
    func flushBeforeStopping() throws -> String { try session.flushBeforeStopping() }
}
