/// A date of the proleptic Gregorian calendar, without a zone: the "day" of a rollup.
///
/// Stored as days since 1970-01-01, so ordering, hashing and arithmetic are integer operations.
/// The conversions use Howard Hinnant's `days_from_civil` / `civil_from_days` algorithms
/// (<https://howardhinnant.github.io/date_algorithms.html>): no tables, no Foundation, no
/// allocation.
package struct CivilDay: Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    package var daysSinceEpoch: Int32

    /// The smallest year `init(year:month:day:)` accepts.
    package static let minimumYear = -1_000_000
    /// The largest year `init(year:month:day:)` accepts.
    package static let maximumYear = 1_000_000

    /// Creates the day `daysSinceEpoch` days after 1970-01-01.
    /// - Parameter daysSinceEpoch: days since 1970-01-01.
    @inline(__always)
    package init(daysSinceEpoch: Int32) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// Creates a day from its components, or `nil` when they name no date (month outside 1–12,
    /// day outside the month, leap years honoured, year outside `minimumYear...maximumYear`).
    /// - Parameters:
    ///   - year: the proleptic Gregorian year (astronomical numbering: year 0 exists).
    ///   - month: 1–12.
    ///   - day: 1–28/29/30/31.
    package init?(year: Int, month: Int, day: Int) {
        guard year >= CivilDay.minimumYear, year <= CivilDay.maximumYear,
            month >= 1, month <= 12, day >= 1,
            day <= CivilDay.daysInMonth(year: Int64(year), month: Int64(month))
        else { return nil }
        let days = CivilDay.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        self.daysSinceEpoch = Int32(days)
    }

    /// Parses exactly `YYYY-MM-DD` (four-digit year), or returns `nil`.
    /// - Parameter text: the date, such as `2026-07-14`.
    package init?(parsing text: String) {
        guard let day = text.withRawUTF8({ CivilDay.parse(bytes: $0) }) else { return nil }
        self = day
    }

    /// Parses exactly `YYYY-MM-DD` from raw bytes, without allocating.
    /// - Parameter bytes: the date's bytes.
    /// - Returns: the day, or `nil` when the bytes are not a valid date in that form.
    package static func parse(bytes: UnsafeRawBufferPointer) -> CivilDay? {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-")
        else { return nil }
        let hi = RFC3339.twoDigits(bytes, 0)
        let lo = RFC3339.twoDigits(bytes, 2)
        let month = RFC3339.twoDigits(bytes, 5)
        let day = RFC3339.twoDigits(bytes, 8)
        guard hi >= 0, lo >= 0, month >= 0, day >= 0 else { return nil }
        return CivilDay(year: Int(hi * 100 + lo), month: Int(month), day: Int(day))
    }

    /// The civil day of a local time (instant plus offset), rounding toward negative infinity, so
    /// `-1` (1969-12-31T23:59:59.999) is 1969-12-31. Clamped to the `Int32` day range.
    /// - Parameter localMillis: a local time in milliseconds.
    @inline(__always)
    package static func of(localMillis: Int64) -> CivilDay {
        let days = Timestamp.floorDivide(localMillis, Timestamp.millisPerDay)
        return CivilDay(daysSinceEpoch: Int32(clamping: days))
    }

    /// The local time of this day's midnight, in milliseconds.
    package var startLocalMillis: Int64 {
        Int64(daysSinceEpoch) * Timestamp.millisPerDay
    }

    /// The day `count` days later (earlier when negative), clamped to the `Int32` range.
    /// - Parameter count: days to move.
    package func advanced(by count: Int32) -> CivilDay {
        let (sum, overflow) = daysSinceEpoch.addingReportingOverflow(count)
        return CivilDay(daysSinceEpoch: overflow ? (count < 0 ? .min : .max) : sum)
    }

    /// The year, month (1–12) and day of month (1–31).
    package var components: (year: Int, month: Int, day: Int) {
        let c = CivilDay.civilFromDays(Int64(daysSinceEpoch))
        return (Int(c.year), Int(c.month), Int(c.day))
    }

    /// `YYYY-MM-DD`; years outside 0000–9999 print with a sign and as many digits as needed.
    package var description: String {
        let c = CivilDay.civilFromDays(Int64(daysSinceEpoch))
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RFC3339.maximumLength) { text in
            let count = RFC3339.writeDate(year: c.year, month: c.month, day: c.day, to: text.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: text[..<count]), as: UTF8.self)
        }
    }

    /// Orders days chronologically.
    package static func < (lhs: CivilDay, rhs: CivilDay) -> Bool {
        lhs.daysSinceEpoch < rhs.daysSinceEpoch
    }

    /// Whether `year` is a Gregorian leap year.
    /// - Parameter year: the year.
    @inline(__always)
    package static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in a month of a year.
    /// - Parameters:
    ///   - year: the year.
    ///   - month: 1–12 (other values return 0).
    @inline(__always)
    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeapYear(year) ? 29 : 28
        default: 0
        }
    }

    /// Days since 1970-01-01 of a valid civil date (Hinnant's `days_from_civil`).
    /// - Parameters:
    ///   - year: the year (any sign).
    ///   - month: 1–12.
    ///   - day: 1–31, valid for the month.
    @inline(__always)
    package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    /// - Parameter days: days since 1970-01-01, within ±2^40.
    @inline(__always)
    package static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
