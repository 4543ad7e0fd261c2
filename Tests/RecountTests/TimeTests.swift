import Foundation
import Recount
import Testing

/// RFC 3339 parsing and formatting, civil days, and the zone offset cache.
@Suite struct TimeTests {
    // MARK: RFC 3339

    /// Valid timestamps with their epoch milliseconds and offsets (expectations from Python's
    /// `datetime.fromisoformat`, not from the code under test).
    static let validTimestamps: [(String, Int64, Int32)] = [
        ("1970-01-01T00:00:00Z", 0, 0),
        ("2026-07-13T23:45:00-07:00", 1_784_011_500_000, -25_200),
        ("2026-03-08T07:00:00-08:00", 1_772_982_000_000, -28_800),
        ("2024-02-29T12:00:00Z", 1_709_208_000_000, 0),
        ("2000-02-29T00:00:00Z", 951_782_400_000, 0),
        ("2000-01-01T00:00:00+14:00", 946_634_400_000, 50_400),
        ("1900-03-01T00:00:00+05:30", -2_203_911_000_000, 19_800),
        ("2026-11-01T01:30:00-05:00", 1_793_514_600_000, -18_000),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799_999, 0),
        ("0000-01-01T00:00:00Z", -62_167_219_200_000, 0),
        ("1969-12-31T23:59:59Z", -1000, 0),
        ("2026-07-13t23:45:00z", 1_783_986_300_000, 0),
        ("2026-07-13T23:45:00+00:00", 1_783_986_300_000, 0),
        ("2026-07-13T23:45:00-00:00", 1_783_986_300_000, 0),
        ("2026-07-13T23:45:00+23:59", 1_783_986_300_000 - 86_340_000, 86_340),
        ("2026-07-13T23:45:00-23:59", 1_783_986_300_000 + 86_340_000, -86_340),
        ("2026-07-13T23:45:00.5Z", 1_783_986_300_500, 0),
        ("2026-07-13T23:45:00.12Z", 1_783_986_300_120, 0),
        ("2026-07-13T23:45:00.123Z", 1_783_986_300_123, 0),
        ("2026-07-13T23:45:00.1239Z", 1_783_986_300_123, 0),
        ("2026-07-13T23:45:00.999999999Z", 1_783_986_300_999, 0),
        ("2026-07-13T23:45:00.000000001+01:00", 1_783_982_700_000, 3600),
        // More than 9 fraction digits: accepted, kept to the millisecond, never carried over.
        ("2026-07-13T23:45:00.1234567891Z", 1_783_986_300_123, 0),
        ("2026-07-13T23:59:59.99999999999999999999999999999+01:00", 1_783_983_599_999, 3600),
        ("1969-12-31T23:59:59.99999999999Z", -1, 0),
        ("1969-12-31T23:59:59.9999Z", -1, 0),
        ("1969-12-31T23:59:59.5Z", -500, 0),
        ("2026-12-31T23:59:59Z", 1_798_761_599_000, 0),
    ]

    @Test(arguments: validTimestamps)
    func parsesValidTimestamps(text: String, millis: Int64, offset: Int32) throws {
        let parsed = try #require(RFC3339.parse(text))
        #expect(parsed.millis == millis)
        #expect(parsed.offsetSeconds == offset)
    }

    @Test(arguments: [
        "", "2026", "2026-07-13", "2026-07-13T23:45:00", "2026-07-13T23:45Z",
        "2026-07-13 23:45:00Z",
        " 2026-07-13T23:45:00Z", "2026-07-13T23:45:00Z ", "2026-07-13T23:45:00 Z",
        "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-00-10T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T23:60:00Z", "2026-12-31T23:59:60Z", "2026-01-01T00:00:00+24:00",
        "2026-01-01T00:00:00+05:60", "2026-01-01T00:00:00+0500", "2026-01-01T00:00:00+05",
        "2026-01-01T00:00:00+5:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890",
        "2026-01-01T00:00:00.12345678901x2Z",
        "2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00.5", "2026-01-01X00:00:00Z",
        "2026/01/01T00:00:00Z", "20260101T000000Z", "+2026-01-01T00:00:00Z",
        "-2026-01-01T00:00:00Z",
        "2026-1-01T00:00:00Z", "2026-01-01T0:00:00Z", "2026-01-01T00:00:00ZZ",
        "2026-01-01T00:00:00z+01:00",
        "2026-01-01T00:00:00+01:00Z", "2026-01-01T00:00:00UTC", "2026-01-01T00:00:00GMT",
        "2O26-01-01T00:00:00Z", "2026-01-01T00:00:0OZ", "2026-01-01T00:00:00+0a:00",
        "2026-01-01T00:00:00\u{0}",
        "２０２６-01-01T00:00:00Z", "2026-01-01T00:00:00.５Z", "2026-01-01T00:00:00-",
        "2026-01-01T00:00:00+01:0", "2026-01-01T00:00:00+01:000",
    ])
    func rejectsInvalidTimestamps(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func rejectsEveryTruncation() {
        let full = "2026-07-13T23:45:00.123-07:00"
        let bytes = Array(full.utf8)
        for length in 0..<bytes.count
        where RFC3339.parse(String(decoding: bytes[..<length], as: UTF8.self)) != nil {
            Issue.record("prefix of length \(length) parsed")
        }
        #expect(RFC3339.parse(full) != nil)
    }

    /// `-00:00` says the local offset is unknown (RFC 3339 §4.3): it is offset 0 for arithmetic
    /// but is kept as written, apart from `Z` and `+00:00`.
    @Test func unknownOffsetIsKeptAsWritten() throws {
        let unknown = try #require(RFC3339.parse("2026-07-13T23:45:00.5-00:00"))
        #expect(unknown.millis == 1_783_986_300_500)
        #expect(unknown.offsetSeconds == 0)
        #expect(unknown.offsetIsUnknown)
        #expect(RFC3339.parse("2026-07-13T23:45:00+00:00")?.offsetIsUnknown == false)
        #expect(RFC3339.parse("2026-07-13T23:45:00Z")?.offsetIsUnknown == false)
        #expect(RFC3339.parse("2026-07-13T23:45:00-01:00")?.offsetIsUnknown == false)
        #expect(
            RFC3339.format(millis: unknown.millis, offsetSeconds: 0, offsetIsUnknown: true)
                == "2026-07-13T23:45:00.500-00:00")
        #expect(RFC3339.format(millis: unknown.millis, offsetSeconds: 0) == "2026-07-13T23:45:00.500Z")
        let instant = try #require(Instant(rfc3339: "2026-07-13T23:45:00-00:00"))
        #expect(instant.rfc3339 == "2026-07-13T23:45:00-00:00")
        #expect(instant != Instant(rfc3339: "2026-07-13T23:45:00Z"))
        #expect(Instant(rfc3339: "2026-07-13T23:45:00+00:00")?.rfc3339 == "2026-07-13T23:45:00Z")
        // An unknown offset is only ever offset 0.
        #expect(!Instant(millis: 0, offsetSeconds: 3600, offsetIsUnknown: true).offsetIsUnknown)
    }

    @Test func neverTrapsOnGarbage() {
        var random = TimeTestsRandom(seed: 0x5EED_3339)
        let alphabet = Array("0123456789-:.TZtz+ ".utf8) + [0, 0xFF, 0xC3]
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int(random.next() % 40)
            let bytes = (0..<length).map { _ in
                alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            let result = bytes.withUnsafeBytes { RFC3339.parse($0) }
            if let result {
                accepted += 1
                // Anything accepted must format and re-parse to the same instant.
                let again = RFC3339.parse(
                    RFC3339.format(millis: result.millis, offsetSeconds: result.offsetSeconds))
                #expect(again?.millis == result.millis)
            }
        }
        #expect(accepted < 20_000)
    }

    @Test(arguments: [
        (Int64(0), Int32(0), "1970-01-01T00:00:00Z"),
        (1_784_011_500_000, -25_200, "2026-07-13T23:45:00-07:00"),
        (1_784_011_500_123, -25_200, "2026-07-13T23:45:00.123-07:00"),
        (1_784_011_500_007, 19_800, "2026-07-14T12:15:00.007+05:30"),
        (1_784_011_500_000, 0, "2026-07-14T06:45:00Z"),
        (-1, 0, "1969-12-31T23:59:59.999Z"),
        (-62_167_219_200_000, 0, "0000-01-01T00:00:00Z"),
        (253_402_300_799_999, 0, "9999-12-31T23:59:59.999Z"),
        (1_784_011_500_000, 50_400, "2026-07-14T20:45:00+14:00"),
        // Sub-minute offsets (local mean time) are written truncated, and the instant is kept.
        (0, 19_270, "1970-01-01T05:21:00+05:21"),
        (0, -32_261, "1969-12-31T15:03:00-08:57"),
    ])
    func formats(millis: Int64, offset: Int32, expected: String) {
        #expect(RFC3339.format(millis: millis, offsetSeconds: offset) == expected)
        #expect(RFC3339.parse(expected)?.millis == millis)
    }

    /// Years outside 0000–9999 and offsets of 100 hours or more are written in full (not RFC 3339).
    @Test(arguments: [
        (Int64(253_402_300_800_000), Int32(0), "+10000-01-01T00:00:00Z"),
        (-62_167_219_200_001, 0, "-0001-12-31T23:59:59.999Z"),
        (0, 360_000, "1970-01-05T04:00:00+100:00"),
        (0, -360_060, "1969-12-27T19:59:00-100:01"),
    ])
    func formatsBeyondRFC3339(millis: Int64, offset: Int32, expected: String) {
        #expect(RFC3339.format(millis: millis, offsetSeconds: offset) == expected)
        #expect(RFC3339.parse(expected) == nil)
    }

    @Test func formatRoundTrips() {
        for (text, millis, offset) in TimeTests.validTimestamps {
            let formatted = RFC3339.format(millis: millis, offsetSeconds: offset)
            let parsed = RFC3339.parse(formatted)
            #expect(parsed?.millis == millis, "\(text) -> \(formatted)")
            #expect(parsed?.offsetSeconds == offset, "\(text) -> \(formatted)")
        }
        var random = TimeTestsRandom(seed: 20_260_713)
        let range = UInt64(253_402_300_799_999 + 62_167_219_200_000 + 1)
        for _ in 0..<50_000 {
            let millis = Int64(random.next() % range) - 62_167_219_200_000
            let offset = Int32(Int64(random.next() % (2 * 1439 + 1)) - 1439) * 60
            let formatted = RFC3339.format(millis: millis, offsetSeconds: offset)
            guard let parsed = RFC3339.parse(formatted) else {
                // Only the ends of the range may leave four-digit years.
                let local = millis + Int64(offset) * 1000
                #expect(local < -62_167_219_200_000 || local > 253_402_300_799_999, "\(formatted)")
                continue
            }
            #expect(
                parsed.millis == millis && parsed.offsetSeconds == offset,
                "\(millis) \(offset) \(formatted)")
        }
    }

    @Test func formatNeverTraps() {
        for millis in [Int64.min, Int64.min + 1, -1, Int64.max - 1, Int64.max] {
            for offset in [Int32.min, -86_399, 0, 86_399, Int32.max] {
                #expect(!RFC3339.format(millis: millis, offsetSeconds: offset).isEmpty)
            }
        }
    }

    // MARK: Civil days

    @Test func civilDaysMatchFoundationFrom1900To2200() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let first = try #require(CivilDay(year: 1900, month: 1, day: 1))
        let last = try #require(CivilDay(year: 2200, month: 12, day: 31))
        #expect(first.daysSinceEpoch == -25_567)
        var expectedPrevious: CivilDay?
        for days in first.daysSinceEpoch...last.daysSinceEpoch {
            let day = CivilDay(daysSinceEpoch: days)
            let date = Date(timeIntervalSince1970: Double(days) * 86_400 + 43_200)
            let oracle = calendar.dateComponents([.year, .month, .day], from: date)
            let c = day.components
            guard c.year == oracle.year, c.month == oracle.month, c.day == oracle.day else {
                Issue.record("\(days): \(c) vs \(oracle)")
                return
            }
            #expect(CivilDay(year: c.year, month: c.month, day: c.day) == day)
            #expect(CivilDay(parsing: day.description) == day)
            if let expectedPrevious { #expect(expectedPrevious < day) }
            expectedPrevious = day
        }
    }

    @Test func civilDayFromLocalMillisFloors() {
        #expect(CivilDay.of(localMillis: 0).description == "1970-01-01")
        #expect(CivilDay.of(localMillis: -1).description == "1969-12-31")
        #expect(CivilDay.of(localMillis: -86_400_000).description == "1969-12-31")
        #expect(CivilDay.of(localMillis: -86_400_001).description == "1969-12-30")
        #expect(CivilDay.of(localMillis: 86_399_999).description == "1970-01-01")
        #expect(
            CivilDay.of(localMillis: 1_784_011_500_000 - 25_200_000).description == "2026-07-13")
        #expect(CivilDay.of(localMillis: Int64.max).daysSinceEpoch == Int32.max)
        #expect(CivilDay.of(localMillis: Int64.min).daysSinceEpoch == Int32.min)
    }

    @Test func civilDayValidation() {
        #expect(CivilDay(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDay(year: 2023, month: 2, day: 29) == nil)
        #expect(CivilDay(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDay(year: 2100, month: 2, day: 29) == nil)
        #expect(CivilDay(year: 2026, month: 4, day: 31) == nil)
        #expect(CivilDay(year: 2026, month: 0, day: 1) == nil)
        #expect(CivilDay(year: 2026, month: 13, day: 1) == nil)
        #expect(CivilDay(year: 2026, month: 1, day: 0) == nil)
        #expect(CivilDay(year: Int.max, month: 1, day: 1) == nil)
        #expect(CivilDay(year: -1, month: 1, day: 1)?.description == "-0001-01-01")
        #expect(CivilDay(year: 12_026, month: 1, day: 1)?.description == "+12026-01-01")
        #expect(CivilDay(year: 1970, month: 1, day: 1)?.daysSinceEpoch == 0)
        #expect(CivilDay(year: 2026, month: 3, day: 8)?.daysSinceEpoch == 20_520)
        #expect(CivilDay(year: 1, month: 1, day: 1)?.daysSinceEpoch == -719_162)
        #expect(CivilDay(year: 2026, month: 3, day: 8)?.startLocalMillis == 1_772_928_000_000)
        #expect(CivilDay(daysSinceEpoch: 5).advanced(by: -6).description == "1969-12-31")
        #expect(CivilDay(daysSinceEpoch: Int32.max).advanced(by: 1).daysSinceEpoch == Int32.max)
    }

    @Test(arguments: [
        "", "2026-7-13", "2026-07-13 ", "2026/07/13", "2026-07-1x", "2026-02-30", "2026-13-01",
        "26-07-13",
        "2026-07-13T00:00:00Z", "+2026-07-13", "２０２６-07-13",
    ])
    func rejectsInvalidDates(text: String) {
        #expect(CivilDay(parsing: text) == nil)
    }

    @Test func civilDayOrderAndHash() throws {
        let a = try #require(CivilDay(parsing: "2026-07-13"))
        let b = try #require(CivilDay(parsing: "2026-07-14"))
        #expect(a < b)
        #expect(Set([a, b, a]).count == 2)
        #expect(a.components == (2026, 7, 13))
    }

    // MARK: Zone offsets

    @Test func zoneOffsetsAcrossNewYorkDST() {
        let zones = ZoneOffsets()
        // 2026-03-08 02:00 EST (07:00Z) jumps to 03:00 EDT.
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_772_953_199_999) == -18_000)
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_772_953_200_000) == -14_400)
        // 2026-11-01 02:00 EDT (06:00Z) falls back to 01:00 EST.
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_793_512_799_999) == -14_400)
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_793_512_800_000) == -18_000)
        let interval = zones.offsetInterval(zone: "America/New_York", atMillis: 1_780_000_000_000)
        #expect(interval?.offsetSeconds == -14_400)
        #expect(interval?.untilMillis == 1_793_512_800_000)
        #expect(zones.offsetSeconds(zone: "Asia/Kolkata", atMillis: 1_780_000_000_000) == 19_800)
        #expect(zones.offsetSeconds(zone: "Asia/Kathmandu", atMillis: 1_780_000_000_000) == 20_700)
        #expect(zones.offsetSeconds(zone: "UTC", atMillis: 1_780_000_000_000) == 0)
        #expect(zones.offsetSeconds(zone: "Etc/GMT+5", atMillis: 0) == -18_000)
        #expect(zones.offsetSeconds(zone: "Nowhere/Special", atMillis: 0) == nil)
        #expect(zones.offsetSeconds(zone: "America/New_York", atMillis: 0) == -18_000)
    }

    @Test func zoneOffsetsCacheIntervals() {
        let zones = ZoneOffsets()
        // A year of hourly lookups in two zones touches only a handful of intervals.
        let start: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z
        for hour in 0..<(366 * 24) {
            let t = start + Int64(hour) * 3_600_000
            _ = zones.offsetSeconds(zone: "America/New_York", atMillis: t)
            _ = zones.offsetSeconds(zone: "Asia/Kolkata", atMillis: t)
        }
        #expect(zones.cachedIntervalCount <= 5)
        // Going back in time adds intervals without breaking earlier answers.
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_000_000_000_000) == -14_400)
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_772_953_200_000) == -14_400)
        #expect(
            zones.offsetSeconds(zone: "America/New_York", atMillis: 1_772_953_199_999) == -18_000)
    }

    @Test func zoneOffsetsMatchFoundation() throws {
        var random = TimeTestsRandom(seed: 0xD57)
        let names = [
            "America/New_York", "America/Los_Angeles", "Europe/London", "Australia/Lord_Howe",
            "Pacific/Apia", "Pacific/Kiritimati", "Asia/Kolkata", "America/Santiago",
            "Europe/Moscow",
            "Africa/Casablanca", "America/Sao_Paulo", "Pacific/Chatham", "America/Juneau",
        ]
        let zones = ZoneOffsets()
        for name in names {
            let timeZone = try #require(TimeZone(identifier: name))
            for _ in 0..<400 {
                // 1850 to 2100, then the same instants again in shuffled order.
                let t = Int64(random.next() % 7_889_000_000_000) - 3_786_000_000_000
                let expected = timeZone.secondsFromGMT(
                    for: Date(timeIntervalSince1970: Double(t) / 1000))
                #expect(
                    zones.offsetSeconds(zone: name, atMillis: t).map(Int.init) == expected,
                    "\(name) \(t)")
            }
        }
    }

    @Test(arguments: [
        ("America/New_York", true), ("Asia/Kolkata", true), ("Asia/Calcutta", true), ("UTC", true),
        ("GMT", true), ("Etc/UTC", true), ("Etc/GMT-14", true), ("EST5EDT", true), ("Japan", true),
        ("Pacific/Kiritimati", true), ("America/Argentina/Buenos_Aires", true),
        ("PST", false), ("GMT+5", false), ("GMT+0530", false), ("UTC+01:00", false), ("", false),
        ("america/new_york", false), ("America/New York", false), ("../etc/passwd", false),
        ("America//New_York", false), ("/America/New_York", false), ("America/New_York/", false),
        ("Foo/Bar", false), ("America/New_York\u{0}", false), ("Local", false),
    ])
    func knowsZones(name: String, known: Bool) {
        #expect(ZoneOffsets.isKnownZone(name) == known)
        #expect(ZoneOffsets().isKnown(zone: name) == known)
    }
}

/// A small deterministic generator so randomised tests replay exactly from their seed.
struct TimeTestsRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
