import Foundation
import Recount
import TestSupport
import Testing

/// `Rollup.compute`: one (user, metric, day) cell rebuilt from raw samples (contract §3.3–§3.5).
@Suite struct RollupTests {
    // MARK: Fixtures

    static let watch = SourceID(1)
    static let phone = SourceID(2)
    static let ring = SourceID(3)
    static let sourceTable: [SourceID: Source] = [
        watch: Source(origin: "com.apple.health.3E2F", device: "Apple Watch"),
        phone: Source(origin: "com.apple.health.81C5", device: "iPhone"),
        ring: Source(origin: "com.ouraring.oura", device: nil),
    ]
    static let byDefault = SourcePriority(configured: [], sources: sourceTable)
    static let phoneFirst = SourcePriority(configured: ["com.apple.health.81C5"], sources: sourceTable)

    /// Milliseconds of an RFC 3339 time; traps on a typo in a fixture.
    static func time(_ text: String) -> (millis: Int64, offset: Int32) {
        let parsed = RFC3339.parse(text)!
        return (parsed.millis, parsed.offsetSeconds)
    }

    static func sample(
        _ id: String, _ metric: Metric, _ start: String, _ end: String? = nil, value: Double? = nil,
        stage: SleepStage? = nil, source: SourceID = watch, zone: String? = nil, position: UInt64 = 1
    ) -> LiveSample {
        let s = time(start)
        let e = time(end ?? start)
        return LiveSample(
            id: SampleID(id), metric: metric, startMillis: s.millis, startOffset: s.offset,
            endMillis: e.millis, endOffset: e.offset, zone: zone, value: value, stage: stage,
            source: source, position: position)
    }

    static func day(_ text: String) -> CivilDay { CivilDay(parsing: text)! }

    static func compute(
        _ metric: Metric, _ day: String, _ samples: [LiveSample], priority: SourcePriority = byDefault
    ) -> RollupCell {
        Rollup.compute(
            metric: metric, day: Self.day(day), samples: samples, priority: priority, zones: ZoneOffsets())
    }

    static func share(_ cell: RollupCell, _ source: SourceID) -> RollupCell.SourceShare? {
        cell.sources.first { $0.source == source }
    }

