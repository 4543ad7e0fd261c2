/// Parses and formats RFC 3339 timestamps as epoch milliseconds plus the written UTC offset.
///
/// Accepted form (RFC 3339 §5.6 `date-time`, no extensions):
/// `YYYY-MM-DD` `T`|`t` `HH:MM:SS` [`.` 1 or more digits] then `Z`|`z` or `+HH:MM`|`-HH:MM`.
///
/// - Month and day are checked against the proleptic Gregorian calendar, leap years included.
/// - Hour 00–23, minute 00–59, second 00–59: a leap second (`:60`) is **rejected**, because epoch
///   milliseconds cannot represent it and no health source writes one.
/// - Offset hours 00–23, minutes 00–59. `-00:00` (RFC 3339 §4.3: the instant is known in UTC,
///   the local offset is not) is offset 0 for arithmetic, and is reported as unknown so it can be
///   written back as `-00:00`, distinct from `Z` and `+00:00`.
/// - The fraction may have any number of digits (RFC 3339 sets no limit). The instant keeps
///   milliseconds and drops further digits. Because the fraction only ever adds to a whole
///   second, dropping digits rounds the instant toward negative infinity to the millisecond
///   (`.9999` and `.99999999999` are `.999`), for instants before 1970 as well; unlike rounding
///   to nearest, it never carries into the next second, so the instant stays in the second (and
///   on the civil day) written.
/// - Anything else is rejected: spaces, a missing offset, a space instead of `T`, `+HHMM`, a bare
///   `.`, trailing bytes.
///
/// Parsing is integer code over the raw bytes: no Foundation, no `String`, no allocation.
package enum RFC3339 {
    /// The instants of the years 0001–9999 in UTC: those the engine writes back (in UTC) as
    /// RFC 3339 text it reads.
    package static let utcYearsMillis: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Parses a timestamp from its bytes.
    /// - Parameter bytes: the timestamp's UTF-8 bytes, without quotes.
    /// - Returns: the instant in epoch milliseconds, the written offset in seconds east of UTC
    ///   (`-07:00` is `-25_200`) and whether it was `-00:00` (offset unknown), or `nil` when the
    ///   bytes are not a valid timestamp.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> (
        millis: Int64, offsetSeconds: Int32, offsetIsUnknown: Bool
    )? {
        let n = bytes.count
        guard n >= 20 else { return nil }
        guard bytes[4] == dash, bytes[7] == dash, bytes[10] | 0x20 == 0x74,  // "T" or "t"
            bytes[13] == colon, bytes[16] == colon
        else { return nil }
        let yearHigh = twoDigits(bytes, 0)
        let yearLow = twoDigits(bytes, 2)
        let month = twoDigits(bytes, 5)
        let day = twoDigits(bytes, 8)
        let hour = twoDigits(bytes, 11)
        let minute = twoDigits(bytes, 14)
        let second = twoDigits(bytes, 17)
        // Each is -1 or 0...99, so the bitwise or is negative exactly when one is not two digits.
        guard yearHigh | yearLow | month | day | hour | minute | second >= 0 else { return nil }
        let year = yearHigh * 100 + yearLow
        guard month >= 1, month <= 12, day >= 1,
            day <= CivilDay.daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }

        var i = 19
        var fractionMillis: Int64 = 0
        if bytes[i] == dot {
            i &+= 1
            let fractionStart = i
            while i < n {
                let digit = Int64(bytes[i]) &- 0x30
                guard digit >= 0, digit <= 9 else { break }
                if i &- fractionStart < 3 { fractionMillis = fractionMillis * 10 + digit }
                i &+= 1
            }
            let digits = i &- fractionStart
            guard digits >= 1 else { return nil }
            if digits == 1 { fractionMillis *= 100 } else if digits == 2 { fractionMillis *= 10 }
        }

        guard i < n else { return nil }
        let offsetSeconds: Int64
        var offsetIsUnknown = false
        switch bytes[i] {
        case 0x5A, 0x7A:  // "Z", "z"
            guard i &+ 1 == n else { return nil }
            offsetSeconds = 0
        case 0x2B, 0x2D:  // "+", "-"
            guard i &+ 6 == n, bytes[i &+ 3] == colon else { return nil }
            let offsetHours = twoDigits(bytes, i &+ 1)
            let offsetMinutes = twoDigits(bytes, i &+ 4)
            guard offsetHours >= 0, offsetMinutes >= 0, offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            let magnitude = offsetHours * 3600 + offsetMinutes * 60
            offsetSeconds = bytes[i] == 0x2D ? -magnitude : magnitude
            offsetIsUnknown = bytes[i] == 0x2D && magnitude == 0
        default:
            return nil
        }

        let days = CivilDay.daysFromCivil(year: year, month: month, day: day)
        let localSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        let millis = (localSeconds - offsetSeconds) * 1000 + fractionMillis
        return (millis, Int32(offsetSeconds), offsetIsUnknown)
    }

    /// The digits of a valid timestamp's fraction after its third (those `parse` drops), as
    /// femtoseconds within the millisecond (digits after the eighteenth are ignored): two
    /// instants of one millisecond are ordered by them.
    /// - Parameter bytes: a timestamp `parse` accepts.
    package static func fractionBeyondMillis(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        guard bytes.count > 20, bytes[19] == dot else { return 0 }
        // Past the fraction's first three digits, and never into the offset when it has fewer.
        var i = 20
        while i < 23, i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        guard i == 23 else { return 0 }
        var rest: Int64 = 0
        var digits = 0
        while i < bytes.count, digits < 15, (0x30...0x39).contains(bytes[i]) {
            rest = rest * 10 + Int64(bytes[i] - 0x30)
            digits += 1
            i += 1
        }
        for _ in digits..<15 { rest *= 10 }
        return rest
    }

    /// `fractionBeyondMillis(_:)` of a timestamp given as a string.
    package static func fractionBeyondMillis(_ text: String) -> Int64 {
        text.withRawUTF8 { fractionBeyondMillis($0) }
    }

    /// Parses a timestamp from a string; see `parse(_:)` for the accepted form.
    /// - Parameter text: the timestamp, such as `2026-07-13T23:45:00-07:00`.
    /// - Returns: the instant, the written offset and whether it was `-00:00`, or `nil` when the
    ///   text is not valid.
    package static func parse(_ text: String) -> (millis: Int64, offsetSeconds: Int32, offsetIsUnknown: Bool)? {
        text.withRawUTF8 { parse($0) }
    }

    /// Formats an instant in the given offset: `2026-07-13T23:45:00-07:00`, with `.SSS` only when
    /// the instant is not a whole second, and `Z` for offset 0 (`-00:00` when the offset is
    /// unknown).
    ///
    /// RFC 3339 offsets have whole minutes, so an offset with seconds (local mean time before
    /// standard zones) is written truncated toward zero to the minute, and the local time is
    /// computed with that written offset: the text always denotes exactly `millis`. Years outside
    /// 0000–9999 are written with a sign and more digits, which is not RFC 3339 but never traps.
    /// - Parameters:
    ///   - millis: the instant in epoch milliseconds.
    ///   - offsetSeconds: the offset to write, seconds east of UTC.
    ///   - offsetIsUnknown: write offset 0 as `-00:00` (RFC 3339's unknown local offset).
    /// - Returns: the timestamp; `parse(format(m, o, u))` returns `(m, o, u)` for whole-minute
    ///   offsets within ±23:59 and years 0000–9999.
    package static func format(millis: Int64, offsetSeconds: Int32, offsetIsUnknown: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        append(millis: millis, offsetSeconds: offsetSeconds, offsetIsUnknown: offsetIsUnknown, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text `format(millis:offsetSeconds:offsetIsUnknown:)` returns to a byte buffer
    /// (no `String` made: the envelope writer's path).
    /// - Parameters:
    ///   - millis: the instant in epoch milliseconds.
    ///   - offsetSeconds: the offset to write, seconds east of UTC.
    ///   - offsetIsUnknown: write offset 0 as `-00:00`.
    ///   - out: the bytes to append to.
    package static func append(
        millis: Int64, offsetSeconds: Int32, offsetIsUnknown: Bool = false, to out: inout [UInt8]
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            let count = write(
                millis: millis, offsetSeconds: offsetSeconds, offsetIsUnknown: offsetIsUnknown, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// The most bytes `write(millis:offsetSeconds:offsetIsUnknown:to:)` writes.
    package static let maximumLength = 64

    /// Writes the text `format(millis:offsetSeconds:offsetIsUnknown:)` returns to memory.
    /// - Parameters:
    ///   - millis: the instant in epoch milliseconds.
    ///   - offsetSeconds: the offset to write, seconds east of UTC.
    ///   - offsetIsUnknown: write offset 0 as `-00:00`.
    ///   - out: room for at least `maximumLength` bytes.
    /// - Returns: how many bytes were written.
    package static func write(
        millis: Int64, offsetSeconds: Int32, offsetIsUnknown: Bool = false, to out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let offsetMinutes = Int64(offsetSeconds) / 60
        let local = millis &+ offsetMinutes &* Timestamp.millisPerMinute
        let days = Timestamp.floorDivide(local, Timestamp.millisPerDay)
        let millisOfDay = Timestamp.floorModulo(local, Timestamp.millisPerDay)
        let date = CivilDay.civilFromDays(days)
        let secondsOfDay = millisOfDay / 1000
        var count = writeDate(year: date.year, month: date.month, day: date.day, to: out)
        out[count] = UInt8(ascii: "T")
        writeTwoDigits(secondsOfDay / 3600, to: out + (count &+ 1))
        out[count &+ 3] = colon
        writeTwoDigits(secondsOfDay / 60 % 60, to: out + (count &+ 4))
        out[count &+ 6] = colon
        writeTwoDigits(secondsOfDay % 60, to: out + (count &+ 7))
        count &+= 9
        let fraction = millisOfDay % 1000
        if fraction != 0 {
            out[count] = dot
            out[count &+ 1] = UInt8(truncatingIfNeeded: 0x30 + fraction / 100)
            writeTwoDigits(fraction % 100, to: out + (count &+ 2))
            count &+= 4
        }
        if offsetMinutes == 0 {
            guard offsetIsUnknown else {
                out[count] = UInt8(ascii: "Z")
                return count &+ 1
            }
            out[count] = dash
            writeTwoDigits(0, to: out + (count &+ 1))
            out[count &+ 3] = colon
            writeTwoDigits(0, to: out + (count &+ 4))
        } else {
            out[count] = offsetMinutes < 0 ? dash : UInt8(ascii: "+")
            let magnitude = offsetMinutes.magnitude
            // Hours past 99 only come from offsets no parser accepts; they are written in full.
            count &+= 1 &+ writeDecimal(magnitude / 60, minimumDigits: 2, to: out + (count &+ 1))
            out[count] = colon
            writeTwoDigits(Int64(magnitude % 60), to: out + (count &+ 1))
            return count &+ 3
        }
        return count &+ 6
    }

    /// Writes a civil date, `YYYY-MM-DD`: four year digits for 0000–9999, else a sign and at
    /// least four digits (at most 21 bytes).
    /// - Returns: how many bytes were written.
    static func writeDate(year: Int64, month: Int64, day: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count: Int
        if year >= 0, year <= 9999 {
            writeTwoDigits(year / 100, to: out)
            writeTwoDigits(year % 100, to: out + 2)
            count = 4
        } else {
            out[0] = year < 0 ? dash : UInt8(ascii: "+")
            count = 1 &+ writeDecimal(year.magnitude, minimumDigits: 4, to: out + 1)
        }
        out[count] = dash
        writeTwoDigits(month, to: out + (count &+ 1))
        out[count &+ 3] = dash
        writeTwoDigits(day, to: out + (count &+ 4))
        return count &+ 6
    }

    /// Writes a value in decimal, left-padded with zeros to `minimumDigits`.
    /// - Returns: how many bytes were written.
    private static func writeDecimal(_ value: UInt64, minimumDigits: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 100, minimumDigits == 2 {
            writeTwoDigits(Int64(value), to: out)
            return 2
        }
        var digits: [UInt8] = []
        appendDecimal(Int64(clamping: value), minimumDigits: minimumDigits, to: &digits)
        out.update(from: digits, count: digits.count)
        return digits.count
    }

    /// Writes a value of 0–99 as two decimal digits.
    @inline(__always)
    private static func writeTwoDigits(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) {
        out[0] = UInt8(truncatingIfNeeded: 0x30 &+ value / 10)
        out[1] = UInt8(truncatingIfNeeded: 0x30 &+ value % 10)
    }

    /// The value of the two ASCII digits at `bytes[i]` and `bytes[i + 1]`, or -1 if either is not
    /// a digit.
    /// The caller guarantees `i + 1 < bytes.count`.
    @inline(__always)
    static func twoDigits(_ bytes: UnsafeRawBufferPointer, _ i: Int) -> Int64 {
        let tens = Int64(bytes[i]) &- 0x30
        let ones = Int64(bytes[i &+ 1]) &- 0x30
        guard UInt64(bitPattern: tens) <= 9, UInt64(bitPattern: ones) <= 9 else { return -1 }
        return tens &* 10 &+ ones
    }

    /// Appends a non-negative value in decimal, left-padded with zeros to `minimumDigits`.
    private static func appendDecimal(_ value: Int64, minimumDigits: Int, to out: inout [UInt8]) {
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        var digits = 1
        while magnitude / divisor >= 10 {
            divisor &*= 10
            digits &+= 1
        }
        while digits < minimumDigits {
            out.append(0x30)
            digits &+= 1
        }
        while divisor > 0 {
            out.append(UInt8(truncatingIfNeeded: 0x30 &+ magnitude / divisor % 10))
            divisor /= 10
        }
    }

    private static let dash = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")
    private static let dot = UInt8(ascii: ".")
}
