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

    /// Counts a skipped element of an unsupported type.
    /// - Parameter type: its `type` attribute, or its element name when it has none.
    mutating func skip(_ type: String) {
        skipped[type, default: 0] += 1
    }

    /// Counts a skipped element of an unsupported type, given the `type` attribute's bytes.
    mutating func skip(_ type: UnsafeBufferPointer<UInt8>) {
        skip(String(decoding: type, as: UTF8.self))
    }

    /// Counts an invalid record, keeping the reasons of the first few by line (records the
    /// decoder refuses are counted when their envelope is written, after later lines).
    /// - Parameters:
    ///   - type: the record's type.
    ///   - line: its line.
    ///   - reason: why it was skipped.
    mutating func addInvalid(type: String, line: Int, reason: String) {
        invalid[type, default: 0] += 1
        let index = invalidExamples.lastIndex { $0.line <= line }.map { $0 + 1 } ?? 0
        guard index < ImportReport.invalidExampleLimit else { return }
        invalidExamples.insert(.init(line: line, type: type, reason: reason), at: index)
        if invalidExamples.count > ImportReport.invalidExampleLimit { invalidExamples.removeLast() }
    }

    /// The report, every dictionary sorted by type name.
    /// - Parameters:
    ///   - unknownTimeZones: zone names that could not be resolved.
    ///   - rezoning: what was done to samples without `HKTimeZone`.
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
        report.correlationChildrenIgnored = correlationChildrenIgnored
        report.duplicatesDropped = writer.duplicatesDropped
        report.unknownTimeZones = unknownTimeZones.sorted()
        report.rezoning = rezoning
        report.samplesWritten = writer.samplesWritten
        report.envelopesWritten = writer.envelopesWritten
        return report
    }
}