    /// Whether `value` is within a few ulps' worth (1e-9 relative) of `expected`.
    static func close(_ value: Double?, _ expected: Double) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= 1e-9 * max(1, abs(expected))
    }

    static func name(_ source: SourceID) -> String {
        sourceTable[source].map { $0.device ?? $0.origin } ?? "source #\(source.rawValue)"
    }

    // MARK: Seed stories

    /// An hour of phone steps and an hour of watch steps overlapping by half: the watch's half hour
    /// is not counted twice.
    static let overlapping = [
        sample("p1", .steps, "2026-07-14T10:00:00-07:00", "2026-07-14T11:00:00-07:00", value: 3000, source: phone),
        sample("w1", .steps, "2026-07-14T10:30:00-07:00", "2026-07-14T11:30:00-07:00", value: 2000, source: watch),
    ]

    /// The merge packs each event in one word: a sum's five-day window leaves 33 bits for a
    /// sample's place (with its instant flag), sleep's 372 days 27. A place as large as a cell may
    /// hold, at the window's last instant, reads back whole and sorts by time first (the payload
    /// had a fixed 26 bits: a sum cell of 2^25 samples trapped every recompute of it).
    @Test func eventsPackTheLargestCellsPlaces() {
        let day = CivilDay(year: 2026, month: 7, day: 14)!
        for (window, flagBits) in [
            (Rollup.Window(around: day, daysBefore: 2, daysAfter: 3), 1),
            (Rollup.Window(around: day, daysBefore: 369, daysAfter: 3), 0),
        ] {
            let places = window.samplesPacked(flagBits: flagBits)
            #expect(places >= (flagBits == 1 ? 1 << 32 : 1 << 27))
            let payload = (places - 1) << flagBits | (1 << flagBits - 1)
            let last = window.key(window.end, .coverEnd, payload)
            #expect(window.time(last) == window.end)
            #expect(window.kind(last) == .coverEnd)
            #expect(window.payload(last) == payload)
            let before = window.key(window.end - 1, .instant, payload)
            #expect(before < last && window.key(window.start, .coverEnd, 0) < before)
        }
    }

    @Test func phoneAndWatchStepsAreNotDoubleCounted() throws {
        let cell = Self.compute(.steps, "2026-07-14", Self.overlapping)
        #expect(cell.value == 3500)
        #expect(cell.count == 2)
        let phone = try #require(Self.share(cell, Self.phone))
        #expect(phone.counted == 1500)
        #expect(phone.countedMillis == 1_800_000)
        #expect(phone.suppressed == 1500)
        #expect(phone.suppressedMillis == 1_800_000)
        #expect(phone.suppressedBy == Self.watch)
        let watch = try #require(Self.share(cell, Self.watch))
        #expect(watch.counted == 2000)
        #expect(watch.suppressed == 0)
        #expect(watch.suppressedBy == nil)
        #expect(cell.sources.map(\.source) == [Self.watch, Self.phone])
        #expect(
            cell.describe(naming: Self.name, ordering: <)
                == "steps 2026-07-14: 3,500 from 2 samples; Apple Watch 2,000 counted; "
                + "iPhone 1,500 counted, 1,500 suppressed by Apple Watch")
    }

    @Test func aConfiguredListMakesThePhoneWin() throws {
        let cell = Self.compute(.steps, "2026-07-14", Self.overlapping, priority: Self.phoneFirst)
        #expect(cell.value == 4000)
        let watch = try #require(Self.share(cell, Self.watch))
        #expect(watch.counted == 1000)
        #expect(watch.suppressed == 1000)
        #expect(watch.suppressedBy == Self.phone)
        #expect(Self.share(cell, Self.phone)?.counted == 3000)
    }

    @Test func samplesOfOneSourceNeverSuppressEachOther() {
        let samples = [
            Self.sample("a", .steps, "2026-07-14T10:00:00Z", "2026-07-14T11:00:00Z", value: 100),
            Self.sample("b", .steps, "2026-07-14T10:00:00Z", "2026-07-14T11:00:00Z", value: 50),
            Self.sample("c", .steps, "2026-07-14T10:30:00Z", value: 7),
        ]
        let cell = Self.compute(.steps, "2026-07-14", samples)
        #expect(cell.value == 157)
        #expect(
            cell.sources == [
                RollupCell.SourceShare(source: Self.watch, samples: 3, counted: 157, countedMillis: 7_200_000)
            ])
    }

    @Test func instantaneousSamplesCountUnlessCovered() throws {
        let samples = [
            Self.sample("w", .steps, "2026-07-14T10:00:00Z", "2026-07-14T11:00:00Z", value: 600),
            // Covered by the watch: suppressed. At the watch's end (half-open): counts.
            Self.sample("p1", .steps, "2026-07-14T10:15:00Z", value: 40, source: Self.phone),
            Self.sample("p2", .steps, "2026-07-14T11:00:00Z", value: 2, source: Self.phone),
            // A watch instant at the same instant as a phone instant wins it.
            Self.sample("p3", .steps, "2026-07-14T12:00:00Z", value: 9, source: Self.phone),
            Self.sample("w3", .steps, "2026-07-14T12:00:00Z", value: 1),
        ]
        let cell = Self.compute(.steps, "2026-07-14", samples)
        #expect(cell.value == 603)
        let phone = try #require(Self.share(cell, Self.phone))
        #expect(phone.counted == 2)
        #expect(phone.suppressed == 49)
        #expect(phone.suppressedBy == Self.watch)
        #expect(phone.samples == 3)
    }

    @Test func aSampleAcrossMidnightCountsOnBothDaysInProportion() {
        let samples = [
            Self.sample("s", .steps, "2026-07-13T23:50:00-07:00", "2026-07-14T00:10:00-07:00", value: 1200)
        ]
        #expect(Self.compute(.steps, "2026-07-13", samples).value == 600)
        #expect(Self.compute(.steps, "2026-07-14", samples).value == 600)
        #expect(Self.compute(.steps, "2026-07-15", samples).value == 0)
        let unevenly = [
            Self.sample("d", .distance, "2026-07-13T23:45:00-07:00", "2026-07-14T00:15:00-07:00", value: 90)
        ]
        #expect(Self.compute(.distance, "2026-07-13", unevenly).value == 45)
        let after = [
            Self.sample("d", .distance, "2026-07-13T23:40:00-07:00", "2026-07-14T00:10:00-07:00", value: 90)
        ]
        #expect(Self.close(Self.compute(.distance, "2026-07-13", after).value, 60))
        #expect(Self.close(Self.compute(.distance, "2026-07-14", after).value, 30))
    }

    @Test func theSampleOwnOffsetDecidesItsDay() {
        // 23:30 in Los Angeles is 06:30 UTC the next day: it stays on the 13th.
        let samples = [Self.sample("s", .steps, "2026-07-13T23:30:00-07:00", "2026-07-13T23:40:00-07:00", value: 10)]
        #expect(Self.compute(.steps, "2026-07-13", samples).value == 10)
        #expect(Self.compute(.steps, "2026-07-14", samples).count == 0)
    }

    @Test func losAngelesDaysOfTwentyThreeAndTwentyFiveHours() {
        let zone = "America/Los_Angeles"
        // Noon on the 7th to noon on the 9th, across spring forward: 12 + 23 + 12 real hours.
        let spring = [
            Self.sample("s", .steps, "2026-03-07T12:00:00-08:00", "2026-03-09T12:00:00-07:00", value: 4700, zone: zone)
        ]
        #expect(Self.close(Self.compute(.steps, "2026-03-08", spring).value, 2300))
        #expect(Self.close(Self.compute(.steps, "2026-03-07", spring).value, 1200))
        // Across fall back: 12 + 25 + 12.
        let fall = [
            Self.sample("f", .steps, "2026-10-31T12:00:00-07:00", "2026-11-02T12:00:00-08:00", value: 4900, zone: zone)
        ]
        #expect(Self.close(Self.compute(.steps, "2026-11-01", fall).value, 2500))
        #expect(Self.close(Self.compute(.steps, "2026-11-02", fall).value, 1200))
        // A phone sample over the whole 25-hour day, and a watch hour inside it in the repeated
        // 1 a.m.: the phone keeps 24 of its 25 hours.
        let mixed = [
            Self.sample(
                "p", .steps, "2026-11-01T00:00:00-07:00", "2026-11-02T00:00:00-08:00", value: 2500,
                source: Self.phone, zone: zone),
            Self.sample("w", .steps, "2026-11-01T01:00:00-08:00", "2026-11-01T02:00:00-08:00", value: 300, zone: zone),
        ]
        let cell = Self.compute(.steps, "2026-11-01", mixed)
        #expect(Self.close(cell.value, 2700))
        #expect(Self.share(cell, Self.phone)?.countedMillis == Int64(24 * 3_600_000))
        #expect(Self.share(cell, Self.phone)?.suppressedMillis == 3_600_000)
    }

    // MARK: Sleep

    /// Monday night's session as first delivered: in bed 23:45–06:40, asleep 6 h 20 m.
    static let firstNight = [
        sample("bed", .sleep, "2026-07-13T23:45:00-07:00", "2026-07-14T06:40:00-07:00", stage: .inBed),
        sample("c1", .sleep, "2026-07-13T23:50:00-07:00", "2026-07-14T03:00:00-07:00", stage: .core),
        sample("d1", .sleep, "2026-07-14T03:00:00-07:00", "2026-07-14T04:00:00-07:00", stage: .deep),
        sample("a1", .sleep, "2026-07-14T04:00:00-07:00", "2026-07-14T04:30:00-07:00", stage: .awake),
        sample("r1", .sleep, "2026-07-14T04:30:00-07:00", "2026-07-14T06:40:00-07:00", stage: .rem),
    ]

    @Test func aRevisedSleepSessionIsRebuiltNotAdded() {
        let first = Self.compute(.sleep, "2026-07-14", Self.firstNight)
        #expect(first.value == Double(6 * 3600 + 20 * 60))
        #expect(first.count == 5)
        // The revision replaces the stages (new ids, new boundaries): 6 h 55 m.
        let revised = [
            Self.sample("bed", .sleep, "2026-07-13T23:45:00-07:00", "2026-07-14T06:40:00-07:00", stage: .inBed),
            Self.sample("c2", .sleep, "2026-07-13T23:45:00-07:00", "2026-07-14T03:00:00-07:00", stage: .core),
            Self.sample("d2", .sleep, "2026-07-14T03:00:00-07:00", "2026-07-14T04:00:00-07:00", stage: .deep),
            Self.sample("r2", .sleep, "2026-07-14T04:00:00-07:00", "2026-07-14T06:40:00-07:00", stage: .rem),
            // Overlapping asleep samples of one source count once.
            Self.sample("x2", .sleep, "2026-07-14T05:00:00-07:00", "2026-07-14T06:00:00-07:00", stage: .asleep),
        ]
        let second = Self.compute(.sleep, "2026-07-14", revised)
        #expect(second.value == Double(6 * 3600 + 55 * 60))
        #expect(
            second.describe(naming: Self.name, ordering: <).hasPrefix("sleep 2026-07-14: 6h 55m asleep from 5 samples"))
        // Ending before 18:00 local, the night belongs to the 14th, not the 13th.
        #expect(Self.compute(.sleep, "2026-07-13", revised).value == 0)
    }

    @Test func sleepOfAPhoneAppIsMergedUnderTheWatch() throws {
        // A phone app says asleep 23:00–07:00; the watch covers 23:45–06:40 and says awake for
        // 30 minutes. The phone keeps only what the watch does not cover.
        let phone = Self.sample(
            "p", .sleep, "2026-07-13T23:00:00-07:00", "2026-07-14T07:00:00-07:00", stage: .asleep,
            source: Self.phone)
        let cell = Self.compute(.sleep, "2026-07-14", Self.firstNight + [phone])
        let watchSeconds = Double(6 * 3600 + 20 * 60)
        #expect(cell.value == watchSeconds + 45 * 60 + 20 * 60)
        let phoneShare = try #require(Self.share(cell, Self.phone))
        #expect(phoneShare.countedMillis == 65 * 60_000)
        #expect(phoneShare.suppressedMillis == (6 * 60 + 55) * 60_000)
        #expect(phoneShare.suppressedBy == Self.watch)
        // With the phone first, its whole night counts and the watch's is suppressed.
        let reversed = Self.compute(.sleep, "2026-07-14", Self.firstNight + [phone], priority: Self.phoneFirst)
        #expect(reversed.value == Double(8 * 3600))
        #expect(Self.share(reversed, Self.watch)?.suppressedMillis == Int64(watchSeconds) * 1000)
    }

    // MARK: Other metrics

    @Test func heartRateAndGlucoseGiveCountMinMaxMean() {
        let samples = [
            Self.sample("h1", .heartRate, "2026-07-14T08:00:00-07:00", value: 60),
            Self.sample("h2", .heartRate, "2026-07-14T09:00:00-07:00", value: 100, source: Self.phone),
            Self.sample("h3", .heartRate, "2026-07-14T09:00:00-07:00", value: 80),
            Self.sample("h4", .heartRate, "2026-07-15T00:00:00-07:00", value: 200),
            Self.sample("g1", .bloodGlucose, "2026-07-14T07:00:00-07:00", value: 5.5),
        ]
        let cell = Self.compute(.heartRate, "2026-07-14", samples)
        #expect(cell.count == 3)
        #expect(cell.minimum == 60 && cell.maximum == 100 && cell.value == 80)
        #expect(cell.sources.isEmpty)
        #expect(cell.description == "heart_rate 2026-07-14: mean 80 count/min, min 60, max 100 from 3 samples")
        let glucose = Self.compute(.bloodGlucose, "2026-07-14", samples)
        #expect(glucose.count == 1 && glucose.value == 5.5)
        let none = Self.compute(.heartRate, "2026-07-16", samples)
        #expect(none == RollupCell(metric: .heartRate, day: Self.day("2026-07-16"), count: 0, value: nil))
        #expect(none.description == "heart_rate 2026-07-16: no samples")
    }

    /// Readings whose sum overflows a double still have a finite mean.
    @Test func aMeanOfHugeReadingsIsFinite() {
        let huge = Double.greatestFiniteMagnitude
        let cell = Self.compute(
            .heartRate, "2026-07-14",
            [
                Self.sample("a", .heartRate, "2026-07-14T09:00:00Z", value: huge),
                Self.sample("b", .heartRate, "2026-07-14T10:00:00Z", value: huge),
            ])
        #expect(cell.value == huge && cell.count == 2 && cell.maximum == huge)
    }

    /// A sum past a double's range is infinite: its audit summary reads null, as `rollups`
    /// and the JSON outputs do (it read `inf`).
    @Test func anOverflowingSumReadsNullInItsSummary() {
        let huge = Double.greatestFiniteMagnitude
        let cell = Self.compute(
            .steps, "2026-07-14",
            [
                Self.sample("a", .steps, "2026-07-14T09:00:00Z", "2026-07-14T10:00:00Z", value: huge),
                Self.sample("b", .steps, "2026-07-14T10:00:00Z", "2026-07-14T11:00:00Z", value: huge),
            ])
        #expect(cell.value == .infinity)
        #expect(cell.description.hasPrefix("steps 2026-07-14: null from 2 samples"), "\(cell.description)")
    }

    @Test func weightIsTheLatestOfTheDay() {
        let samples = [
            Self.sample("a", .weight, "2026-07-14T07:00:00-07:00", value: 81.0, position: 9),
            Self.sample("b", .weight, "2026-07-14T20:00:00-07:00", value: 80.2, position: 3),
            Self.sample("c", .weight, "2026-07-14T12:00:00-07:00", value: 79.9, position: 5),
        ]
        let cell = Self.compute(.weight, "2026-07-14", samples)
        #expect(cell.value == 80.2 && cell.minimum == 79.9 && cell.maximum == 81.0 && cell.count == 3)
        // At the same instant, the later log position wins; then the id.
        let tied = [
            Self.sample("x", .weight, "2026-07-14T20:00:00-07:00", value: 70, position: 4),
            Self.sample("y", .weight, "2026-07-14T20:00:00-07:00", value: 71, position: 2),
        ]
        #expect(Self.compute(.weight, "2026-07-14", tied).value == 70)
        let sameWrite = [
            Self.sample("y", .weight, "2026-07-14T20:00:00-07:00", value: 71, position: 4),
            Self.sample("x", .weight, "2026-07-14T20:00:00-07:00", value: 70, position: 4),
        ]
        #expect(Self.compute(.weight, "2026-07-14", sameWrite).value == 71)
    }

    @Test func workoutsCountAndLastSeconds() {
        let samples = [
            Self.sample("r", .workout, "2026-07-14T06:00:00-07:00", "2026-07-14T06:45:00-07:00"),
            Self.sample("y", .workout, "2026-07-14T23:30:00-07:00", "2026-07-15T00:30:00-07:00", source: Self.phone),
            Self.sample("z", .workout, "2026-07-15T07:00:00-07:00", "2026-07-15T07:30:00-07:00"),
        ]
        let cell = Self.compute(.workout, "2026-07-14", samples)
        #expect(cell.count == 2)
        #expect(cell.value == Double(105 * 60))
        #expect(cell.description == "workout 2026-07-14: 2 workouts, 1h 45m")
    }

    @Test(arguments: Metric.allCases) func anEmptyDayIsAKnownZeroOrACountOfZero(metric: Metric) {
        let cell = Self.compute(metric, "2026-07-14", [])
        #expect(cell.count == 0)
        #expect(cell.sources.isEmpty)
        switch metric {
        case .steps, .distance, .activeEnergy, .sleep, .workout: #expect(cell.value == 0)
        case .heartRate, .bloodGlucose, .weight:
            #expect(cell.value == nil && cell.minimum == nil && cell.maximum == nil)
        }
    }

    // MARK: Priority

    @Test func theDefaultRankingPrefersWatchesThenOthersThenPhones() {
        let sources: [SourceID: Source] = [
            SourceID(10): Source(origin: "com.google.android.apps.fitness", device: "Pixel 8"),
            SourceID(11): Source(origin: "com.google.android.apps.fitness", device: "Pixel Watch 2"),
            SourceID(12): Source(origin: "com.ouraring.oura", device: nil),
            SourceID(13): Source(origin: "com.garmin.connect", device: "Forerunner 265"),
            SourceID(14): Source(origin: "com.apple.health.81C5", device: "iPhone"),
            SourceID(15): Source(origin: "com.apple.health.3E2F", device: "Apple WATCH"),
            SourceID(16): Source(origin: "com.ouraring.oura", device: "Gen3"),
        ]
        let priority = SourcePriority(configured: [], sources: sources)
        let ranked = sources.keys.sorted { priority.key(of: $0) < priority.key(of: $1) }
        #expect(ranked.map(\.rawValue) == [15, 11, 13, 12, 16, 14, 10])
        // An unknown source comes last; a listed origin first, its devices by the default rule.
        let listed = SourcePriority(configured: ["com.ouraring.oura", "com.apple.health.81C5"], sources: sources)
        let reranked = (sources.keys + [SourceID(99)]).sorted { listed.key(of: $0) < listed.key(of: $1) }
        #expect(reranked.map(\.rawValue) == [12, 16, 14, 15, 11, 13, 10, 99])
        #expect(listed.ranks(SourceID(14), above: SourceID(15)))
        #expect(SourcePriority.DefaultClass(Source(origin: "com.example.smartphone", device: nil)) == .phone)
    }

    // MARK: Randomised

    @Test func explanationsAddUpToTheSamplesOnTheDay() {
        var random = SplitMix64(seed: testSeed(0x5EED_0008))
        let zones = ZoneOffsets()
        for _ in 0..<300 {
            let workload = Workload.random(metric: .steps, using: &random)
            let cell = Rollup.compute(
                metric: .steps, day: workload.day, samples: workload.samples, priority: workload.priority,
                zones: zones)
            var expected: [SourceID: Double] = [:]
            for sample in workload.samples {
                let shares = DayAttribution.days(
                    rule: .splitByTime, startMillis: sample.startMillis, startOffset: sample.startOffset,
                    endMillis: sample.endMillis, endOffset: sample.endOffset, zone: sample.zone, zones: zones)
                for share in shares where share.day == workload.day {
                    expected[sample.source, default: 0] += sample.value! * share.fraction
                }
            }
            var counted = 0.0
            for share in cell.sources {
                let total = expected[share.source] ?? 0
                #expect(abs(share.counted + share.suppressed - total) <= 1e-9 * max(1, total))
                #expect((share.suppressedBy == nil) == (share.suppressedMillis == 0 && share.suppressed == 0))
                counted += share.counted
            }
            #expect(abs(counted - cell.value!) <= 1e-9 * max(1, counted))
        }
    }

    @Test(arguments: [Metric.steps, .sleep])
    func theSweepMatchesABruteForceReference(metric: Metric) {
        var random = SplitMix64(seed: testSeed(0xD1FF_0008 + UInt64(metric.rawValue)))
        let zones = ZoneOffsets()
        for _ in 0..<400 {
            Self.expectTheReference(
                metric: metric, workload: Workload.random(metric: metric, using: &random), zones: zones)
        }
    }

    /// Expects the sweep's cell of `workload` to be the brute-force reference's.
    static func expectTheReference(metric: Metric, workload: Workload, zones: ZoneOffsets) {
        let cell = Rollup.compute(
            metric: metric, day: workload.day, samples: workload.samples, priority: workload.priority, zones: zones)
        let reference = Reference.compute(metric: metric, workload: workload)
        #expect(cell.count == reference.count, "\(workload)")
        #expect(abs(cell.value! - reference.value) <= 1e-9 * max(1, reference.value), "\(workload)")
        #expect(cell.sources.map(\.source) == reference.sources.map(\.source), "\(workload)")
        for (fast, slow) in zip(cell.sources, reference.sources) {
            #expect(fast.samples == slow.samples)
            #expect(fast.countedMillis == slow.countedMillis, "\(workload)")
            #expect(fast.suppressedMillis == slow.suppressedMillis, "\(workload)")
            #expect(fast.suppressedBy == slow.suppressedBy, "\(workload)")
            #expect(abs(fast.counted - slow.counted) <= 1e-9 * max(1, slow.counted))
            #expect(abs(fast.suppressed - slow.suppressed) <= 1e-9 * max(1, slow.suppressed))
        }
    }

    /// Days where each sample has a source of its own, more sources than a machine word has
    /// bits: the sweep still matches the reference.
    @Test(arguments: [Metric.steps, .sleep])
    func manySourcesMatchTheBruteForceReference(metric: Metric) {
        var random = SplitMix64(seed: testSeed(0x5005_0008 + UInt64(metric.rawValue)))
        let zones = ZoneOffsets()
        for _ in 0..<10 {
            var workload = Workload.random(metric: metric, using: &random)
            let count = 70 + Int(random.next() % 80)
            var table: [SourceID: Source] = [:]
            var samples: [LiveSample] = []
            for index in 0..<count {
                var sample = workload.samples[index % workload.samples.count]
                sample.id = SampleID("m\(index)")
                sample.source = SourceID(UInt32(index + 10))
                let shift = Int64(random.next() % 96) * 900_000 - 43_200_000
                sample.startMillis += shift
                sample.endMillis += shift
                samples.append(sample)
                table[sample.source] = Source(
                    origin: "com.example.\(index % 7)", device: index % 3 == 0 ? nil : "d\(index)")
            }
            workload.samples = samples
            workload.priority = SourcePriority(configured: ["com.example.3"], sources: table)
            Self.expectTheReference(metric: metric, workload: workload, zones: zones)
        }
    }

    /// One upload of 30,000 overlapping samples from as many origins: the merge's memory grew
    /// with sources × samples (about 24 GB here, a crash on any real machine) and now grows
    /// with the samples.
    @Test(arguments: [Metric.steps, .sleep])
    func thirtyThousandSourcesInOneHourMergeInLinearMemory(metric: Metric) {
        let n = 30_000
        var table: [SourceID: Source] = [:]
        let samples = (0..<n).map { index in
            table[SourceID(UInt32(index))] = Source(origin: "com.example.\(index)", device: nil)
            return Self.sample(
                "s\(index)", metric, "2026-07-14T10:00:00Z", "2026-07-14T11:00:00Z",
                value: metric == .steps ? 1 : nil, stage: metric == .sleep ? .core : nil,
                source: SourceID(UInt32(index)))
        }
        let cell = Self.compute(metric, "2026-07-14", samples, priority: SourcePriority(configured: [], sources: table))
        let winner = cell.sources.first { $0.suppressedMillis == 0 }!.source
        #expect(cell.count == n)
        #expect(cell.value == (metric == .steps ? 1 : 3_600))
        #expect(cell.sources.count == n)
        #expect(cell.sources.allSatisfy { $0.source == winner || ($0.suppressedBy == winner && $0.countedMillis == 0) })
    }

    @Test(arguments: [Metric.steps, .sleep, .heartRate, .weight, .workout])
    func theOrderOfTheInputNeverChangesABit(metric: Metric) {
        var random = SplitMix64(seed: testSeed(0x0DE7_0008 + UInt64(metric.rawValue)))
        let zones = ZoneOffsets()
        for _ in 0..<200 {
            var workload = Workload.random(metric: metric, using: &random)
            // Twins: same times and source, other values, so the summing order shows.
            if let first = workload.samples.first {
                var twin = first
                twin.id = SampleID("twin")
                twin.value = first.value.map { $0 * 1.1 + 0.37 }
                workload.samples.append(twin)
            }
            let bytes = Rollup.compute(
                metric: metric, day: workload.day, samples: workload.samples, priority: workload.priority,
                zones: zones
            ).canonicalBytes
            for _ in 0..<3 {
                let shuffled = Rollup.compute(
                    metric: metric, day: workload.day, samples: workload.samples.shuffled(using: &random),
                    priority: workload.priority, zones: zones
                ).canonicalBytes
                #expect(shuffled == bytes, "\(workload)")
            }
        }
    }

    // MARK: Serialisation

    @Test func theCanonicalBytesHaveAFixedLayout() {
        let cell = RollupCell(
            metric: .steps, day: CivilDay(daysSinceEpoch: 2), count: 3, value: 1.5,
            sources: [RollupCell.SourceShare(source: SourceID(7), samples: 3, counted: 1.5, countedMillis: 60_000)])
        var expected: [UInt8] = [1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1]
        expected += [0, 0, 0, 0, 0, 0, 0xF8, 0x3F] + [UInt8](repeating: 0, count: 16)
        expected += [1, 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]
        expected += [0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0x60, 0xEA, 0, 0, 0, 0, 0, 0]
        expected += [UInt8](repeating: 0, count: 16) + [0, 0, 0, 0, 0]
        #expect(cell.canonicalBytes == expected)
    }

    @Test func aBusyDayStaysCheap() {
        // A smoke check of the sweep on ~300 samples of three sources (timed in release builds only
        // by the benchmarks; here it must just finish and stay consistent).
        var random = SplitMix64(seed: testSeed(0xB05_0008))
        var samples: [LiveSample] = []
        let midnight = Self.time("2026-07-14T00:00:00-07:00").millis
        for index in 0..<300 {
            let start = midnight + Int64(random.next() % 86_000_000)
            let source = SourceID(UInt32(1 + index % 3))
            samples.append(
                LiveSample(
                    id: SampleID("s\(index)"), metric: .steps, startMillis: start, startOffset: -25_200,
                    endMillis: start + Int64(random.next() % 600_000), endOffset: -25_200,
                    value: Double(random.next() % 500), source: source, position: UInt64(index)))
        }
        let zones = ZoneOffsets()
        let clock = ContinuousClock()
        var cell: RollupCell? = nil
        let elapsed = clock.measure {
            for _ in 0..<20 {
                cell = Rollup.compute(
                    metric: .steps, day: Self.day("2026-07-14"), samples: samples, priority: Self.byDefault,
                    zones: zones)
            }
        }
        print("aBusyDayStaysCheap: \(elapsed / 20) per day of 300 samples (debug build)")
        #expect(cell?.count == 300)
    }
}

