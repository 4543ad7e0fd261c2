import Foundation
import Recount
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The civil-day rules of contract §2 and §3.3.
@Suite(.serialized) struct DayAttributionTests {
    /// Attributes a sample given as RFC 3339 text; fails the test on unparsable input.
    func attribute(
        _ rule: Metric.DayRule, _ start: String, _ end: String? = nil, zone: String? = nil,
        zones: ZoneOffsets = ZoneOffsets(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [DayShare] {
        let s = try #require(RFC3339.parse(start), sourceLocation: sourceLocation)
        let e = try #require(RFC3339.parse(end ?? start), sourceLocation: sourceLocation)
        return DayAttribution.days(
            rule: rule, startMillis: s.millis, startOffset: s.offsetSeconds, endMillis: e.millis,
            endOffset: e.offsetSeconds, zone: zone, zones: zones)
    }

    /// The shares expected for per-day durations: each `part / total`, the last `1 - sum(others)`.
    func expected(_ parts: [(String, Int64)]) -> [DayShare] {
        let total = Double(parts.reduce(0) { $0 + $1.1 })
        var shares = parts.map {
            DayShare(day: CivilDay(parsing: $0.0)!, fraction: Double($0.1) / total)
        }
        shares[shares.count - 1].fraction = 1 - shares.dropLast().reduce(0) { $0 + $1.fraction }
        return shares
    }

    func one(_ day: String) -> [DayShare] {
        [DayShare(day: CivilDay(parsing: day)!, fraction: 1)]
    }

    // MARK: Seed stories

    @Test func glucoseAtSevenStaysOnItsDay() throws {
        let text = "2026-03-08T07:00:00-08:00"
        #expect(try attribute(.startDay, text) == one("2026-03-08"))
        #expect(try attribute(.startDay, text, zone: "America/Los_Angeles") == one("2026-03-08"))
        // The same instant read in UTC is already 15:00 on the 8th; in Kiritimati (+14) the 9th,
        // but the sample's own offset decides, not any other zone.
        #expect(try attribute(.startDay, "2026-03-08T23:59:59.999-08:00") == one("2026-03-08"))
        #expect(try attribute(.startDay, "2026-03-08T00:00:00+14:00") == one("2026-03-08"))
        #expect(try attribute(.startDay, "2026-03-07T23:59:59-12:00") == one("2026-03-07"))
    }

    @Test func stepsAcrossMidnightSplitHalfAndHalf() throws {
        let shares = try attribute(
            .splitByTime, "2026-07-13T23:50:00-07:00", "2026-07-14T00:10:00-07:00")
        #expect(
            shares == [
                DayShare(day: CivilDay(parsing: "2026-07-13")!, fraction: 0.5),
                DayShare(day: CivilDay(parsing: "2026-07-14")!, fraction: 0.5),
            ])
        let zoned = try attribute(
            .splitByTime, "2026-07-13T23:50:00-07:00", "2026-07-14T00:10:00-07:00",
            zone: "America/Los_Angeles")
        #expect(zoned == shares)
    }

    @Test func sleepEndingInTheMorningLandsOnThatDate() throws {
        #expect(
            try attribute(
                .sleepEndPlusSixHours, "2026-07-13T22:30:00-07:00", "2026-07-14T06:40:00-07:00")
                == one("2026-07-14"))
        #expect(
            try attribute(
                .sleepEndPlusSixHours, "2026-07-14T01:00:00-07:00", "2026-07-14T06:40:00-07:00")
                == one("2026-07-14"))
    }

    @Test func sleepEndingInTheEveningLandsOnTheNextDate() throws {
        #expect(
            try attribute(
                .sleepEndPlusSixHours, "2026-07-14T11:00:00-07:00", "2026-07-14T19:00:00-07:00")
                == one("2026-07-15"))
        // The edge: local end 17:59:59.999 stays, 18:00 moves on.
        #expect(
            try attribute(
                .sleepEndPlusSixHours, "2026-07-14T11:00:00-07:00", "2026-07-14T17:59:59.999-07:00")
                == one("2026-07-14"))
        #expect(
            try attribute(
                .sleepEndPlusSixHours, "2026-07-14T11:00:00-07:00", "2026-07-14T18:00:00-07:00")
                == one("2026-07-15"))
        // The end's own offset decides, even when the start was written in another zone.
        #expect(
            try attribute(
                .sleepEndPlusSixHours, "2026-07-14T22:00:00+09:00", "2026-07-14T07:00:00-07:00")
                == one("2026-07-14"))
    }

    @Test func stepsAcrossNewYorkSpringForward() throws {
        // 23:00 EST on the 7th to 01:00 EDT on the 9th: 25 real hours; the 8th has only 23.
        let start = "2026-03-07T23:00:00-05:00"
        let end = "2026-03-09T01:00:00-04:00"
        let zoned = try attribute(.splitByTime, start, end, zone: "America/New_York")
        #expect(zoned == expected([("2026-03-07", 1), ("2026-03-08", 23), ("2026-03-09", 1)]))
        #expect(zoned.reduce(0) { $0 + $1.fraction } == 1.0)
        // Without a zone the start's offset draws the midnights: the 9th begins at 05:00Z, the end.
        let unzoned = try attribute(.splitByTime, start, end)
        #expect(unzoned == expected([("2026-03-07", 1), ("2026-03-08", 24)]))
    }

    @Test func stepsAcrossNewYorkFallBack() throws {
        let zoned = try attribute(
            .splitByTime, "2026-10-31T23:00:00-04:00", "2026-11-02T01:00:00-05:00",
            zone: "America/New_York")
        #expect(zoned == expected([("2026-10-31", 1), ("2026-11-01", 25), ("2026-11-02", 1)]))
    }

    @Test func aZoneThatSkippedADay() throws {
        // Samoa moved from -10 to +14 at the end of 2011-12-29 local: the 30th never happened.
        let shares = try attribute(
            .splitByTime, "2011-12-29T23:00:00-10:00", "2011-12-31T01:00:00+14:00",
            zone: "Pacific/Apia")
        #expect(shares == expected([("2011-12-29", 1), ("2011-12-31", 1)]))
        // Without the zone, the start's offset (-10) puts the second hour on the 30th.
        let unzoned = try attribute(
            .splitByTime, "2011-12-29T23:00:00-10:00", "2011-12-31T01:00:00+14:00")
        #expect(unzoned == expected([("2011-12-29", 1), ("2011-12-30", 1)]))
        // A heart-rate reading just after the jump is dated by the zone's new offset.
        #expect(
            try attribute(.startDay, "2011-12-30T10:30:00Z", zone: "Pacific/Apia")
                == one("2011-12-31"))
    }

    @Test func aZoneThatRepeatedADay() throws {
        // Alaska joined the US calendar in 1867: Juneau went from +15:02:19 to -08:57:41, so local
        // time fell back from the 19th to the 18th and the 19th came round again.
        let shares = try attribute(
            .splitByTime, "1867-10-19T00:00:00Z", "1867-10-19T12:00:00Z", zone: "America/Juneau")
        #expect(shares == expected([("1867-10-18", 30_388), ("1867-10-19", 1873 + 10_939)]))
    }

    @Test func instantaneousAndInvalidSamplesUseTheStartDay() throws {
        #expect(try attribute(.splitByTime, "2026-07-13T23:59:59.999-07:00") == one("2026-07-13"))
        #expect(try attribute(.splitByTime, "2026-07-14T00:00:00-07:00") == one("2026-07-14"))
        #expect(
            try attribute(.splitByTime, "2026-07-14T00:10:00-07:00", "2026-07-13T23:50:00-07:00")
                == one("2026-07-14"))
        #expect(
            try attribute(.startDay, "2026-07-13T23:50:00-07:00", "2026-07-14T08:00:00-07:00")
                == one("2026-07-13"))
        #expect(
            try attribute(
                .splitByTime, "2026-07-13T23:50:00-07:00", "2026-07-13T23:50:00.001-07:00")
                == one("2026-07-13"))
    }

    @Test func aSampleEndingAtMidnightDoesNotTouchTheNextDay() throws {
        #expect(
            try attribute(.splitByTime, "2026-07-13T23:00:00-07:00", "2026-07-14T00:00:00-07:00")
                == one("2026-07-13"))
        #expect(
            try attribute(.splitByTime, "2026-07-13T00:00:00-07:00", "2026-07-14T00:00:00-07:00")
                == one("2026-07-13"))
    }

    @Test func unknownZoneFallsBackToWrittenOffsets() throws {
        let shares = try attribute(
            .splitByTime, "2026-07-13T23:50:00-07:00", "2026-07-14T00:10:00-07:00",
            zone: "Mars/Olympus_Mons")
        #expect(shares == expected([("2026-07-13", 10), ("2026-07-14", 10)]))
        #expect(
            try attribute(.startDay, "2026-07-13T23:50:00-07:00", zone: "PST") == one("2026-07-13"))
    }

    @Test func longSamplesAreCapped() throws {
        let shares = try attribute(.splitByTime, "2020-01-01T12:00:00Z", "2030-01-01T00:00:00Z")
        #expect(shares.count == 367)
        #expect(shares.first?.day == CivilDay(parsing: "2020-01-01"))
        #expect(shares.last?.day == CivilDay(parsing: "2021-01-01"))
        #expect(shares.reduce(0) { $0 + $1.fraction } == 1.0)
        let extreme = DayAttribution.days(
            rule: .splitByTime, startMillis: Int64.max - 10, startOffset: 0, endMillis: Int64.max,
            endOffset: 0, zone: nil, zones: ZoneOffsets())
        #expect(extreme.count == 1)
        #expect(DayAttribution.maximumSpanMillis == 366 * 86_400_000)
    }

    // MARK: Properties

    @Test func splitsMatchAFoundationOracle() throws {
        var random = TimeTestsRandom(seed: 0x5_9117)
        let names = [
            "America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Chatham",
            "America/Santiago", "Asia/Kolkata", "Pacific/Apia",
        ]
        let zones = ZoneOffsets()
        let step: Int64 = 15 * 60_000
        for round in 0..<70 {
            let name = names[round % names.count]
            let timeZone = try #require(TimeZone(identifier: name))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            // 2000...2030, quarter-hour aligned, up to three days long; every other one starts
            // within two days before one of the zone's transitions, so most of those cross it.
            var start = 946_684_800_000 + Int64(random.next() % 946_080_000_000)
            if round % 2 == 0,
                let transition = timeZone.nextDaylightSavingTimeTransition(
                    after: Date(timeIntervalSince1970: Double(start) / 1000))
            {
                start =
                    Int64(transition.timeIntervalSince1970 * 1000)
                    - Int64(random.next() % 172_800_000)
            }
            start = start / step * step
            let end = start + Int64(1 + random.next() % (3 * 96)) * step
            var perDay: [CivilDay: Int64] = [:]
            var t = start
            while t < end {
                let c = calendar.dateComponents(
                    [.year, .month, .day], from: Date(timeIntervalSince1970: Double(t) / 1000))
                perDay[CivilDay(year: c.year!, month: c.month!, day: c.day!)!, default: 0] += step
                t += step
            }
            let oracle = perDay.sorted { $0.key < $1.key }
            let shares = DayAttribution.days(
                rule: .splitByTime, startMillis: start, startOffset: 0, endMillis: end,
                endOffset: 0,
                zone: name, zones: zones)
            #expect(shares.map(\.day) == oracle.map(\.key), "\(name) \(start) \(end)")
            for (share, (_, millis)) in zip(shares, oracle) {
                #expect(abs(share.fraction - Double(millis) / Double(end - start)) < 1e-12)
            }
        }
    }

    @Test func fractionsAreOrderedPositiveAndSumToOne() {
        var random = TimeTestsRandom(seed: 1)
        let zones = ZoneOffsets()
        let names: [String?] = [
            nil, "America/New_York", "Asia/Kathmandu", "Pacific/Kiritimati", "Europe/Dublin",
        ]
        for round in 0..<5_000 {
            let start = Int64(random.next() % 4_102_444_800_000)
            let length = Int64(random.next() % (round % 10 == 0 ? 40_000_000_000 : 400_000_000))
            let offset = Int32(Int64(random.next() % 93_601) - 46_800)
            let shares = DayAttribution.days(
                rule: .splitByTime, startMillis: start, startOffset: offset,
                endMillis: start + length,
                endOffset: offset, zone: names[round % names.count], zones: zones)
            #expect(!shares.isEmpty && shares.count <= 367)
            #expect(zip(shares, shares.dropFirst()).allSatisfy { $0.day < $1.day })
            #expect(shares.allSatisfy { $0.fraction > 0 && $0.fraction <= 1 })
            #expect(shares.reduce(0) { $0 + $1.fraction } == 1.0, "seed 1 round \(round)")
        }
    }

    // MARK: Server zone independence

    @Test func resultsDoNotDependOnTheServerZone() throws {
        let saved = getenv("TZ").map { String(cString: $0) }
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
            NSTimeZone.resetSystemTimeZone()
        }
        var fingerprints: [String] = []
        for serverZone in ["UTC", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati"] {
            setenv("TZ", serverZone, 1)
            tzset()
            NSTimeZone.resetSystemTimeZone()
            #expect(TimeZone.current.identifier == serverZone || serverZone == "UTC")
            fingerprints.append(try fingerprint())
        }
        #expect(Set(fingerprints).count == 1)
        #expect(fingerprints.first?.contains("2026-03-08 1.0") == true)
    }

    /// Every rule over a few samples, rendered as text.
    func fingerprint() throws -> String {
        var lines: [String] = []
        let samples: [(String, String, String?)] = [
            ("2026-03-08T07:00:00-08:00", "2026-03-08T07:00:00-08:00", nil),
            ("2026-07-13T23:50:00-07:00", "2026-07-14T00:10:00-07:00", nil),
            ("2026-03-07T23:00:00-05:00", "2026-03-09T01:00:00-04:00", "America/New_York"),
            ("2026-07-14T11:00:00-07:00", "2026-07-14T19:00:00-07:00", "America/Los_Angeles"),
            ("2011-12-29T23:00:00-10:00", "2011-12-31T01:00:00+14:00", "Pacific/Apia"),
        ]
        let zones = ZoneOffsets()
        for (start, end, zone) in samples {
            for rule in [Metric.DayRule.splitByTime, .startDay, .sleepEndPlusSixHours] {
                let shares = try attribute(rule, start, end, zone: zone, zones: zones)
                lines.append(
                    shares.map { "\($0.day.description) \($0.fraction)" }.joined(separator: ", "))
            }
            let s = try #require(RFC3339.parse(start))
            lines.append(RFC3339.format(millis: s.millis, offsetSeconds: s.offsetSeconds))
            lines.append(CivilDay.of(localMillis: s.millis).description)
        }
        return lines.joined(separator: "\n")
    }
}
