import Recount

/// What an import did: per-type counts, invalid records, envelopes written.
///
/// Types are the export's own names: HealthKit identifiers for Apple Health, Fitbit file kinds
/// (`steps`, `sleep`, ...) and Google Fit data types or streams for the Takeout importers.
///
/// Every list is sorted (types by name, examples in document order), so printing a report is
/// deterministic.
package struct ImportReport: Sendable, Equatable {
    /// A count for one HealthKit type (or element name, for elements without a `type`).
    package struct TypeCount: Sendable, Equatable {
        /// HealthKit type identifier, `HKWorkoutTypeIdentifier`, or an element name such as
        /// `ActivitySummary`.
        package var type: String
        /// How many.
        package var count: Int

        /// Creates a count.
        package init(type: String, count: Int) {
            self.type = type
            self.count = count
        }
    }

    /// One invalid record, for the first few the report keeps.
    package struct InvalidRecord: Sendable, Equatable {
        /// The file inside a multi-file export (Takeout), `nil` for an `export.xml`.
        package var file: String?
        /// Line of the element, as reported by the XML parser; for a Takeout JSON file, the
        /// record's 1-based index in its array.
        package var line: Int
        /// The record's type.
        package var type: String
        /// Why it was skipped.
        package var reason: String

        /// Creates an example.
        package init(file: String? = nil, line: Int, type: String, reason: String) {
            self.file = file
            self.line = line
            self.type = type
            self.reason = reason
        }
    }

    /// How many invalid records the report describes in `invalidExamples`.
    package static let invalidExampleLimit = 10

    /// The export's `ExportDate` as RFC 3339 (at its written offset): the envelopes'
    /// `receivedAt`. `nil` when the file has none (then envelopes carry no `receivedAt`).
    package var exportDate: String?
    /// Samples imported, per supported type.
    package var imported: [TypeCount] = []
    /// Top-level elements of unsupported types, per type (records, correlations, activity
    /// summaries, ...).
    package var skipped: [TypeCount] = []
    /// Records of supported types skipped, per type: malformed, or refused by ingest's
    /// `EnvelopeDecoder` (a unit ingest does not know, a negative step count); each is left out
    /// of its envelope alone, so its neighbours are still imported.
    package var invalid: [TypeCount] = []
    /// The first `invalidExampleLimit` invalid records (by line) with their reasons.
    package var invalidExamples: [InvalidRecord] = []
    /// Top-level sample elements seen (everything under the root except `ExportDate` and `Me`).
    package var recordsSeen = 0
    /// `<Record>`s nested in a `<Correlation>`: the same samples appear at top level, so they are
    /// not imported again.
    package var correlationChildrenIgnored = 0
    /// Records whose id repeated one already in the same envelope (an exact duplicate in the
    /// export); the first is kept.
    package var duplicatesDropped = 0
    /// `HKTimeZone` values the toolchain's time-zone database cannot resolve (unknown names, or an
    /// offset that is not whole minutes); their samples keep the written offset and carry no
    /// `timeZone`. Sorted.
    package var unknownTimeZones: [String] = []
    /// Decisions an importer took about the export as a whole (the time zone used, a unit it
    /// inferred, a stream it chose over others), in the order taken.
    package var notes: [String] = []
    /// Apple Health only: what was done to the offsets of samples without `HKTimeZone` (`nil`
    /// when no record was converted, and for the other importers).
    package var rezoning: Rezoning?
    /// Samples written into envelopes.
    package var samplesWritten = 0
    /// `samples.upsert` envelopes written.
    package var envelopesWritten = 0

    /// Creates an empty report.
    package init() {}

    /// Total samples imported (before in-envelope duplicates are dropped).
    package var importedTotal: Int { imported.reduce(0) { $0 + $1.count } }
    /// Total elements skipped as unsupported.
    package var skippedTotal: Int { skipped.reduce(0) { $0 + $1.count } }
    /// Total records skipped as invalid.
    package var invalidTotal: Int { invalid.reduce(0) { $0 + $1.count } }

    /// Imported count of one type (0 when none).
    /// - Parameter type: HealthKit type identifier.
    package func importedCount(_ type: String) -> Int {
        imported.first { $0.type == type }?.count ?? 0
    }

    /// Skipped count of one type (0 when none).
    /// - Parameter type: HealthKit type identifier or element name.
    package func skippedCount(_ type: String) -> Int {
        skipped.first { $0.type == type }?.count ?? 0
    }

    /// Invalid count of one type (0 when none).
    /// - Parameter type: HealthKit type identifier.
    package func invalidCount(_ type: String) -> Int {
        invalid.first { $0.type == type }?.count ?? 0
    }

    /// A human-readable multi-line summary (no trailing newline), for a terminal or stderr.
    package var summary: String {
        var lines: [String] = []
        lines.append(
            "records seen \(recordsSeen) (skipped \(skippedTotal), invalid \(invalidTotal)); samples imported "
                + "\(importedTotal) (a record may give several); \(samplesWritten.counted("sample")) in \(envelopesWritten.counted("envelope"))"
        )
        if let exportDate { lines.append("export date \(exportDate)") }
        for entry in imported { lines.append("  imported \(entry.count) \(entry.type)") }
        for entry in skipped { lines.append("  skipped  \(entry.count) \(entry.type)") }
        for entry in invalid { lines.append("  invalid  \(entry.count) \(entry.type)") }
        for example in invalidExamples {
            let place = example.file.map { "\($0) record \(example.line)" } ?? "line \(example.line)"
            lines.append("  \(place): \(example.type): \(example.reason)")
        }
        if invalidTotal > invalidExamples.count {
            lines.append("  (the first \(invalidExamples.count) of \(invalidTotal) invalid records shown)")
        }
        for note in notes { lines.append("  note: \(note)") }
        if correlationChildrenIgnored > 0 {
            lines.append("  \(correlationChildrenIgnored) correlation children not imported twice")
        }
        if duplicatesDropped > 0 {
            lines.append("  \(duplicatesDropped) exact duplicates dropped")
        }
        if !unknownTimeZones.isEmpty {
            lines.append("  unknown HKTimeZone: \(unknownTimeZones.joined(separator: ", "))")
        }
        if let rezoning {
            if let zone = rezoning.zone {
                var line =
                    "  local time: \(rezoning.rezoned) of \(rezoning.samplesWithoutZone) samples without HKTimeZone "
                    + "re-zoned to \(zone) (\(rezoning.how): \(rezoning.reason)); \(rezoning.movedDay) moved to another day"
                if rezoning.keptOtherOffset > 0 {
                    line += "; \(rezoning.keptOtherOffset) kept, written at another offset than the export's"
                }
                lines.append(line)
            } else if rezoning.samplesWithoutZone > 0 {
                lines.append(
                    "  local time: \(rezoning.samplesWithoutZone) samples without HKTimeZone keep the written offset "
                        + "(\(rezoning.reason))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON object (fixed field order, no trailing newline), for `--json`:
    /// `event` `import` first, as every JSON line on standard error names its event.
    package var jsonLine: String {
        var output = "{\"event\":\"import\",\"exportDate\":"
        if let exportDate {
            output += EnvelopeJSON.quote(exportDate)
        } else {
            output.append("null")
        }
        func appendCounts(_ name: String, _ counts: [TypeCount]) {
            output.append(",\"\(name)\":{")
            for (index, entry) in counts.enumerated() {
                if index > 0 { output.append(",") }
                output += EnvelopeJSON.quote(entry.type)
                output.append(":\(entry.count)")
            }
            output.append("}")
        }
        appendCounts("imported", imported)
        appendCounts("skipped", skipped)
        appendCounts("invalid", invalid)
        output.append(",\"invalidExamples\":[")
        for (index, example) in invalidExamples.enumerated() {
            if index > 0 { output.append(",") }
            output.append("{")
            if let file = example.file {
                output.append("\"file\":")
                output += EnvelopeJSON.quote(file)
                output.append(",")
            }
            output.append("\"line\":\(example.line),\"type\":")
            output += EnvelopeJSON.quote(example.type)
            output.append(",\"reason\":")
            output += EnvelopeJSON.quote(example.reason)
            output.append("}")
        }
        output.append("],\"recordsSeen\":\(recordsSeen)")
        output.append(",\"correlationChildrenIgnored\":\(correlationChildrenIgnored)")
        output.append(",\"duplicatesDropped\":\(duplicatesDropped)")
        output.append(",\"unknownTimeZones\":[")
        for (index, zone) in unknownTimeZones.enumerated() {
            if index > 0 { output.append(",") }
            output += EnvelopeJSON.quote(zone)
        }
        output.append("]")
        if !notes.isEmpty {
            output.append(",\"notes\":[")
            output += notes.map(EnvelopeJSON.quote).joined(separator: ",")
            output.append("]")
        }
        if let rezoning {
            output.append(",\"localTime\":{\"how\":")
            output += EnvelopeJSON.quote(rezoning.how)
            output.append(",\"zone\":")
            if let zone = rezoning.zone { output += EnvelopeJSON.quote(zone) } else { output.append("null") }
            output.append(",\"reason\":")
            output += EnvelopeJSON.quote(rezoning.reason)
            output.append(
                ",\"samplesWithoutZone\":\(rezoning.samplesWithoutZone),\"rezoned\":\(rezoning.rezoned)"
                    + ",\"movedDay\":\(rezoning.movedDay),\"keptOtherOffset\":\(rezoning.keptOtherOffset)}")
        }
        output.append(",\"samplesWritten\":\(samplesWritten)")
        output.append(",\"envelopesWritten\":\(envelopesWritten)}")
        return output
    }
}