/// A small random day: a handful of samples of up to three sources, with varied offsets, some
/// instantaneous (sums) or of every stage (sleep), around the 14th.
struct Workload: CustomStringConvertible {
    var day: CivilDay
    var samples: [LiveSample]
    var priority: SourcePriority

    static let sources: [SourceID: Source] = [
        SourceID(1): Source(origin: "com.apple.health.3E2F", device: "Apple Watch"),
        SourceID(2): Source(origin: "com.apple.health.81C5", device: "iPhone"),
        SourceID(3): Source(origin: "com.ouraring.oura", device: nil),
    ]

    /// The zone some samples name; the days include its 23- and 25-hour ones.
    static let zone = "America/Los_Angeles"

    static func random(metric: Metric, using random: inout SplitMix64) -> Workload {
        let days = ["2026-07-14", "2026-03-08", "2026-11-01"]
        let day = CivilDay(parsing: days[Int(random.next() % 3)])!
        let midnight = day.startLocalMillis
        let offsets: [Int32] = [0, -25_200, -28_800, 19_800, 3_600]
        let count = Int(random.next() % 10) + 1
        // Times on a coarse grid, so that boundaries often coincide.
        let grid: Int64 = [60_000, 900_000, 3_600_000][Int(random.next() % 3)]
        var samples: [LiveSample] = []
        for index in 0..<count {
            let start = midnight - 30 * 3_600_000 + Int64(random.next() % 80) * grid
            let instant = metric != .sleep && random.next() % 5 == 0
            let length = instant ? 0 : Int64(random.next() % 40 + 1) * grid
            let offset = offsets[Int(random.next() % UInt64(offsets.count))]
            samples.append(
                LiveSample(
                    id: SampleID("r\(index)"), metric: metric, startMillis: start, startOffset: offset,
                    endMillis: start + length, endOffset: offset, zone: random.next() % 3 == 0 ? zone : nil,
                    value: metric.kind == .quantity ? Double(random.next() % 1000) + 1 : nil,
                    stage: metric == .sleep ? SleepStage.allCases.randomElement(using: &random) : nil,
                    source: SourceID(UInt32(random.next() % 3) + 1), position: random.next() % 4))
        }
        let lists: [[String]] = [[], ["com.ouraring.oura"], ["com.apple.health.81C5", "com.apple.health.3E2F"]]
        let priority = SourcePriority(
            configured: lists[Int(random.next() % UInt64(lists.count))], sources: sources)
        return Workload(day: day, samples: samples, priority: priority)
    }

