import Recount

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

    /// Parses the UTF-8 bytes of a timestamp; see `init(parsing:)`.
    /// - Parameter bytes: the attribute value's bytes.
    /// - Returns: the timestamp, or `nil` when the bytes are not a valid date and time.
    init?(parsing bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Self.parse(bytes: bytes) else { return nil }
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
            (1...CivilDay.daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilDay.daysFromCivil(year: year, month: month, day: day)
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

    /// RFC 3339 text of an instant seen at an offset: `2024-01-12T08:10:05+02:00` (UTC as `Z`).
    static func rfc3339(epochSeconds: Int64, offsetSeconds: Int32) -> String {
        RFC3339.format(millis: epochSeconds * 1000, offsetSeconds: offsetSeconds)
    }

    /// RFC 3339 text of this instant at its written offset.
    var rfc3339AtWrittenOffset: String {
        Self.rfc3339(epochSeconds: epochSeconds, offsetSeconds: writtenOffsetSeconds)
    }
}
