/// The samples of an envelope: the arrays the scan lifted, or those it left to be read as a
/// tree, through one validation of each sample (contract §1 "Samples").
extension EnvelopeDecoder {
    /// The samples of root member `field` (read from `scan` when it lifted them), each of a
    /// metric `allowed` accepts, with no id twice (`seen` is emptied and holds their ids).
    func samples(
        _ root: RootInput, _ field: RootFields.Field, scan: EnvelopeScan, repeats: inout SampleRepeats,
        seen: inout IdSet, allowed: (Metric) -> Bool, mismatch: @autoclosure () -> String
    ) throws(FieldError) -> [Sample] {
        var samples: [Sample] = []
        let key = root.path(field)
        let lifted = scan.samples(field)
        seen.removeAll()
        func check(_ sample: borrowing Sample, at path: ElementPath) throws(FieldError) {
            guard allowed(sample.type.metric) else {
                throw FieldError(.typeMismatch, path: path.field("type"), reason: mismatch())
            }
            guard seen.insert(sample.id) else {
                throw FieldError(.duplicateId, path: path.field("id"), reason: "repeats an id earlier in this envelope")
            }
        }
        if let lifted {
            try root.checkCount(field, lifted.count)
            samples.reserveCapacity(lifted.count)
            try lifted.withUnsafeBufferPointer { lifted throws(FieldError) in
                for index in lifted.indices {
                    let path = ElementPath(array: key, index: index)
                    let sample = try sample(
                        SampleInput(fields: lifted.baseAddress! + index, bytes: scan.bytes, element: path),
                        repeats: &repeats)
                    try check(sample, at: path)
                    samples.append(sample)
                }
            }
        } else {
            for (index, value) in try root.array(field).enumerated() {
                let path = ElementPath(array: key, index: index)
                let sample = try sample(value, at: path, repeats: &repeats)
                try check(sample, at: path)
                samples.append(sample)
            }
        }
        return samples
    }

    /// One sample object of a parsed tree, read through the same fields the scan produces.
    func sample(_ value: JSONValue, at path: ElementPath, repeats: inout SampleRepeats) throws(FieldError)
        -> Sample
    {
        guard case .object = value else { throw FieldError(.wrongType, path: path.text, reason: "must be an object") }
        var text: [UInt8] = []
        JSONWriter.write(value, into: &text)
        let result = text.withUnsafeBytes { bytes -> Result<Sample, FieldError> in
            var reader = JSONReader(base: bytes.baseAddress!, count: bytes.count, maxDepth: EnvelopeLimits.depth)
            // The tree was valid JSON without a repeated key, so its text reads back.
            var order = MemberOrder<SampleFields.Field>()
            var fields = SampleFields()
            guard (try? SampleFields.read(&reader, openLevels: 0, order: &order, into: &fields)) == true else {
                return .failure(FieldError(.invalidJSON, path: path.text, reason: "could not be read back"))
            }
            return Result { () throws(FieldError) in
                try withUnsafePointer(to: fields) { fields throws(FieldError) in
                    try sample(SampleInput(fields: fields, bytes: bytes, element: path), repeats: &repeats)
                }
            }
        }
        return try result.get()
    }

    /// The instants a sample may start and end at: a day from each end of the years 0001–9999,
    /// so that every civil day it counts towards (in any zone, sleep's six hours included) has a
    /// `YYYY-MM-DD` name a query can ask for.
    static let nameableMillis: ClosedRange<Int64> = -62_135_510_400_000...253_402_128_000_000

    /// Throws `outOfRange` for a sample instant outside `nameableMillis` (`beyond`: what it
    /// holds beyond its millisecond, which puts the last millisecond's instants past the end).
    static func checkDaysNameable(
        _ instant: Instant, beyond: @autoclosure () -> Int64 = 0, path: @autoclosure () -> String
    )
        throws(FieldError)
    {
        guard nameableMillis.contains(instant.millis) && (instant.millis < nameableMillis.upperBound || beyond() == 0)
        else {
            throw FieldError(
                .outOfRange, path: path(), reason: "is out of range (samples lie between 0001-01-02 and 9999-12-30 UTC)"
            )
        }
    }

