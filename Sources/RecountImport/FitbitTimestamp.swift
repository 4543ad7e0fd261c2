import Recount

/// The wall-clock times Fitbit writes without an offset, as milliseconds since
/// 1970-01-01T00:00 local (a `LocalTimeZone` turns them into instants).
///
/// Formats: `10/10/23 00:10:00` (`MM/dd/yy HH:mm:ss`, years 2000–2099: per-minute files,
/// exercise logs), `2018-02-01T22:36:00.000` (ISO without offset, fraction optional: sleep
/// logs), and a `MM/dd/yy` date with a separate `HH:mm:ss` time (weight logs).
enum FitbitTimestamp {
    /// Parses either date-and-time form; `nil` when the text is neither or not a real date.
    static func localMillis(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        if bytes.count >= 10, bytes[2] == UInt8(ascii: "/") {
            return slashed(bytes)
        }
        return iso(bytes)
    }

    /// Parses a `MM/dd/yy` date and a `HH:mm:ss` time.
    static func localMillis(date: String, time: String) -> Int64? {
        localMillis(date + " " + time)
    }

    /// `MM/dd/yy HH:mm:ss`.
    private static func slashed(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == 17, bytes[5] == UInt8(ascii: "/"), bytes[8] == UInt8(ascii: " "),
            let month = number(bytes, 0, 2), let day = number(bytes, 3, 2), let year = number(bytes, 6, 2)
        else { return nil }
        return combine(year: 2000 + year, month: month, day: day, bytes, timeAt: 9, fractionAt: nil)
    }

    /// `yyyy-MM-ddTHH:mm:ss[.SSS]`.
    private static func iso(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2)
        else { return nil }
        return combine(year: year, month: month, day: day, bytes, timeAt: 11, fractionAt: 19)
    }

    /// Adds the `HH:mm:ss` at `timeAt` (and an optional `.fff` at `fractionAt`) to a date.
    private static func combine(
        year: Int64, month: Int64, day: Int64, _ bytes: [UInt8], timeAt start: Int, fractionAt: Int?
    ) -> Int64? {
        guard bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
            let hour = number(bytes, start, 2), let minute = number(bytes, start + 3, 2),
            let second = number(bytes, start + 6, 2), hour < 24, minute < 60, second < 60,
            (1...12).contains(month), (1...CivilDay.daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        var millis: Int64 = 0
        let end = start + 8
        if bytes.count > end {
            guard let fractionAt, fractionAt == end, bytes[end] == UInt8(ascii: "."), bytes.count > end + 1,
                bytes.count <= end + 10, let fraction = number(bytes, end + 1, bytes.count - end - 1)
            else { return nil }
            let digits = bytes.count - end - 1
            millis = digits >= 3 ? fraction / pow10(digits - 3) : fraction * pow10(3 - digits)
        }
        let days = CivilDay.daysFromCivil(year: year, month: month, day: day)
        return (days * 86_400 + hour * 3600 + minute * 60 + second) * 1000 + millis
    }

    /// The decimal number of `count` ASCII digits at `start`.
    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[start..<(start + count)] {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// 10 to a small power.
    private static func pow10(_ exponent: Int) -> Int64 {
        (0..<exponent).reduce(1) { result, _ in result * 10 }
    }
}
