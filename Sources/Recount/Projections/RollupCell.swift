/// One (user, metric, day) rollup as `Rollup.compute` rebuilds it from the day's live samples.
///
/// What the fields hold by metric:
///
/// | metric | `count` | `value` | `minimum`, `maximum` | `sources` |
/// |---|---|---|---|---|
/// | steps, distance, active energy | samples with a part on the day | the merged sum | `nil` | per source |
/// | sleep | samples of the day (all stages) | asleep seconds, merged | `nil` | per source (seconds) |
/// | workout | workouts starting on the day | their total seconds | `nil` | empty |
/// | heart rate, blood glucose | samples of the day | the mean (`nil` at 0) | min, max | empty |
/// | weight | samples of the day | the latest (`nil` at 0) | min, max | empty |
///
/// A day without samples is a known zero (`value` 0) for sums, sleep and workouts, and a count of
/// 0 without statistics for the others.
package struct RollupCell: Equatable, Sendable, CustomStringConvertible {
    /// What one source contributed to a merged cell (sums and sleep), and what the merge held back.
    package struct SourceShare: Equatable, Sendable {
        /// The source.
        package var source: SourceID
        /// Its samples with a part on the day.
        package var samples: Int
        /// The amount that counted, in the metric's canonical unit (seconds for sleep).
        package var counted: Double
        /// The time that counted, in milliseconds (0 for instantaneous samples).
        package var countedMillis: Int64
        /// The amount a higher-priority source covered, in the canonical unit.
        package var suppressed: Double
        /// The time a higher-priority source covered, in milliseconds.
        package var suppressedMillis: Int64
        /// The source that suppressed the largest amount (ties to the higher-priority one); `nil`
        /// when nothing was suppressed.
        package var suppressedBy: SourceID?

        /// Creates a share.
        package init(
            source: SourceID, samples: Int = 0, counted: Double = 0, countedMillis: Int64 = 0,
            suppressed: Double = 0, suppressedMillis: Int64 = 0, suppressedBy: SourceID? = nil
        ) {
            self.source = source
            self.samples = samples
            self.counted = counted
            self.countedMillis = countedMillis
            self.suppressed = suppressed
            self.suppressedMillis = suppressedMillis
            self.suppressedBy = suppressedBy
        }
    }

    /// The metric.
    package var metric: Metric
    /// The civil day.
    package var day: CivilDay
    /// How many samples the cell was built from (see the table above).
    package var count: Int
    /// The headline value in the metric's canonical unit (see the table above).
    package var value: Double?
    /// The smallest value (discrete metrics and weight).
    package var minimum: Double?
    /// The largest value (discrete metrics and weight).
    package var maximum: Double?
    /// Per-source explanation of a merged cell, sorted by source id.
    package var sources: [SourceShare]

    /// Creates a cell.
    package init(
        metric: Metric, day: CivilDay, count: Int, value: Double?, minimum: Double? = nil,
        maximum: Double? = nil, sources: [SourceShare] = []
    ) {
        self.metric = metric
        self.day = day
        self.count = count
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.sources = sources
    }

    /// The version of `write(into:)`'s layout; a change of layout takes a new one.
    package static let layoutVersion: UInt8 = 1
    /// The version of `write(into:naming:)`'s layout.
    package static let namedLayoutVersion: UInt8 = 2

    /// Appends the cell's canonical bytes, as the checkpoint holds them.
    ///
    /// Layout (integers little-endian, doubles as their IEEE 754 bit patterns little-endian):
    /// layout version `u8`, metric code `u8`, day `i32` (days since 1970-01-01), count `u64`,
    /// presence bits `u8` (1 value, 2 minimum, 4 maximum), value, minimum, maximum (`f64` each,
    /// 0 bits when absent), source count `u32`, then per source in id order: id `u32`, samples
    /// `u64`, counted `f64`, counted millis `i64`, suppressed `f64`, suppressed millis `i64`,
    /// has-suppressor `u8`, suppressor id `u32` (0 when none).
    /// - Parameter bytes: the buffer to append to.
    package func write(into bytes: inout [UInt8]) {
        writeHead(version: Self.layoutVersion, into: &bytes)
        for share in sources {
            append(share.source.rawValue, to: &bytes)
            writeAmounts(of: share, into: &bytes)
            bytes.append(share.suppressedBy == nil ? 0 : 1)
            append(share.suppressedBy?.rawValue ?? 0, to: &bytes)
        }
    }

    /// Appends the cell's bytes as the digest holds them: `write(into:)`'s layout (version 2),
    /// but with each source named, not numbered (source ids are given in the order the fold
    /// first met the sources, which a digest must not depend on), and the sources in the order
    /// of their names (`Source.namePrecedes`). A name is its origin, then a presence byte and its
    /// device, strings as a `u32` length and their UTF-8 bytes; the suppressor is a presence
    /// byte and a name.
    /// - Parameters:
    ///   - bytes: the buffer to append to.
    ///   - names: the sources by id.
    package func write(into bytes: inout [UInt8], naming names: [Source]) {
        writeHead(version: Self.namedLayoutVersion, into: &bytes)
        func write(_ source: SourceID) {
            let name = names[Int(source.rawValue)]
            appendString(name.origin, to: &bytes)
            bytes.append(name.device == nil ? 0 : 1)
            if let device = name.device { appendString(device, to: &bytes) }
        }
        let named = sources.sorted { names[Int($0.source.rawValue)].namePrecedes(names[Int($1.source.rawValue)]) }
        for share in named {
            write(share.source)
            writeAmounts(of: share, into: &bytes)
            bytes.append(share.suppressedBy == nil ? 0 : 1)
            if let by = share.suppressedBy { write(by) }
        }
    }

    /// The fields both layouts start with, up to the source count.
    private func writeHead(version: UInt8, into bytes: inout [UInt8]) {
        bytes.append(version)
        bytes.append(metric.rawValue)
        append(UInt32(bitPattern: day.daysSinceEpoch), to: &bytes)
        append(UInt64(count), to: &bytes)
        let presence: UInt8 =
            (value == nil ? 0 : 1) | (minimum == nil ? 0 : 2) | (maximum == nil ? 0 : 4)
        bytes.append(presence)
        for field in [value, minimum, maximum] {
            append(field?.bitPattern ?? 0, to: &bytes)
        }
        append(UInt32(sources.count), to: &bytes)
    }

    /// A share's samples, amounts and times, as both layouts hold them.
    private func writeAmounts(of share: SourceShare, into bytes: inout [UInt8]) {
        append(UInt64(share.samples), to: &bytes)
        append(share.counted.bitPattern, to: &bytes)
        append(UInt64(bitPattern: share.countedMillis), to: &bytes)
        append(share.suppressed.bitPattern, to: &bytes)
        append(UInt64(bitPattern: share.suppressedMillis), to: &bytes)
    }

    /// The canonical bytes of `write(into:)` as a new array.
    package var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return bytes
    }

    /// A one-line summary naming sources by id (`source #3`).
    package var description: String {
        describe(naming: { "source #\($0.rawValue)" }, ordering: <)
    }

    /// A one-line summary for people, such as
    /// `steps 2026-07-14: 13,013 from 42 samples; iPhone 9,912 counted, 3,101 suppressed by Apple Watch`.
    /// - Parameters:
    ///   - name: names a source (for example its device, else its origin).
    ///   - precedes: the order sources are listed in (by name, so that the summary does not
    ///     depend on the order a fold first met them).
    package func describe(naming name: (SourceID) -> String, ordering precedes: (SourceID, SourceID) -> Bool)
        -> String
    {
        // "3,500 from 2 samples" for steps reads better than "3,500 count".
        let unit = metric.canonicalUnit == "count" ? "" : " " + metric.canonicalUnit
        var text = "\(metric.name) \(day): "
        switch metric {
        case .steps, .distance, .activeEnergy:
            text += "\(RollupCell.format(value ?? 0))\(unit) from \(count.counted("sample"))"
        case .sleep:
            text += "\(RollupCell.duration(value ?? 0)) asleep from \(count.counted("sample"))"
        case .workout:
            text += "\(count.counted("workout")), \(RollupCell.duration(value ?? 0))"
        case .heartRate, .bloodGlucose, .weight:
            guard let value, let minimum, let maximum else { return text + "no samples" }
            let headline = metric == .weight ? "latest" : "mean"
            text +=
                "\(headline) \(RollupCell.format(value))\(unit), min \(RollupCell.format(minimum)), "
                + "max \(RollupCell.format(maximum)) from \(count.counted("sample"))"
        }
        let isSleep = metric == .sleep
        for share in sources.sorted(by: { precedes($0.source, $1.source) }) {
            let counted =
                isSleep ? RollupCell.duration(share.counted) : RollupCell.format(share.counted)
            text += "; \(name(share.source)) \(counted) counted"
            if let by = share.suppressedBy {
                let suppressed =
                    isSleep
                    ? RollupCell.duration(share.suppressed) : RollupCell.format(share.suppressed)
                text += ", \(suppressed) suppressed by \(name(by))"
            }
        }
        return text
    }

    /// A value with thousands separators, rounded to an integer from 1,000 up and to two decimals
    /// below (`9,912`, `72.25`).
    static func format(_ value: Double) -> String {
        // A sum past a double's range reads null, as in every other output (not `inf`).
        guard value.isFinite else { return "null" }
        let negative = value < 0
        let magnitude = abs(value)
        guard magnitude < 1e15 else { return "\(value)" }
        let hundredths = Int64((magnitude * 100).rounded())
        var whole = hundredths / 100
        var fraction = hundredths % 100
        if magnitude >= 1000 {
            whole = Int64(magnitude.rounded())
            fraction = 0
        }
        var digits = String(whole)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        grouped = digits + grouped
        if fraction != 0 {
            grouped += fraction % 10 == 0 ? ".\(fraction / 10)" : (fraction < 10 ? ".0\(fraction)" : ".\(fraction)")
        }
        return (negative ? "-" : "") + grouped
    }

    /// Seconds as `7h 05m` (rounded to the minute), or `42s` below a minute.
    static func duration(_ seconds: Double) -> String {
        guard seconds >= 60 else { return "\(Int64(seconds.rounded()))s" }
        let minutes = Int64((seconds / 60).rounded())
        let rest = minutes % 60
        return "\(minutes / 60)h \(rest < 10 ? "0" : "")\(rest)m"
    }
}

/// Appends a fixed-width integer little-endian.
private func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    var little = value.littleEndian
    withUnsafeBytes(of: &little) { bytes.append(contentsOf: $0) }
}

/// Appends a string as its UTF-8 length (`u32`) and bytes.
private func appendString(_ string: String, to bytes: inout [UInt8]) {
    append(UInt32(string.utf8.count), to: &bytes)
    bytes.append(contentsOf: string.utf8)
}