    var description: String {
        let lines = samples.map {
            "\($0.id) src\($0.source.rawValue) [\($0.startMillis), \($0.endMillis)) off \($0.startOffset) \($0.zone ?? "")"
                + "v \($0.value.map { "\($0)" } ?? "-") \($0.stage?.name ?? "")"
        }
        return "day \(day): " + lines.joined(separator: "; ")
    }
}

/// The obvious, slow merge: cut time at every sample boundary and every local midnight, and ask
/// each elementary interval which source covers it best.
enum Reference {
    struct Result {
        var count = 0
        var value = 0.0
        var sources: [RollupCell.SourceShare] = []
    }

    static func compute(metric: Metric, workload: Workload) -> Result {
        let samples = workload.samples
        let key = { (sample: LiveSample) in workload.priority.key(of: sample.source) }
        // Offsets straight from Foundation, not through `ZoneOffsets`.
        let pacific = TimeZone(identifier: Workload.zone)!
        let offset = { (sample: LiveSample, millis: Int64, written: Int32) -> Int64 in
            guard sample.zone != nil else { return Int64(written) * 1000 }
            return Int64(pacific.secondsFromGMT(for: Date(timeIntervalSince1970: Double(millis) / 1000))) * 1000
        }
        let dayOf = { (sample: LiveSample, millis: Int64) in
            CivilDay.of(localMillis: millis + offset(sample, millis, sample.startOffset))
        }
        var cuts = Set<Int64>()
        for sample in samples {
            cuts.insert(sample.startMillis)
            cuts.insert(sample.endMillis)
            for delta in -3...3 {
                let midnight = workload.day.advanced(by: Int32(delta)).startLocalMillis
                guard sample.zone != nil else {
                    cuts.insert(midnight - Int64(sample.startOffset) * 1000)
                    continue
                }
                // The instant of a local midnight: the candidate whose offset is its own.
                for candidate in [-25_200_000, -28_800_000] as [Int64]
                where offset(sample, midnight - candidate, 0) == candidate {
                    cuts.insert(midnight - candidate)
                }
            }
        }
        let points = cuts.sorted()
        var shares: [SourceID: RollupCell.SourceShare] = [:]
        var suppressors: [SourceID: [SourceID: Double]] = [:]
        var result = Result()
        func covers(_ sample: LiveSample, _ t: Int64) -> Bool {
            sample.startMillis <= t && t < sample.endMillis
        }
        func note(_ sample: LiveSample, winner: SourceID, amount: Double, millis: Int64) {
            var share = shares[sample.source] ?? RollupCell.SourceShare(source: sample.source)
            if winner == sample.source {
                share.counted += amount
                share.countedMillis += millis
            } else {
                share.suppressed += amount
                share.suppressedMillis += millis
                suppressors[sample.source, default: [:]][winner, default: 0] += amount
            }
            shares[sample.source] = share
        }
        if metric == .sleep {
            let sleepDay = { (sample: LiveSample) in
                CivilDay.of(
                    localMillis: sample.endMillis + offset(sample, sample.endMillis, sample.endOffset) + 6 * 3_600_000)
            }
            for sample in samples where sleepDay(sample) == workload.day {
                result.count += 1
                shares[sample.source, default: RollupCell.SourceShare(source: sample.source)].samples += 1
            }
            for (a, b) in zip(points, points.dropFirst()) {
                let covering = samples.filter { covers($0, a) }
                guard let best = covering.min(by: { key($0) < key($1) }) else { continue }
                let asleep = Set(
                    covering.filter { sleepDay($0) == workload.day && $0.stage!.isAsleep }.map(\.source))
                for source in asleep {
                    let stand = covering.first { $0.source == source }!
                    note(stand, winner: best.source, amount: Double(b - a) / 1000, millis: b - a)
                }
            }
        } else {
            var counted = Set<Int>()
            for (index, sample) in samples.enumerated() {
                if sample.startMillis == sample.endMillis {
                    guard dayOf(sample, sample.startMillis) == workload.day else { continue }
                    let t = sample.startMillis
                    let rivals = samples.filter { covers($0, t) || ($0.startMillis == t && $0.endMillis == t) }
                    let best = rivals.min(by: { key($0) < key($1) })!
                    note(sample, winner: best.source, amount: sample.value!, millis: 0)
                    counted.insert(index)
                    continue
                }
                let whole = Double(sample.endMillis - sample.startMillis)
                var perWinner: [SourceID: Int64] = [:]
                for (a, b) in zip(points, points.dropFirst())
                where covers(sample, a) && dayOf(sample, a) == workload.day {
                    let best = samples.filter { covers($0, a) }.min(by: { key($0) < key($1) })!
                    perWinner[best.source, default: 0] += b - a
                }
                for (winner, millis) in perWinner {
                    note(sample, winner: winner, amount: sample.value! * (Double(millis) / whole), millis: millis)
                    counted.insert(index)
                }
            }
            for index in counted {
                shares[samples[index].source, default: RollupCell.SourceShare(source: samples[index].source)]
                    .samples += 1
            }
            result.count = counted.count
        }
        for (source, share) in shares where share.samples > 0 {
            var share = share
            share.suppressedBy =
                suppressors[source]?.max { a, b in
                    a.value != b.value
                        ? a.value < b.value
                        : key(samples.first { $0.source == a.key }!) > key(samples.first { $0.source == b.key }!)
                }?.key
            if metric == .sleep {
                share.counted = Double(share.countedMillis) / 1000
                share.suppressed = Double(share.suppressedMillis) / 1000
            }
            result.sources.append(share)
            result.value += share.counted
        }
        result.sources.sort { $0.source < $1.source }
        return result
    }
}
