import Foundation
import Recount

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SAX side of the importer: an `XMLParserDelegate` that walks an `export.xml` element by
/// element and never builds a tree.
///
/// It reads `ExportDate`, captures each top-level `<Record>` of a supported type and each
/// `<Workout>` with its direct `<MetadataEntry>` children, converts it when the element closes and
/// passes the sample to the `EnvelopeWriter`; samples ingest's decoder refuses move from the
/// imported counts to the invalid ones. Everything else at top level is counted as skipped
/// by its `type` attribute (or element name). `<Record>`s inside a `<Correlation>` are only
/// counted: Apple writes them at top level too. Metadata of nested elements (`WorkoutRoute`,
/// `WorkoutActivity`, ...) is ignored, so a route's sync identifier never lands on its workout.
/// The root element must be `<HealthData>`; any other root (`<ClinicalDocument>` of
/// `export_cda.xml`, a bare `<Workout>` fragment) stops the parse and is left in `foreignRoot`.
final class ExportReader: NSObject, XMLParserDelegate {
    /// Record validation and conversion.
    private let converter = RecordConverter()
    /// Envelope output and counts.
    private let session: ImportSession
    /// Called with `recordsSeen` every `progressInterval` records.
    private let progress: ((Int) -> Void)?
    /// How often `progress` is called.
    private let progressInterval: Int

    /// Element depth: 1 inside the root, 2 inside a top-level record.
    private var depth = 0
    /// The supported record being read, if any.
    private var current: AppleHealthRecord?
    /// Whether a top-level `<Correlation>` is open.
    private var inCorrelation = false
    /// Whether any element was seen.
    private(set) var sawElement = false
    /// The first error `emit` threw; parsing stops there.
    private(set) var emitFailure: (any Error)?
    /// The root element, when it is not `<HealthData>`; parsing stops there.
    private(set) var foreignRoot: (name: String, line: Int, column: Int)?
    /// The first XML error: position and message.
    private(set) var xmlError: (line: Int, column: Int, message: String)?

    /// Creates a reader.
    /// - Parameters:
    ///   - writer: where samples go.
    ///   - progressInterval: records between `progress` calls (at least 1).
    ///   - progress: optional progress callback.
    init(writer: EnvelopeWriter, progressInterval: Int, progress: ((Int) -> Void)?) {
        self.session = ImportSession(writer: writer)
        self.progressInterval = max(1, progressInterval)
        self.progress = progress
    }

    /// The report of what was read so far.
    var report: ImportReport {
        session.report(unknownTimeZones: converter.unknownTimeZones)
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        depth += 1
        sawElement = true
        if depth == 1, elementName != "HealthData" {
            foreignRoot = (elementName, parser.lineNumber, parser.columnNumber)
            parser.abortParsing()
            return
        }
        if depth == 2 {
            startTopLevel(elementName, attributes: attributeDict, line: parser.lineNumber)
        } else if depth == 3 {
            if current != nil, elementName == "MetadataEntry",
                let key = attributeDict["key"], let value = attributeDict["value"]
            {
                current?.addMetadata(key: key, value: value)
            } else if inCorrelation, elementName == "Record" {
                session.tally.correlationChildrenIgnored += 1
            }
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?
    ) {
        if depth == 2 {
            if let record = current {
                current = nil
                finish(record, parser: parser)
            }
            inCorrelation = false
        }
        depth -= 1
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard xmlError == nil, emitFailure == nil, foreignRoot == nil else { return }
        xmlError = (parser.lineNumber, parser.columnNumber, XMLErrorText.message(for: parseError))
        parser.abortParsing()
    }

    /// Handles a child of the root element.
    private func startTopLevel(_ name: String, attributes: [String: String], line: Int) {
        switch name {
        case "ExportDate":
            if let value = attributes["value"], let date = ExportTimestamp(parsing: value) {
                session.tally.exportDate = date.rfc3339AtWrittenOffset
                session.writer.receivedAt = Instant(
                    millis: date.epochSeconds * 1000, offsetSeconds: date.writtenOffsetSeconds)
            }
            return
        case "Me":
            return
        default:
            break
        }
        session.tally.recordsSeen += 1
        if let progress, session.tally.recordsSeen % progressInterval == 0 {
            progress(session.tally.recordsSeen)
        }
        switch name {
        case "Record":
            guard let type = attributes["type"] else {
                session.tally.addInvalid(type: name, line: line, reason: "missing attribute type")
                return
            }
            if let kind = AppleHealthRecord.supportedRecordTypes[type] {
                current = AppleHealthRecord(
                    kind: kind, type: type, line: line, attributes: attributes)
            } else {
                session.tally.skipped[type, default: 0] += 1
            }
        case "Workout":
            current = AppleHealthRecord(
                kind: .workout, type: AppleHealthRecord.workoutType, line: line,
                attributes: attributes)
        case "Correlation":
            inCorrelation = true
            session.tally.skipped[attributes["type"] ?? name, default: 0] += 1
        default:
            session.tally.skipped[attributes["type"] ?? name, default: 0] += 1
        }
    }

    /// Converts a finished record and writes it, or counts it as invalid.
    private func finish(_ record: AppleHealthRecord, parser: XMLParser) {
        guard emitFailure == nil else { return }
        let sample: Sample
        do {
            sample = try converter.convert(record)
        } catch {
            session.tally.addInvalid(type: record.type, line: record.line, reason: error.reason)
            return
        }
        do {
            try session.add(sample, type: record.type, line: record.line)
        } catch {
            emitFailure = error
            parser.abortParsing()
        }
    }

    /// Writes the last envelope.
    /// - Throws: whatever the writer throws.
    func flush() throws {
        try session.flush()
    }
}
