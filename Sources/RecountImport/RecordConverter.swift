import Recount

/// Turns raw `AppleHealthRecord`s into validated `Sample`s.
///
/// Holds the per-run caches (normalised origins, time zones) and the zone names it could not
/// resolve. Deterministic: the output depends only on the record and the toolchain's time-zone
/// database.
struct RecordConverter {
    /// Normalised origins by raw `sourceName` (exports use a handful of names).
    private var origins = RecentValues<String>()
    /// Normalised `HKDevice` descriptions by `DeviceName.addressFreeKey` of the raw attribute.
    private var describedDevices = RecentValues<String?>()
    /// Normalised devices that are no `HKDevice` description, by the raw attribute.
    private var otherDevices = RecentValues<String?>()
    /// Units by their symbol as written.
    private var units = RecentValues<UnitName>()
    /// `HKTimeZone` values by their bytes.
    private var zoneNames = RecentValues<String>()
    /// Record ids.
    private var ids = RecordID.AppleHealth()
    /// Time-zone lookups.
    private let zones = TimeZoneCache()
    /// `HKTimeZone` values Foundation does not know; those samples keep the written offset.
    private(set) var unknownTimeZones: Set<String> = []
    /// How samples without `HKTimeZone` get their offset.
    private let policy: LocalTimePolicy
    /// The `HKTimeZone` values of the whole file, when it could be scanned first.
    private let census: ZoneCensus?
    /// The zone for samples without `HKTimeZone`, once decided, and the written offset a sample
    /// must have to be re-zoned (for an inferred zone: the export's offset).
    private var fallback: (zone: String, onlyAtOffset: Int32?)?
    /// Offsets of the fallback zone, cached per transition.
    private let fallbackOffsets = ZoneOffsets()
    /// The fallback zone's offset over the last span of instants looked up, `[from, until)` in
    /// epoch milliseconds: samples come mostly in time order, so most instants fall in it.
    private var fallbackSpan: (from: Int64, until: Int64, offset: Int32) = (0, 0, 0)
    /// How the zone of samples without `HKTimeZone` was decided; `nil` until decided.
    private var decision: Rezoning?
    /// Whether `decision` is made: checked per sample, where testing `decision` itself copied it
    /// (retaining and releasing its strings).
    private var decided = false
    /// The counts of `rezoning`, kept apart from its strings.
    private var counts = (samplesWithoutZone: 0, rezoned: 0, movedDay: 0, keptOtherOffset: 0)

    /// What was done to samples without `HKTimeZone`; `nil` until decided.
    var rezoning: Rezoning? {
        guard var rezoning = decision else { return nil }
        rezoning.samplesWithoutZone = counts.samplesWithoutZone
        rezoning.rezoned = counts.rezoned
        rezoning.movedDay = counts.movedDay
        rezoning.keptOtherOffset = counts.keptOtherOffset
        return rezoning
    }

    /// Creates a converter with empty caches.
    /// - Parameters:
    ///   - policy: how samples without `HKTimeZone` get their offset.
    ///   - census: the file's `HKTimeZone` values, when it was scanned first (needed to infer).
    init(policy: LocalTimePolicy = .asWritten, census: ZoneCensus? = nil) {
        self.policy = policy
        self.census = census
    }

    /// Decides the zone of samples without `HKTimeZone`, given the export's `ExportDate` (called
    /// when it is read, or with `nil` before the first record when there is none). Only the first
    /// call counts.
    mutating func decideZone(exportDate: ExportTimestamp?) {
        guard !decided else { return }
        decided = true
        switch policy {
        case .asWritten:
            decision = Rezoning(how: "none", zone: nil, reason: "--time-zone as-written")
        case .zone(let zone):
            fallback = (zone, nil)
            decision = Rezoning(how: "given", zone: zone, reason: "--time-zone \(zone)")
        case .infer:
            let (zone, reason) = Self.inferZone(census: census, exportDate: exportDate, offsets: fallbackOffsets)
            if let zone, let exportDate { fallback = (zone, exportDate.writtenOffsetSeconds) }
            decision = Rezoning(how: zone == nil ? "none" : "inferred", zone: zone, reason: reason)
        }
    }

