/// An instant as Apple Health writes it in `export.xml`: `2024-01-12 08:10:05 +0200`.
///
/// The written offset is the exporting phone's offset *at export time*, not the offset in force
/// where and when the sample was recorded; only the instant is trustworthy. `AppleHealthImporter`
/// therefore re-expresses instants in the sample's `HKTimeZone` when it has one.
struct ExportTimestamp: Hashable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z (POSIX time, leap seconds ignored).
    var epochSeconds: Int64
    /// The offset written after the time, seconds east of UTC.
    var writtenOffsetSeconds: Int32

    /// The largest offset accepted, in seconds (±23:59).
    private static let maximumOffset: Int32 = 23 * 3600 + 59 * 60

    /// Parses `YYYY-MM-DD HH:MM:SS ±HHMM`.
    ///
    /// Also accepts `T` instead of the space between date and time, no space before the offset,
    /// `±HH:MM` and `Z`, so a hand-edited or converted file still reads. Years 0001–9998.
    /// - Parameter text: the attribute value.
    /// - Returns: the timestamp, or `nil` when the text is not a valid date and time.
    init?(parsing text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse(bytes: $0) }) else { return nil }
        self = parsed
    }

    private init(epochSeconds: Int64, writtenOffsetSeconds: Int32) {
        self.epochSeconds = epochSeconds
        self.writtenOffsetSeconds = writtenOffsetSeconds
    }

    /// Parses the UTF-8 bytes of a timestamp; see `init(parsing:)`.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> ExportTimestamp? {
        var cursor = ByteCursor(bytes: bytes)
        guard let year = cursor.digits(4), cursor.skip(UInt8(ascii: "-")),
            let month = cursor.digits(2), cursor.skip(UInt8(ascii: "-")),
            let day = cursor.digits(2),
            cursor.skip(UInt8(ascii: " ")) || cursor.skip(UInt8(ascii: "T")),
            let hour = cursor.digits(2), cursor.skip(UInt8(ascii: ":")),
            let minute = cursor.digits(2), cursor.skip(UInt8(ascii: ":")),
            let second = cursor.digits(2)
        else { return nil }
        _ = cursor.skip(UInt8(ascii: " "))
        var offset: Int32 = 0
        if !cursor.skip(UInt8(ascii: "Z")) {
            let negative: Bool
            if cursor.skip(UInt8(ascii: "+")) {
                negative = false
            } else if cursor.skip(UInt8(ascii: "-")) {
                negative = true
            } else {
                return nil
            }
            guard let offsetHours = cursor.digits(2) else { return nil }
            _ = cursor.skip(UInt8(ascii: ":"))
            guard let offsetMinutes = cursor.digits(2), offsetMinutes < 60 else { return nil }
            offset = Int32(offsetHours * 3600 + offsetMinutes * 60)
            guard offset <= maximumOffset else { return nil }
            if negative { offset = -offset }
        }
        guard cursor.atEnd else { return nil }
        guard (1...9998).contains(year), (1...12).contains(month),
            (1...daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = days * 86_400 + hour * 3600 + minute * 60 + second
        return ExportTimestamp(
            epochSeconds: local - Int64(offset), writtenOffsetSeconds: offset)
    }

    /// A read position in a byte buffer, for the timestamp parser.
    private struct ByteCursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Reads exactly `count` ASCII digits as a number.
        mutating func digits(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for position in index..<(index + count) {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
            }
            index += count
            return value
        }

        /// Consumes `byte` if it is next.
        mutating func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
    }

    /// RFC 3339 text of an instant seen at an offset: `2024-01-12T08:10:05+02:00`.
    ///
    /// UTC is written `+00:00`, like every other offset.
    /// - Parameters:
    ///   - epochSeconds: the instant.
    ///   - offsetSeconds: the offset to show it in; whole minutes.
    /// - Returns: the formatted text.
    static func rfc3339(epochSeconds: Int64, offsetSeconds: Int32) -> String {
        let local = epochSeconds + Int64(offsetSeconds)
        let days = floorDivide(local, 86_400)
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let magnitude = Int64(offsetSeconds.magnitude)
        return String(unsafeUninitializedCapacity: 25) { output in
            // Writes `value` as `width` zero-padded digits from `start`.
            func put(_ value: Int64, width: Int, at start: Int) {
                var rest = value
                var position = start + width
                while position > start {
                    position -= 1
                    output[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            put(year, width: 4, at: 0)
            output[4] = UInt8(ascii: "-")
            put(month, width: 2, at: 5)
            output[7] = UInt8(ascii: "-")
            put(day, width: 2, at: 8)
            output[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, width: 2, at: 11)
            output[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, width: 2, at: 14)
            output[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, width: 2, at: 17)
            output[19] = offsetSeconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            put(magnitude / 3600, width: 2, at: 20)
            output[22] = UInt8(ascii: ":")
            put(magnitude / 60 % 60, width: 2, at: 23)
            return 25
        }
    }

    /// RFC 3339 text of this instant at its written offset.
    var rfc3339AtWrittenOffset: String {
        Self.rfc3339(epochSeconds: epochSeconds, offsetSeconds: writtenOffsetSeconds)
    }

    // MARK: Civil calendar (proleptic Gregorian, H. Hinnant's algorithms)

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b < 0) ? quotient - 1 : quotient
    }

    private static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a civil date.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a count of days since 1970-01-01.
    private static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