    /// One sample (contract §1 "Samples"): every rule a sample must meet, read from a sample
    /// object's JSON (returning the `Sample`) or from a `Sample` built outside ingest (returning
    /// nothing: it is checked in place).
    func sample<Input: SampleSource & ~Copyable>(_ input: borrowing Input, repeats: inout SampleRepeats)
        throws(FieldError) -> Input.Checked
    {
        if let key = input.unknownKey {
            throw FieldError.unknown(at: input.element.field(key))
        }
        let id = try input.id(try input.required(.id))
        let type = try input.repeated(try input.required(.type), &repeats.type) { value throws(FieldError) in
            try metricName(value, path: input.path(.type))
        }
        let startSpan = try input.required(.start)
        let start = try input.instant(startSpan, .start)
        try Self.checkDaysNameable(start, beyond: input.fractionBeyondMillis(startSpan), path: input.path(.start))
        var end: Instant? = nil
        if let span = try input.optional(.end) {
            let instant = try input.instant(span, .end)
            try Self.checkDaysNameable(instant, beyond: input.fractionBeyondMillis(span), path: input.path(.end))
            // Within one millisecond, the digits beyond it decide (`…00.0009Z` to `…00.0001Z`).
            let millis = instant.millis - start.millis
            let beyond =
                millis == 0 || millis == DayAttribution.maximumSpanMillis
                ? input.fractionBeyondMillis(span) - input.fractionBeyondMillis(startSpan) : 0
            guard millis > 0 || (millis == 0 && beyond >= 0) else {
                throw FieldError(.endBeforeStart, path: input.path(.end), reason: "is before start")
            }
            guard
                millis < DayAttribution.maximumSpanMillis
                    || (millis == DayAttribution.maximumSpanMillis && beyond <= 0)
            else {
                throw FieldError(.spanTooLong, path: input.path(.end), reason: "is more than 366 days after start")
            }
            end = instant
        }
        var timeZone: String? = nil
        if let span = try input.optional(.timeZone) {
            timeZone = try input.repeated(span, &repeats.timeZone) { value throws(FieldError) in
                let name = try StringRule.timeZone.check(value, path: input.path(.timeZone))
                guard zones.isKnown(zone: name) else {
                    throw FieldError(
                        .unknownTimeZone, path: input.path(.timeZone), reason: "is not a known IANA time zone (\(name))"
                    )
                }
                return name
            }
        }
        var value: Double? = nil
        var unitName: UnitName? = nil
        var stage: SleepStage? = nil
        let metric = type.metric
        var workout: WorkoutDetails? = nil
        if metric.kind != .workout {
            for field in [SampleFields.Field.activity, .distance, .energy] where input.has(field) {
                throw FieldError(.fieldNotUsed, path: input.path(field), reason: "is only for workout samples")
            }
        }
        switch metric.kind {
        case .quantity:
            guard let number = input.number(try input.required(.value)) else {
                throw FieldError(.wrongType, path: input.path(.value), reason: "must be a number")
            }
            let unit = try input.repeated(try input.required(.unit), &repeats.unit) { value throws(FieldError) in
                UnitName(try StringRule.text.check(value, path: input.path(.unit)))
            }
            try Self.checkQuantity(number, unit, of: metric, value: input.path(.value), unit: input.path(.unit))
            if input.has(.stage) {
                throw FieldError(.fieldNotUsed, path: input.path(.stage), reason: "is only for sleep samples")
            }
            value = Self.signedZeroDropped(number)
            unitName = unit
        case .sleep:
            for field in [SampleFields.Field.value, .unit] where input.has(field) {
                throw FieldError(.fieldNotUsed, path: input.path(field), reason: "is not used by sleep samples")
            }
            guard case .string(let name) = input.value(try input.required(.stage)), let named = SleepStage(name: name)
            else {
                throw FieldError(
                    .unknownStage, path: input.path(.stage),
                    reason: "must be one of \(SleepStage.allCases.map(\.name).joined(separator: ", "))")
            }
            stage = named
        case .workout:
            for field in [SampleFields.Field.value, .unit, .stage] where input.has(field) {
                throw FieldError(.fieldNotUsed, path: input.path(field), reason: "is not used by workout samples")
            }
            workout = try workoutDetails(input)
        }
        let origin = try input.repeated(try input.required(.origin), &repeats.origin) { value throws(FieldError) in
            try StringRule.text.check(value, path: input.path(.origin))
        }
        var device: String? = nil
        if let span = try input.optional(.device) {
            device = try input.repeated(span, &repeats.device) { value throws(FieldError) in
                try StringRule.device.check(value, path: input.path(.device))
            }
        }
        var syncIdentifier: String? = nil
        if let span = try input.optional(.syncIdentifier) {
            syncIdentifier = try input.string(span, .syncIdentifier, .text)
        }
        var syncVersion: Int64? = nil
        if let span = try input.optional(.syncVersion) {
            syncVersion = try ObjectReader.integer(
                input.value(span), in: 0...Int64.max, path: input.path(.syncVersion))
        }
        var lastModified: Instant? = nil
        if let span = try input.optional(.lastModified) {
            lastModified = try input.instant(span, .lastModified)
        }
        return input.checked {
            Sample(
                id: id, type: type, start: start, end: end, timeZone: timeZone, value: value, unit: unitName,
                stage: stage, origin: origin, device: device, syncIdentifier: syncIdentifier, syncVersion: syncVersion,
                lastModified: lastModified, workout: workout)
        }
    }

