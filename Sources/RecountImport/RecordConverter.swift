import Recount

/// Turns raw `AppleHealthRecord`s into validated `Sample`s.
///
/// Holds the per-run caches (normalised origins, time zones) and the zone names it could not
/// resolve. Deterministic: the output depends only on the record and the toolchain's time-zone
/// database.
final class RecordConverter {
    /// Normalised origins by raw `sourceName` (exports use a handful of names).
    private var origins: [String: String] = [:]
    /// Normalised devices by `DeviceName.addressFreeKey` of the raw attribute.
    private var devices: [Substring: String?] = [:]
    /// Time-zone lookups.
    private let zones = TimeZoneCache()
    /// `HKTimeZone` values Foundation does not know; those samples keep the written offset.
    private(set) var unknownTimeZones: Set<String> = []

    /// Creates a converter with empty caches.
    init() {}

    /// Validates a record and builds its sample.
    ///
    /// Times: both instants come from the written timestamps. With `HKTimeZone` metadata naming a
    /// known zone, each is shown at that zone's offset at that instant (the written offset is the
    /// phone's offset at export time, wrong for samples recorded in another season or place) and
    /// `timeZone` is set; otherwise the written offset is kept, the best information the export
    /// has.
    /// - Parameter record: the record as captured.
    /// - Returns: the sample.
    /// - Throws: `RecordRejection` for a missing attribute, a malformed date, an end before the
    ///   start, a non-numeric or non-finite value, an empty unit or source name, an unknown sleep
    ///   value or a non-integer sync version.
    func convert(_ record: AppleHealthRecord) throws(RecordRejection) -> Sample {
        let rawSource = try Self.require(record.sourceName, "sourceName")
        let origin = normalizedOrigin(rawSource)
        guard !origin.isEmpty else { throw RecordRejection("empty sourceName") }
        let start = try Self.timestamp(record.startDate, "startDate")
        let end = try Self.timestamp(record.endDate, "endDate")
        guard end.epochSeconds >= start.epochSeconds else {
            throw RecordRejection("endDate is before startDate")
        }
        var creation: ExportTimestamp?
        if record.creationDate != nil {
            creation = try Self.timestamp(record.creationDate, "creationDate")
        }

        var value: Double?
        var unit: UnitName?
        var stage: SleepStage?
        switch record.kind {
        case .quantity:
            let writtenValue = try Self.require(record.value, "value")
            guard let number = Double(writtenValue), number.isFinite else {
                throw RecordRejection("non-numeric value \"\(writtenValue)\"")
            }
            let writtenUnit = try Self.require(record.unit, "unit")
            guard !writtenUnit.isEmpty else { throw RecordRejection("empty unit") }
            value = number
            unit = UnitName(writtenUnit)
        case .sleep:
            let writtenValue = try Self.require(record.value, "value")
            guard let sleepStage = SleepStage(categoryValue: writtenValue) else {
                throw RecordRejection("unknown sleep value \"\(writtenValue)\"")
            }
            stage = sleepStage
        case .workout:
            break
        }

        var syncVersion: Int64?
        if let writtenVersion = record.syncVersion {
            guard let version = Int64(writtenVersion) else {
                throw RecordRejection("non-integer HKMetadataKeySyncVersion \"\(writtenVersion)\"")
            }
            syncVersion = version
        }

        var startOffset = start.writtenOffsetSeconds
        var endOffset = end.writtenOffsetSeconds
        var timeZone: String?
        if let zoneName = record.timeZone, !zoneName.isEmpty {
            if let zoneStart = zones.offset(zoneName: zoneName, at: start.epochSeconds),
                let zoneEnd = zones.offset(zoneName: zoneName, at: end.epochSeconds)
            {
                startOffset = zoneStart
                endOffset = zoneEnd
                timeZone = zoneName
            } else {
                unknownTimeZones.insert(zoneName)
            }
        }

        let id = RecordID.derive(
            type: record.type, origin: origin, start: start.epochSeconds, end: end.epochSeconds,
            value: record.value ?? "", unit: record.unit ?? "", creation: creation?.epochSeconds)
        guard let type = MetricName(record.type) else { throw RecordRejection("unsupported type \(record.type)") }
        return Sample(
            id: id, type: type, start: Instant(millis: start.epochSeconds * 1000, offsetSeconds: startOffset),
            end: Instant(millis: end.epochSeconds * 1000, offsetSeconds: endOffset), timeZone: timeZone, value: value,
            unit: unit, stage: stage, origin: origin, device: record.device.flatMap(normalizedDevice),
            syncIdentifier: record.syncIdentifier, syncVersion: syncVersion)
    }

    /// The normalised origin of a raw source name, cached.
    private func normalizedOrigin(_ raw: String) -> String {
        if let cached = origins[raw] { return cached }
        let normalized = SourceName.normalize(raw)
        origins[raw] = normalized
        return normalized
    }

    /// The normalised device of a raw `device` attribute, cached per device (not per address).
    private func normalizedDevice(_ raw: String) -> String? {
        let key = DeviceName.addressFreeKey(raw)
        if let cached = devices[key] { return cached }
        let normalized = DeviceName.normalize(raw)
        devices[key] = .some(normalized)
        return normalized
    }

    /// The attribute, or a rejection naming it.
    private static func require(_ attribute: String?, _ name: String) throws(RecordRejection)
        -> String
    {
        guard let attribute else { throw RecordRejection("missing attribute \(name)") }
        return attribute
    }

    /// The parsed timestamp attribute, or a rejection naming it.
    private static func timestamp(_ attribute: AppleHealthRecord.Timestamp?, _ name: String)
        throws(RecordRejection) -> ExportTimestamp
    {
        switch attribute {
        case .valid(let timestamp): return timestamp
        case .invalid(let text): throw RecordRejection("bad \(name) \"\(text)\"")
        case nil: throw RecordRejection("missing attribute \(name)")
        }
    }
}
