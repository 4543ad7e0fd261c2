/// Running counts of an import, turned into a sorted `ImportReport` at the end.
struct ImportTally {
    /// Imported samples per type.
    var imported: [String: Int] = [:]
    /// Skipped elements per type.
    var skipped: [String: Int] = [:]
    /// Invalid records per type.
    var invalid: [String: Int] = [:]
    /// First invalid records, in document order.
    var invalidExamples: [ImportReport.InvalidRecord] = []
    /// Top-level sample elements seen.
    var recordsSeen = 0
    /// Correlation children not imported.
    var correlationChildrenIgnored = 0
    /// `ExportDate` as RFC 3339.
    var exportDate: String?
    /// Decisions about the whole export, for `ImportReport.notes`.
    var notes: [String] = []

    /// Counts an invalid record, keeping the reasons of the first few by file and line, in that
    /// order whatever order they are counted in.
    /// - Parameters:
    ///   - type: the record's type.
    ///   - file: its file in a multi-file export (files are read in path order).
    ///   - line: its line, or its index in `file`.
    ///   - reason: why it was skipped.
    mutating func addInvalid(type: String, file: String? = nil, line: Int, reason: String) {
        invalid[type, default: 0] += 1
        let index =
            invalidExamples.lastIndex { ($0.file ?? "", $0.line) <= (file ?? "", line) }.map { $0 + 1 } ?? 0
        guard index < ImportReport.invalidExampleLimit else { return }
        invalidExamples.insert(.init(file: file, line: line, type: type, reason: reason), at: index)
        if invalidExamples.count > ImportReport.invalidExampleLimit { invalidExamples.removeLast() }
    }

    /// The report, every dictionary sorted by type name.
    /// - Parameters:
    ///   - unknownTimeZones: zone names that could not be resolved.
    ///   - rezoning: what was done to samples without `HKTimeZone` (Apple Health only).
    ///   - writer: the envelope writer, for its counts.
    func report(unknownTimeZones: Set<String>, rezoning: Rezoning?, writer: EnvelopeWriter) -> ImportReport {
        func sorted(_ counts: [String: Int]) -> [ImportReport.TypeCount] {
            counts.map { ImportReport.TypeCount(type: $0.key, count: $0.value) }
                .sorted { $0.type < $1.type }
        }
        var report = ImportReport()
        report.exportDate = exportDate
        report.imported = sorted(imported)
        report.skipped = sorted(skipped)
        report.invalid = sorted(invalid)
        report.invalidExamples = invalidExamples
        report.recordsSeen = recordsSeen
        report.notes = notes
        report.correlationChildrenIgnored = correlationChildrenIgnored
        report.duplicatesDropped = writer.duplicatesDropped
        report.unknownTimeZones = unknownTimeZones.sorted()
        report.rezoning = rezoning
        report.samplesWritten = writer.samplesWritten
        report.envelopesWritten = writer.envelopesWritten
        return report
    }
}