    /// Checks a quantity against its metric: a finite number, a unit of the metric, at least the
    /// metric's least value, finite once converted (contract §1 `value`, `unit`).
    /// - Parameters:
    ///   - value: the field path of the number, for errors.
    ///   - unit: the field path of the unit, for errors.
    static func checkQuantity(
        _ number: Double, _ unitName: UnitName, of metric: Metric, value: @autoclosure () -> String,
        unit: @autoclosure () -> String
    ) throws(FieldError) {
        guard number.isFinite else {
            throw FieldError(.outOfRange, path: value(), reason: "is out of range (not a finite number)")
        }
        guard let measure = unitName.unit, measure.isAccepted(for: metric) else {
            let accepted = MeasureUnit.accepted(for: metric).map(\.symbol).joined(separator: ", ")
            throw FieldError(
                .unknownUnit, path: unit(),
                reason: "is not a unit of \(metric.name) (\(unitName.symbol)); accepted: \(accepted)")
        }
        if metric.isCumulative ? number < 0 : !(number > 0) {
            throw FieldError(
                .belowMinimum, path: value(),
                reason: metric.isCumulative
                    ? "must not be negative for \(metric.name)" : "must be greater than 0 for \(metric.name)")
        }
        let canonical = measure.toCanonical(number)
        guard canonical.isFinite else {
            throw FieldError(
                .outOfRange, path: value(), reason: "is out of range once converted to \(metric.canonicalUnit)")
        }
        // A value above 0 so small that it is 0 in the canonical unit (5e-324 g in kg).
        guard metric.isCumulative || canonical > 0 else {
            throw FieldError(
                .outOfRange, path: value(),
                reason: "is out of range once converted to \(metric.canonicalUnit) (it becomes 0)")
        }
    }

    /// A workout's `activity`, `distance` and `energy` (contract §1 "Samples"); `nil` when it has none.
    private func workoutDetails<Input: SampleSource & ~Copyable>(_ input: borrowing Input) throws(FieldError)
        -> WorkoutDetails?
    {
        var activity: ActivityName? = nil
        if let span = try input.optional(.activity) {
            guard case .string(let name) = input.value(span) else {
                throw FieldError(.wrongType, path: input.path(.activity), reason: "must be a string")
            }
            guard let named = ActivityName(name) else {
                let names = WorkoutActivity.allCases.map(\.name).joined(separator: ", ")
                throw FieldError(
                    .unknownActivity, path: input.path(.activity),
                    reason: "is not a known activity (\(name)); use one of \(names), "
                        + "or an HKWorkoutActivityType… or EXERCISE_TYPE_… name")
            }
            activity = named
        }
        return WorkoutDetails.make(
            activity: activity, distance: try workoutTotal(input, .distance, as: .distance),
            energy: try workoutTotal(input, .energy, as: .activeEnergy))
    }

    /// A workout total: a bare number in `metric`'s canonical unit, or `{"value", "unit"}` with a
    /// unit of `metric`, checked like a sample of `metric`.
    private func workoutTotal<Input: SampleSource & ~Copyable>(
        _ input: borrowing Input, _ field: SampleFields.Field, as metric: Metric
    ) throws(FieldError) -> WorkoutTotal? {
        guard let span = try input.optional(field) else { return nil }
        let path = input.path(field)
        let value = input.value(span)
        if case .number(let number) = value {
            let canonical = UnitName(metric.canonicalUnit)
            try Self.checkQuantity(number.double, canonical, of: metric, value: path, unit: path)
            return WorkoutTotal(value: Self.signedZeroDropped(number.double))
        }
        guard case .object = value else {
            throw FieldError(
                .wrongType, path: path, reason: "must be a number (\(metric.canonicalUnit)) or {\"value\", \"unit\"}")
        }
        let object = try ObjectReader(value, path: path)
        try object.allowOnly(["value", "unit"])
        guard case .number(let number) = try object.required("value") else {
            throw FieldError(.wrongType, path: object.path("value"), reason: "must be a number")
        }
        let unit = UnitName(try object.string("unit", .text))
        try Self.checkQuantity(number.double, unit, of: metric, value: object.path("value"), unit: object.path("unit"))
        return WorkoutTotal(value: Self.signedZeroDropped(number.double), unit: unit)
    }

    /// `number`, a `-0` read as `0`: JSON writes both `0` (so `log dump` does), and the
    /// projections' digest tells their bits apart, so a log re-ingested from its dump gave
    /// another digest.
    static func signedZeroDropped(_ number: Double) -> Double { number == 0 ? 0 : number }
}