    /// The zone the file's `HKTimeZone` values and export offset agree on, or why there is none.
    static func inferZone(
        census: ZoneCensus?, exportDate: ExportTimestamp?, offsets: ZoneOffsets
    ) -> (zone: String?, reason: String) {
        guard let census else { return (nil, "the input is read once (standard input): pass --time-zone") }
        guard !census.isUnscannable else {
            return (
                nil, "the file is not in UTF-8 (UTF-16?), so its HKTimeZone values cannot be read: pass --time-zone"
            )
        }
        let names = census.zones.keys.sorted()
        guard let zone = names.first else { return (nil, "the file has no HKTimeZone") }
        guard names.count == 1 else {
            return (nil, "HKTimeZone names \(names.count) zones (\(names.prefix(5).joined(separator: ", ")))")
        }
        guard let exportDate else { return (nil, "the file has no ExportDate") }
        guard let offset = offsets.offsetSeconds(zone: zone, atMillis: exportDate.epochSeconds * 1000) else {
            return (nil, "HKTimeZone \(zone) is not a known IANA zone")
        }
        let written = RFC3339.format(millis: 0, offsetSeconds: exportDate.writtenOffsetSeconds).dropFirst(19)
        guard offset == exportDate.writtenOffsetSeconds else {
            let actual = RFC3339.format(millis: 0, offsetSeconds: offset).dropFirst(19)
            return (nil, "the export was written at \(written), but \(zone) was at \(actual) then")
        }
        return (zone, "all \(census.zones[zone] ?? 0) HKTimeZone entries name \(zone), on \(written) at export time")
    }

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
    mutating func convert(_ record: AppleHealthRecord) throws(RecordRejection) -> Sample {
        let origin = normalizedOrigin(try Self.require(record.sourceName, "sourceName"), of: record)
        guard !origin.isEmpty else { throw RecordRejection("empty sourceName") }
        let start = try Self.timestamp(record.startDate, "startDate", of: record)
        let end = try Self.timestamp(record.endDate, "endDate", of: record)
        guard end.epochSeconds >= start.epochSeconds else {
            throw RecordRejection("endDate is before startDate")
        }
        var creation: ExportTimestamp?
        if record.creationDate != nil {
            creation = try Self.timestamp(record.creationDate, "creationDate", of: record)
        }

        var value: Double?
        var unit: UnitName?
        var stage: SleepStage?
        var workout: WorkoutDetails?
        switch record.kind {
        case .quantity:
            let writtenValue = record.text(of: try Self.require(record.value, "value"))
            guard let number = DecimalText.double(writtenValue) else {
                throw RecordRejection("non-numeric value \"\(writtenValue)\"")
            }
            let writtenUnit = try Self.require(record.unit, "unit")
            guard !writtenUnit.isEmpty else { throw RecordRejection("empty unit") }
            value = number
            unit = record.withBytes(of: writtenUnit) { bytes in
                units.value(for: bytes) { UnitName(String(decoding: bytes, as: UTF8.self)) }
            }
        case .sleep:
            let writtenValue = record.text(of: try Self.require(record.value, "value"))
            guard let sleepStage = SleepStage(categoryValue: writtenValue) else {
                throw RecordRejection("unknown sleep value \"\(writtenValue)\"")
            }
            stage = sleepStage
        case .workout:
            workout = try Self.workoutDetails(record)
        }

        var syncVersion: Int64?
        if let writtenVersion = record.syncVersion.map({ record.text(of: $0) }) {
            guard let version = Int64(writtenVersion) else {
                throw RecordRejection("non-integer HKMetadataKeySyncVersion \"\(writtenVersion)\"")
            }
            syncVersion = version
        }

        var startOffset = start.writtenOffsetSeconds
        var endOffset = end.writtenOffsetSeconds
        var timeZone: String?
        if record.timeZone?.isEmpty ?? true {
            (startOffset, endOffset) = fallbackOffsets(start: start, end: end)
        } else if let zoneName = record.timeZone.map({ zoneName($0, of: record) }) {
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

        let id = record.withBytes(of: record.value) { writtenValue in
            record.withBytes(of: record.unit) { writtenUnit in
                ids.derive(
                    type: record.type, origin: origin, start: start.epochSeconds, end: end.epochSeconds,
                    value: writtenValue, unit: writtenUnit, creation: creation?.epochSeconds)
            }
        }
        guard let type = record.metric else { throw RecordRejection("unsupported type \(record.type)") }
        return Sample(
            id: id, type: type, start: Instant(millis: start.epochSeconds * 1000, offsetSeconds: startOffset),
            end: Instant(millis: end.epochSeconds * 1000, offsetSeconds: endOffset), timeZone: timeZone, value: value,
            unit: unit, stage: stage, origin: origin,
            device: record.device.flatMap { normalizedDevice($0, of: record) },
            syncIdentifier: record.syncIdentifier.map { record.text(of: $0) }, syncVersion: syncVersion,
            workout: workout)
    }

    /// A workout's activity (the HealthKit name as written when ingest knows it, else `other`)
    /// and totals (units as written, ingest checks them; several distance sums added in metres).
    private static func workoutDetails(_ record: AppleHealthRecord) throws(RecordRejection) -> WorkoutDetails? {
        func total(_ written: (value: Range<Int>, unit: Range<Int>), _ name: String) throws(RecordRejection)
            -> WorkoutTotal
        {
            let value = record.text(of: written.value)
            guard let number = DecimalText.double(value) else {
                throw RecordRejection("non-numeric \(name) \"\(value)\"")
            }
            return WorkoutTotal(value: number, unit: UnitName(record.text(of: written.unit)))
        }
        var distance = try record.totalDistance.map { written throws(RecordRejection) in
            try total(written, "totalDistance")
        }
        if distance == nil {
            let sums = try record.distanceStatistics.map { (type, value, unit) throws(RecordRejection) in
                try total((value, unit), "\(type) sum")
            }
            distance = sums.count > 1 ? try metres(sums, of: record) : sums.first
        }
        return WorkoutDetails.make(
            activity: record.activityType.map {
                ActivityName(record.text(of: $0)) ?? ActivityName(activity: .other, name: "other")
            },
            distance: distance,
            energy: try record.totalEnergy.map { written throws(RecordRejection) in
                try total(written, "totalEnergyBurned")
            })
    }

    /// The sum in metres of a multisport workout's distances (its swim, ride and run), each in a
    /// distance unit.
    private static func metres(_ sums: [WorkoutTotal], of record: AppleHealthRecord) throws(RecordRejection)
        -> WorkoutTotal
    {
        var metres = 0.0
        for (sum, statistics) in zip(sums, record.distanceStatistics) {
            guard let unit = sum.unit?.unit, unit.isAccepted(for: .distance) else {
                throw RecordRejection(
                    "\(statistics.type) sum in \"\(record.text(of: statistics.unit))\", not a unit of distance")
            }
            metres += unit.toCanonical(sum.value)
        }
        return WorkoutTotal(value: metres)
    }

    /// The offsets of a sample without `HKTimeZone`: the fallback zone's at its instants, or the
    /// written ones; counted in `rezoning`.
    private mutating func fallbackOffsets(start: ExportTimestamp, end: ExportTimestamp) -> (Int32, Int32) {
        if !decided { decideZone(exportDate: nil) }
        counts.samplesWithoutZone += 1
        let written = (start.writtenOffsetSeconds, end.writtenOffsetSeconds)
        guard let onlyAtOffset = fallback.map({ $0.onlyAtOffset }) else { return written }
        if let only = onlyAtOffset, written != (only, only) {
            counts.keptOtherOffset += 1
            return written
        }
        guard let startOffset = fallbackOffset(atMillis: start.epochSeconds * 1000),
            let endOffset = fallbackOffset(atMillis: end.epochSeconds * 1000),
            startOffset % 60 == 0, endOffset % 60 == 0
        else { return written }
        if (startOffset, endOffset) != written {
            counts.rezoned += 1
            if Self.floorDay(start.epochSeconds + Int64(startOffset))
                != Self.floorDay(start.epochSeconds + Int64(written.0))
            {
                counts.movedDay += 1
            }
        }
        return (startOffset, endOffset)
    }

    /// The fallback zone's offset at an instant (there is a fallback zone): from the last span
    /// looked up when the instant is in it, else from `fallbackOffsets`.
    private mutating func fallbackOffset(atMillis millis: Int64) -> Int32? {
        if fallbackSpan.from <= millis, millis < fallbackSpan.until { return fallbackSpan.offset }
        guard let fallback,
            let (offset, until) = fallbackOffsets.offsetInterval(zone: fallback.zone, atMillis: millis)
        else { return nil }
        // The offset holds from the instant asked (or earlier) until the next transition.
        fallbackSpan = (millis, until, offset)
        return offset
    }

    /// The day number of a local time in seconds.
    private static func floorDay(_ seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    /// The normalised origin of a record's raw source name, cached.
    private mutating func normalizedOrigin(_ raw: Range<Int>, of record: AppleHealthRecord) -> String {
        record.withBytes(of: raw) { bytes in
            origins.value(for: bytes) { SourceName.normalize(String(decoding: bytes, as: UTF8.self)) }
        }
    }

    /// The normalised device of a record's raw `device` attribute, cached per device (not per
    /// address).
    private mutating func normalizedDevice(_ raw: Range<Int>, of record: AppleHealthRecord) -> String? {
        record.withBytes(of: raw) { bytes in
            // A local function, not a closure value: that would be allocated per record.
            func normalize() -> String? { DeviceName.normalize(String(decoding: bytes, as: UTF8.self)) }
            guard let key = DeviceName.addressFreeKey(bytes) else { return otherDevices.value(for: bytes, normalize) }
            return describedDevices.value(for: key, normalize)
        }
    }

    /// The `HKTimeZone` value of a record, cached.
    private mutating func zoneName(_ raw: Range<Int>, of record: AppleHealthRecord) -> String {
        record.withBytes(of: raw) { bytes in
            zoneNames.value(for: bytes) { String(decoding: bytes, as: UTF8.self) }
        }
    }

    /// The attribute, or a rejection naming it.
    private static func require<Attribute>(_ attribute: Attribute?, _ name: String) throws(RecordRejection)
        -> Attribute
    {
        guard let attribute else { throw RecordRejection("missing attribute \(name)") }
        return attribute
    }

    /// The parsed timestamp attribute, or a rejection naming it.
    private static func timestamp(
        _ attribute: AppleHealthRecord.Timestamp?, _ name: String, of record: AppleHealthRecord
    ) throws(RecordRejection) -> ExportTimestamp {
        switch attribute {
        case .valid(let timestamp): return timestamp
        case .invalid(let text): throw RecordRejection("bad \(name) \"\(record.text(of: text))\"")
        case nil: throw RecordRejection("missing attribute \(name)")
        }
    }
}
