import Foundation
import TestSupport
import Testing

@testable import Recount

/// The fold at the id index and dirty-day level: the seeds' stories, without a disk.
@Suite struct ProjectionsTests {
    static let clock = Instant(millis: 1_784_000_000_000, offsetSeconds: 0)

    /// Decodes NDJSON envelopes as ingest does.
    static func envelopes(_ lines: [String]) throws -> [Envelope] {
        try lines.enumerated().map { number, line in
            try Array(line.utf8).withUnsafeBytes { try EnvelopeDecoder().decode(line: $0, number: number + 1) }
                .stamped(at: clock)
        }
    }

    /// Folds the envelopes at positions 1, 2, …; returns the projections and each effect.
    static func fold(_ lines: [String], into projections: inout Projections) throws -> [Projections.Effect] {
        try envelopes(lines).map { projections.apply($0, at: projections.position + 1) }
    }

    static func heartRate(_ i: Int, day: Int = 14) -> String {
        #"{"id":"hr-\#(i)","type":"HKQuantityTypeIdentifierHeartRate","start":"2026-07-\#(day)T\#(10 + i / 60):\#(String(format: "%02d", i % 60)):00-07:00","value":\#(60 + i % 40),"unit":"count/min","origin":"com.apple.health","device":"Apple Watch"}"#
    }

    static func delivery(
        anchor: String?, added: [String], deleted: [String] = [], received: String = "2026-07-14T20:00:00Z",
        type: String = "heart_rate"
    )
        -> String
    {
        let anchorJSON = anchor.map { "\"\($0)\"" } ?? "null"
        let deletions = deleted.map { #"{"uuid":"\#($0)"}"# }.joined(separator: ",")
        return
            #"{"kind":"healthkit.delivery","user":"alice","receivedAt":"\#(received)","type":"\#(type)","anchor":\#(anchorJSON),"newAnchor":"YQ==","added":[\#(added.joined(separator: ","))],"deleted":[\#(deletions)]}"#
    }

    /// The latest sample the fold keeps per user, where the user's days end, is the one a scan
    /// of the user's live ids finds, after every envelope of a random workload (samples at four
    /// offsets, rewritten in place, deleted, replaced by sync identity).
    @Test func theLatestSampleKeptPerUserIsTheOneAScanFinds() throws {
        var projections = Projections()
        for envelope in try Self.envelopes(RandomWorkload.lines(seed: testSeed(91), count: 400)) {
            _ = projections.apply(envelope, at: projections.position + 1)
            for user in projections.users.strings.indices.map(UInt32.init) {
                var scanned: Projections.LatestSample? = nil
                projections.index.forEachNumber(ofUser: user, in: .live) { number in
                    let sample = projections.latestSample(projections.index.record(number))
                    if scanned.map({ $0 < sample }) ?? true { scanned = sample }
                }
                #expect(projections.latestOffset(user: user) == scanned?.offsetSeconds ?? 0, "\(projections.position)")
            }
        }
        // A checkpoint loaded finds them again.
        let loaded = try Projections(checkpoint: projections.checkpoint())
        for user in projections.users.strings.indices.map(UInt32.init) {
            #expect(loaded.latestOffset(user: user) == projections.latestOffset(user: user))
        }
    }

    @Test func aFullReDeliveryAfterANilAnchorIsANoOp() throws {
        var projections = Projections()
        let readings = (0..<80).map { Self.heartRate($0) }
        let effects = try Self.fold(
            [
                Self.delivery(anchor: "YQ==", added: readings), Self.delivery(anchor: nil, added: readings),
                Self.delivery(anchor: nil, added: readings, received: "2026-07-15T20:00:00Z"),
            ], into: &projections)
        #expect(projections.index.live.count == 80)
        #expect(effects.map(\.newSamples) == [80, 0, 0])
        #expect(effects.map(\.knownSamples) == [0, 80, 80])
        #expect(effects.map(\.daysDirtied) == [1, 0, 0])
        // Each sample remembers the newest receivedAt that delivered it.
        #expect(projections.index.live.values.allSatisfy { $0.receivedAt == 1_784_145_600_000 })
        #expect(projections.index.live.values.allSatisfy { $0.sample.position == 1 })
    }

    /// A scratch replay that reads one cell (an audit's history) rebuilds that cell alone, as
    /// a full recompute would, and drops the other dirty days unbuilt.
    @Test func recomputingOneCellRebuildsItAsAllDoAndDropsTheOthers() throws {
        let lines = (10...12).map { day in
            #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-13T10:00:00Z","provider":"fitbit","samples":[{"id":"s\#(day)","type":"steps","start":"2026-07-\#(day)T10:00:00Z","end":"2026-07-\#(day)T11:00:00Z","value":\#(day),"unit":"count","origin":"o"}]}"#
        }
        var (one, all) = (Projections(), Projections())
        _ = try Self.fold(lines, into: &one)
        _ = try Self.fold(lines, into: &all)
        let user = try #require(one.users.id(of: "u1"))
        let key = Projections.CellKey(user: user, metric: .steps, day: try #require(CivilDay(parsing: "2026-07-11")))
        #expect(one.recomputeDroppingOthers(key) == 1)
        #expect(all.recompute() == 3)
        #expect(one.rollups[key] == all.rollups[key] && one.rollups[key]?.cell.value == 11)
        #expect(one.dirty.isEmpty && one.rollups.count == 1)
    }

    /// A sample of another date that meets a day's span but overlaps none of its samples is no
    /// input of the day's merge: the day keeps its version (rule 6). One that overlaps a sample
    /// of the day moves it.
    @Test func aNeighbouringSampleMovesADaysVersionOnlyWhenItOverlapsOneOfItsSamples() throws {
        func upsert(_ id: String, _ start: String, _ end: String, origin: String) -> String {
            #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-13T10:00:00Z","provider":"fitbit","samples":[{"id":"\#(id)","type":"steps","start":"\#(start)","end":"\#(end)","value":10,"unit":"count","origin":"\#(origin)"}]}"#
        }
        var projections = Projections()
        // The 12th (+02:00): 23:00–00:00Z and 18:00–18:30Z; its span runs from 23:00Z the day before.
        _ = try Self.fold(
            [
                upsert("a", "2026-07-12T01:00:00+02:00", "2026-07-12T02:00:00+02:00", origin: "o1"),
                upsert("b", "2026-07-12T20:00:00+02:00", "2026-07-12T20:30:00+02:00", origin: "o1"),
            ], into: &projections)
        projections.recompute()
        func version(_ day: String) throws -> UInt64? {
            let user = try #require(projections.users.id(of: "u1"))
            let key = Projections.CellKey(user: user, metric: .steps, day: try #require(CivilDay(parsing: day)))
            return projections.rollups[key]?.version
        }
        #expect(try version("2026-07-12") == 2)
        // The 11th in -07:00, 03:00–03:30Z on the 12th: inside the 12th's span, over none of its samples.
        _ = try Self.fold(
            [upsert("c", "2026-07-11T20:00:00-07:00", "2026-07-11T20:30:00-07:00", origin: "o1")], into: &projections)
        projections.recompute()
        #expect(try version("2026-07-11") == 3)
        #expect(try version("2026-07-12") == 2, "the 12th's inputs did not change")
        // 23:30–00:00Z from another origin overlaps `a`: an input of the 12th's merge.
        _ = try Self.fold(
            [upsert("d", "2026-07-11T16:30:00-07:00", "2026-07-11T17:00:00-07:00", origin: "o2")], into: &projections)
        projections.recompute()
        #expect(try version("2026-07-12") == 4)
    }

    @Test func anIdOnlyDeletionRemovesTheSampleAndDirtiesItsDay() throws {
        var projections = Projections()
        _ = try Self.fold(
            [Self.delivery(anchor: nil, added: [Self.heartRate(1), Self.heartRate(2, day: 15)])], into: &projections)
        let effects = try Self.fold([Self.delivery(anchor: "YQ==", added: [], deleted: ["hr-1"])], into: &projections)
        #expect(effects[0].deletedSamples == 1)
        #expect(projections.index.live.keys.map(\.id) == ["hr-2"])
        #expect(projections.dirty.days.contains { $0.value == 2 }, "the deletion's day is dirty as of its position")
    }

    @Test func aDeletionOfAnUnseenIdIsATombstoneAndTheLateAddStaysDeleted() throws {
        let lines = [
            Self.delivery(anchor: nil, added: [], deleted: ["hr-7"]),
            Self.delivery(anchor: "YQ==", added: [Self.heartRate(7)]),
        ]
        var projections = Projections()
        let effects = try Self.fold(lines, into: &projections)
        #expect(projections.index.live.isEmpty)
        #expect(effects[1].knownSamples == 1 && effects[1].newSamples == 0)
        // A checkpoint of the tombstone alone, before any source was interned, loads and folds
        // on alike (it was refused as damaged, and rebuilt from the log at every open; an
        // attack run).
        var tombstoneOnly = Projections()
        _ = try Self.fold([lines[0]], into: &tombstoneOnly)
        var resumed = try Projections(checkpoint: tombstoneOnly.checkpoint())
        #expect(resumed.digest() == tombstoneOnly.digest())
        _ = try Self.fold([lines[1]], into: &resumed)
        #expect(resumed.digest() == projections.digest())
    }

    @Test func syncVersionsOneThreeTwoLeaveVersionThree() throws {
        func sample(_ id: String, version: Int) -> String {
            #"{"id":"\#(id)","type":"heart_rate","start":"2026-07-14T10:00:00-07:00","value":\#(60 + version),"unit":"bpm","origin":"com.example.app","syncIdentifier":"s-1","syncVersion":\#(version)}"#
        }
        var projections = Projections()
        _ = try Self.fold(
            [1, 3, 2].map { Self.delivery(anchor: nil, added: [sample("v\($0)", version: $0)]) }, into: &projections)
        #expect(projections.index.live.count == 1)
        #expect(projections.index.live.values.first?.syncVersion == 3)
        #expect(projections.index.live.keys.first?.id == "v3")
    }

    /// A sync identity belongs to one metric: a heart rate under the identifier of a steps
    /// sample, with a higher version, is another sample and replaces nothing.
    @Test func aSyncIdentifierIsOneMetrics() throws {
        func sample(_ id: String, type: String, version: Int) -> String {
            #"{"id":"\#(id)","type":"\#(type)","start":"2026-07-14T10:00:00-07:00","end":"2026-07-14T10:30:00-07:00","value":\#(60 + version),"unit":"\#(type == "steps" ? "count" : "bpm")","origin":"com.example.app","syncIdentifier":"s-1","syncVersion":\#(version)}"#
        }
        var projections = Projections()
        _ = try Self.fold(
            [
                Self.delivery(anchor: nil, added: [sample("steps-1", type: "steps", version: 1)], type: "steps"),
                Self.delivery(anchor: "YQ==", added: [sample("hr-2", type: "heart_rate", version: 2)]),
                Self.delivery(anchor: "YQ==", added: [sample("steps-3", type: "steps", version: 3)], type: "steps"),
            ], into: &projections)
        #expect(projections.index.live.keys.map(\.id).sorted { $0.textPrecedes($1) } == ["hr-2", "steps-3"])
    }

    @Test func ownWritesReadBackAreIgnored() throws {
        var projections = Projections()
        let own = #"{"kind":"config.ownOrigins","user":"*","origins":["com.example.backend"]}"#
        let sample =
            #"{"id":"w-1","type":"weight","start":"2026-07-14T07:00:00+02:00","value":80,"unit":"kg","origin":"com.example.backend"}"#
        let upsert = #"{"kind":"samples.upsert","user":"bob","provider":"fitbit","samples":[\#(sample)]}"#
        let effects = try Self.fold([own, upsert], into: &projections)
        #expect(projections.index.live.isEmpty)
        #expect(effects[1].knownSamples == 1)
        // Nor do they give the user a provider: one that delivered only them would keep every
        // day of the metric from being known (found by an attack run, 2026-12-05).
        #expect(projections.syncStates.isEmpty)
    }

    /// A long own-origins list is searched, not scanned: each origin of it, whatever its place,
    /// is ignored, a canonically equivalent spelling too, and the others are not.
    @Test func aLongOwnOriginsListFindsEachOrigin() throws {
        let origins = (0..<1000).map { "com.example.\($0)" } + ["caf\u{E9}"]
        let list = origins.map { "\"\($0)\"" }.joined(separator: ",")
        let own = #"{"kind":"config.ownOrigins","user":"*","origins":[\#(list)]}"#
        let written = ["com.example.0", "com.example.999", "com.example.500", "cafe\u{301}", "com.example.1000", "a"]
        let samples = written.enumerated().map { index, origin in
            #"{"id":"w-\#(index)","type":"weight","start":"2026-07-14T07:00:00+02:00","value":80,"unit":"kg","origin":"\#(origin)"}"#
        }
        let upsert =
            #"{"kind":"samples.upsert","user":"bob","provider":"fitbit","samples":[\#(samples.joined(separator: ","))]}"#
        var projections = Projections()
        let effects = try Self.fold([own, upsert], into: &projections)
        #expect(effects[1].knownSamples == 4 && effects[1].newSamples == 2)
        #expect(projections.index.live.keys.map(\.id).sorted { $0.textPrecedes($1) } == ["w-4", "w-5"])
    }

    /// Writes of one id, some with `lastModified` and some without, settle on one sample the
    /// first time: by the contract's pairwise rule each of these three is newer than the one
    /// before, and ingesting them twice moved the day from 300 steps to 100 (rule 7).
    @Test func writesWithAndWithoutLastModifiedSettleAtOnce() throws {
        func write(received: String, value: Int, modified: String?) -> String {
            let stamp = modified.map { #","lastModified":"\#($0)""# } ?? ""
            return
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"\#(received)","provider":"fitbit","samples":[{"id":"x","type":"steps","start":"2026-07-14T09:00:00Z","end":"2026-07-14T09:30:00Z","value":\#(value),"unit":"count","origin":"com.fitbit"\#(stamp)}]}"#
        }
        let lines = [
            write(received: "2026-07-12T10:00:00Z", value: 100, modified: "2026-07-13T00:00:00Z"),
            write(received: "2026-07-12T20:00:00Z", value: 200, modified: nil),
            write(received: "2026-07-16T00:00:00Z", value: 300, modified: "2026-07-10T00:00:00Z"),
        ]
        var once = Projections()
        _ = try Self.fold(lines, into: &once)
        var twice = once
        _ = try Self.fold(lines, into: &twice)
        once.recompute()
        twice.recompute()
        #expect(SHA256.hex(twice.digest()) == SHA256.hex(once.digest()))
        // The latest modified (07-13) is newer than a write received on the 12th without one.
        let day = try once.rollupRows(user: "u1", metric: .steps, from: nil, to: nil)
        #expect(day.map(\.reading) == [.partial([RollupRow.Value(name: "value", value: 100)], .noCheckinSinceDayEnd)])
    }

    /// The orders of `items` (all of them: for the few writes of one id these tests fold).
    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard let first = items.first else { return [[]] }
        return permutations(Array(items.dropFirst())).flatMap { rest in
            (0...rest.count).map { index in
                var order = rest
                order.insert(first, at: index)
                return order
            }
        }
    }

    /// The digest of `lines` folded in order (and again, when `twice`), recomputed.
    static func digest(_ lines: [String], twice: Bool = false) throws -> (String, Projections) {
        var projections = Projections()
        _ = try fold(twice ? lines + lines : lines, into: &projections)
        projections.recompute()
        return (SHA256.hex(projections.digest()), projections)
    }

    /// The live samples `lines` leave, without the positions that wrote them (which another
    /// order of the same envelopes changes, and the digest holds).
    static func liveContent(_ lines: [String]) throws -> [IdIndex.Key: IdIndex.Entry] {
        var projections = Projections()
        _ = try fold(lines, into: &projections)
        return projections.index.live.mapValues { entry in
            var entry = entry
            entry.sample.position = 0
            return entry
        }
    }

    /// A write the held sample outlives does not make it newer: an older write (by
    /// `lastModified`) received later raised the held sample's `receivedAt`, and the newest
    /// write then lost in one order of the log (8 steps) and won in the other (215; an attack
    /// run, 2026-12-05).
    @Test func anIgnoredWriteLeavesTheHeldSampleAsNewAsItWas() throws {
        func write(received: String, value: Int, modified: String?) -> String {
            let stamp = modified.map { #","lastModified":"\#($0)""# } ?? ""
            return
                #"{"kind":"samples.upsert","user":"n","receivedAt":"\#(received)","provider":"p","samples":[{"id":"X","type":"steps","start":"2026-07-13T10:00:00Z","end":"2026-07-13T11:00:00Z","value":\#(value),"unit":"count","origin":"o"\#(stamp)}]}"#
        }
        let writes = [
            write(received: "2026-07-14T16:00:00Z", value: 8, modified: nil),
            write(received: "2026-07-16T16:00:00Z", value: 946, modified: "2026-07-14T03:00:00Z"),
            write(received: "2026-07-15T18:00:00Z", value: 215, modified: nil),
        ]
        let settled = try Self.liveContent(writes)
        #expect(settled.values.map(\.sample.value) == [215])
        for order in Self.permutations(writes) { #expect(try Self.liveContent(order) == settled) }
    }

    /// An id rewritten into another metric under the same sync identifier takes that metric's
    /// identity, whatever the version its old metric held: the lower version held the rewrite
    /// back the first time only, so ingesting the envelopes twice moved the id from heart rate
    /// to sleep (contract §3 rule 7; an attack run, 2026-12-05).
    @Test func aRewriteIntoAnotherMetricTakesThatMetricsSyncIdentity() throws {
        func write(_ id: String, received: String, _ sample: String, version: Int) -> String {
            #"{"kind":"samples.upsert","user":"b","receivedAt":"\#(received)","provider":"p","samples":[{"id":"\#(id)",\#(sample),"origin":"o","syncIdentifier":"y","syncVersion":\#(version)}]}"#
        }
        let writes = [
            write(
                "X", received: "2026-07-11T20:00:00Z",
                #""type":"heart_rate","start":"2026-07-11T02:00:00Z","value":57,"unit":"bpm""#, version: 3),
            write(
                "X", received: "2026-07-17T00:00:00Z",
                #""type":"sleep","start":"2026-07-14T20:00:00Z","end":"2026-07-15T02:00:00Z","stage":"asleep""#,
                version: 2),
            write(
                "Z", received: "2026-07-14T00:00:00Z",
                #""type":"sleep","start":"2026-07-11T10:00:00Z","end":"2026-07-11T11:00:00Z","stage":"inBed""#,
                version: 1),
        ]
        let (once, projections) = try Self.digest(writes)
        #expect(projections.index.live.map { "\($0.key.id) \($0.value.sample.metric.name)" } == ["X sleep"])
        #expect(try Self.digest(writes, twice: true).0 == once)
        let settled = try Self.liveContent(writes)
        for order in Self.permutations(writes) { #expect(try Self.liveContent(order) == settled) }
    }

    /// An id a reconcile deleted comes back with a write received after the reconcile, in any
    /// order of the log; writes received before it stay out. The reconcile left a tombstone for
    /// ever, and the newer write was dropped as already known in one order and kept in another
    /// (an attack run, 2026-12-05).
    @Test func aWriteReceivedAfterAReconcileBringsBackAnIdItDeleted() throws {
        func upsert(received: String, value: Int, hour: Int = 8) -> String {
            #"{"kind":"samples.upsert","user":"b","receivedAt":"\#(received)","provider":"garmin","samples":[{"id":"S","type":"steps","start":"2026-07-11T0\#(hour):00:00Z","end":"2026-07-11T0\#(hour):30:00Z","value":\#(value),"unit":"count","origin":"com.garmin"}]}"#
        }
        let reconcile =
            #"{"kind":"reconcile","user":"b","receivedAt":"2026-07-14T00:00:00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-11T00:00:00Z","to":"2026-07-11T09:00:00Z"},"samples":[]}"#
        let lines = [
            upsert(received: "2026-07-11T12:00:00Z", value: 386), reconcile,
            upsert(received: "2026-07-15T00:00:00Z", value: 142),
        ]
        let settled = try Self.liveContent(lines)
        #expect(settled.values.map(\.sample.value) == [142])
        for order in Self.permutations(lines) { #expect(try Self.liveContent(order) == settled) }
        #expect(try Self.digest(lines, twice: true).0 == (try Self.digest(lines).0))
        // Without the later write the deletion stands, and when the log comes again; but a write
        // received before the reconcile that moved the sample out of its window had replaced
        // the deleted version before the reconcile came, in receipt order, so it is live in
        // every order (logged after the reconcile, it stayed out until the reconcile's
        // tombstone let a newer write without a sync identity back).
        #expect(try Self.liveContent([lines[0], reconcile]).isEmpty)
        #expect(try Self.liveContent([lines[0], reconcile, lines[0], reconcile]).isEmpty)
        let movedOut = [lines[0], reconcile, upsert(received: "2026-07-12T00:00:00Z", value: 5, hour: 9)]
        for order in Self.permutations(movedOut) + [movedOut + movedOut] {
            #expect(try Self.liveContent(order).values.map(\.sample.value) == [5], "\(order)")
        }
        // A deletion naming the id makes the reconcile's tombstone one for ever.
        let deletion =
            #"{"kind":"samples.delete","user":"b","receivedAt":"2026-07-14T06:00:00Z","provider":"garmin","ids":["S"]}"#
        #expect(try Self.liveContent([lines[0], reconcile, deletion, lines[2]]).isEmpty)
    }

    /// What brings back an id a reconcile deleted is a write received at or after the reconcile
    /// and newer than the version it deleted. An older one (by `lastModified`) came back when
    /// the log was ingested again, and a write received at the reconcile's instant came in or
    /// not by the order of the two (a second attack run, 2026-12-05).
    @Test func onlyANewerWriteBringsBackAnIdAReconcileDeleted() throws {
        func upsert(received: String, value: Int, modified: String? = nil) -> String {
            let stamp = modified.map { #","lastModified":"\#($0)""# } ?? ""
            return
                #"{"kind":"samples.upsert","user":"u","receivedAt":"2026-07-20T00:\#(received):00Z","provider":"p","samples":[{"id":"c","type":"steps","start":"2026-07-14T02:00:00Z","end":"2026-07-14T02:30:00Z","value":\#(value),"unit":"count","origin":"com.x"\#(stamp)}]}"#
        }
        func reconcile(received: String) -> String {
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-20T00:\#(received):00Z","provider":"p","metric":"steps","window":{"from":"2026-07-14T00:00:00Z","to":"2026-07-14T12:00:00Z"},"samples":[]}"#
        }
        let older = [
            upsert(received: "02", value: 70, modified: "2026-07-18T00:00:00Z"),
            upsert(received: "10", value: 10, modified: "2026-07-12T00:00:00Z"), reconcile(received: "08"),
        ]
        #expect(try Self.liveContent(older).isEmpty)
        #expect(try Self.digest(older, twice: true).0 == (try Self.digest(older).0))
        #expect(try Self.liveContent([older[0], older[2], older[1]]).isEmpty, "in order of receipt")
        let tie = [upsert(received: "04", value: 70), reconcile(received: "05"), upsert(received: "05", value: 55)]
        #expect(try Self.liveContent(tie).values.map(\.sample.value) == [55])
        #expect(try Self.liveContent([tie[0], tie[2], tie[1]]) == (try Self.liveContent(tie)))
    }

    /// The version a reconcile deleted, delivered again after it (a later reconcile listing it,
    /// a page re-sent), is live in every order of the log. Received after the reconcile, the
    /// write was one the reconcile did not delete when logged before it; in receipt order it
    /// stayed out as no newer than the deleted version (an attack run's log-order permutation,
    /// 2026-12-06: a weight day unknown in one order and 65.56 kg in the other).
    @Test func theDeletedVersionDeliveredAfterTheReconcileComesBackInEveryOrder() throws {
        func sample(_ type: String) -> String {
            #"{"id":"X","type":"\#(type)","start":"2026-07-11T10:00:00Z","value":65.56,"unit":"kg","origin":"com.x","lastModified":"2026-07-04T19:56:06Z"}"#
        }
        let page =
            #"{"kind":"healthconnect.changes","user":"u","receivedAt":"2026-07-05T06:55:55Z","recordTypes":["Weight"],"token":"t","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":\#(sample("Weight"))}]}"#
        let missing =
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T04:26:22Z","provider":"health_connect","metric":"weight","window":{"from":"2026-07-08T00:00:00Z","to":"2026-07-26T18:00:00Z"},"samples":[]}"#
        let listing =
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-13T08:24:25Z","provider":"health_connect","metric":"weight","window":{"from":"2026-06-28T00:00:00Z","to":"2026-07-13T08:24:25Z"},"samples":[\#(sample("weight"))]}"#
        let resent = page.replacingOccurrences(of: "2026-07-05T06:55:55Z", with: "2026-07-14T00:00:00Z")
        for lines in [[page, missing, listing], [page, missing, resent]] {
            let settled = try Self.liveContent(lines)
            #expect(settled.values.map(\.sample.value) == [65.56])
            for order in Self.permutations(lines) { #expect(try Self.liveContent(order) == settled, "\(order)") }
        }
    }

    /// A Health Connect page writing sleep session `sl` of `user`, an hour from `start` (UTC),
    /// last modified at its receipt.
    static func sleepPage(_ user: String, received: String, start: String) -> String {
        let end = RFC3339.format(millis: RFC3339.parse(start)!.millis + 3_600_000, offsetSeconds: 0)
        return
            #"{"kind":"healthconnect.changes","user":"\#(user)","receivedAt":"\#(received)","recordTypes":["SleepSession"],"token":"t","nextChangesToken":"u","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"sl","type":"SleepSession","start":"\#(start)","end":"\#(end)","stage":"deep","origin":"com.watch","lastModified":"\#(received)"}}]}"#
    }

    /// A Health Connect write that moved a sample out of a reconcile's window, received before
    /// the reconcile, keeps it live in every order of the log: logged after the reconcile (which
    /// had deleted the older version, in its window), it stayed out, and the night read 6,000 s
    /// or none by log order (a random workload shuffled).
    @Test func aLateWriteThatMovedASampleOutOfAReconcilesWindowKeepsItInEveryOrder() throws {
        let lines = [
            Self.sleepPage("carol", received: "2026-07-23T03:06:10Z", start: "2026-07-12T02:12:00Z"),
            Self.sleepPage("carol", received: "2026-07-23T16:08:03Z", start: "2026-07-10T07:41:00Z"),
            #"{"kind":"reconcile","user":"carol","receivedAt":"2026-07-24T02:25:20Z","provider":"health_connect","metric":"sleep","window":{"from":"2026-07-12T00:00:00Z","to":"2026-07-24T02:25:20Z"},"samples":[]}"#,
        ]
        let settled = try Self.liveContent(lines)
        #expect(settled.values.map(\.sample.startMillis) == [RFC3339.parse("2026-07-10T07:41:00Z")!.millis])
        for order in Self.permutations(lines) { #expect(try Self.liveContent(order) == settled, "\(order)") }
    }

    /// A Health Connect write that moved a sample into a reconcile's window, received before the
    /// reconcile (which deleted it) but logged after it, takes the older version with it: in
    /// every order of the log the sample is gone. Until 2026-12-06 the late write stayed out
    /// and the older version, outside the window, stayed live (a random workload shuffled: a
    /// sleep session of 6,000 s or none).
    @Test func aLateWriteAReconcileDeletedTakesTheOlderVersionWithIt() throws {
        let lines = [
            Self.sleepPage("alice", received: "2026-07-21T22:17:46Z", start: "2026-07-10T12:14:00Z"),
            Self.sleepPage("alice", received: "2026-07-24T03:27:04Z", start: "2026-07-13T11:25:00Z"),
            #"{"kind":"reconcile","user":"alice","receivedAt":"2026-07-24T18:11:50Z","provider":"health_connect","metric":"sleep","window":{"from":"2026-07-12T00:00:00Z","to":"2026-07-24T18:11:50Z"},"samples":[]}"#,
        ]
        for order in Self.permutations(lines) { #expect(try Self.liveContent(order).isEmpty, "\(order)") }
    }

    /// A reconcile deletes only what it does not list, so a write it lists, received before it
    /// and logged after it, meets what it listed by newness alone: the newer write stays live in
    /// every order, and when the log comes again. (Until 2026-12-07 the reconcile's older
    /// listing won wherever it was logged first: 100 steps or 200 by log order, and a sleep
    /// session lost once such a log was ingested twice; an attack run.)
    @Test func aReconcileThatListsAnIdLeavesItsNewerWriteInEveryOrder() throws {
        func step(start: String, value: Int, modified: String) -> String {
            #"{"id":"b","type":"Steps","start":"2026-07-10T\#(start):00:00Z","end":"2026-07-10T\#(start):30:00Z","value":\#(value),"unit":"count","origin":"com.x","lastModified":"2026-07-11T\#(modified):00:00Z"}"#
        }
        let write =
            #"{"kind":"healthconnect.changes","user":"u","receivedAt":"2026-07-12T00:02:00Z","recordTypes":["Steps"],"token":"t","nextChangesToken":"t","hasMore":true,"changesTokenExpired":false,"changes":[{"upsertion":\#(step(start: "02", value: 200, modified: "03"))}]}"#
        let reconcile =
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:09:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-10T06:00:00Z"},"samples":[\#(step(start: "10", value: 100, modified: "00"))]}"#
        // A third write of the id as new as the first, starting outside the window.
        let tie = write.replacingOccurrences(of: "T02:", with: "T10:").replacingOccurrences(of: "200", with: "201")
        for lines in [[write, reconcile], [write, tie, reconcile]] {
            let settled = try Self.liveContent(lines)
            #expect(settled.count == 1 && settled.values.map(\.sample.value) != [100])
            for order in Self.permutations(lines) {
                #expect(try Self.liveContent(order) == settled, "\(order)")
                #expect(try Self.digest(order, twice: true).0 == (try Self.digest(order).0), "\(order)")
            }
        }
    }

    /// Of two writes of an id as new as each other (one `lastModified`), the one received later
    /// stays, in every order of the log, as "at least as new" replaces in receipt order: a
    /// reconcile received between them deletes the first, and the second comes back after it.
    /// (Ordered by content alone until 2026-12-07, the second lost to the reconcile's listed
    /// version where it was folded before the reconcile, and came back when the log was
    /// ingested again; an attack run.)
    @Test func ofTwoWritesAsNewTheOneReceivedLaterStaysInEveryOrder() throws {
        func night(_ start: String, minutes: Int) -> String {
            let end = RFC3339.format(millis: RFC3339.parse(start)!.millis + Int64(minutes) * 60_000, offsetSeconds: 0)
            return
                #"{"id":"c","type":"SleepSession","start":"\#(start)","end":"\#(end)","stage":"asleep","origin":"com.x","lastModified":"2026-07-11T03:00:00Z"}"#
        }
        let later =
            #"{"kind":"healthconnect.changes","user":"u","receivedAt":"2026-07-12T00:06:00Z","recordTypes":["SleepSession"],"token":"t","nextChangesToken":"t","hasMore":true,"changesTokenExpired":false,"changes":[{"upsertion":\#(night("2026-07-11T02:00:00Z", minutes: 112))}]}"#
        let lines = [
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:02:00Z","provider":"health_connect","metric":"sleep","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-10T22:00:00Z"},"samples":[\#(night("2026-07-10T10:00:00Z", minutes: 116))]}"#,
            later,
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:05:00Z","provider":"health_connect","metric":"sleep","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-11T06:00:00Z"},"samples":[]}"#,
        ]
        let start = RFC3339.parse("2026-07-11T02:00:00Z")!.millis
        for order in Self.permutations(lines) + Self.permutations([lines[0], later]) {
            #expect(try Self.liveContent(order).values.map(\.sample.startMillis) == [start], "\(order)")
            #expect(try Self.digest(order, twice: true).0 == (try Self.digest(order).0), "\(order)")
        }
    }

    /// Of two reconciles that both would delete an id, the one received first leaves the
    /// tombstone in every order of the log, so ingesting the log again changes nothing. (Until
    /// 2026-12-07 the one folded first kept it, and the write folded again moved the digest to
    /// the other: a random workload with late check-ins, ingested twice.)
    @Test func theFirstReconcileReceivedLeavesTheTombstoneInEveryOrder() throws {
        func reconcile(received: String, to: String) -> String {
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:\#(received):00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-10T\#(to):00:00Z"},"samples":[]}"#
        }
        let lines = [
            #"{"kind":"samples.upsert","user":"u","receivedAt":"2026-07-12T00:01:00Z","provider":"garmin","samples":[{"id":"b","type":"steps","start":"2026-07-10T02:00:00Z","end":"2026-07-10T02:30:00Z","value":10,"unit":"count","origin":"com.garmin"}]}"#,
            reconcile(received: "05", to: "06"), reconcile(received: "10", to: "12"),
        ]
        for order in Self.permutations(lines) {
            let (once, folded) = try Self.digest(order)
            #expect(try Self.digest(order, twice: true).0 == once, "\(order)")
            #expect(folded.index.live.isEmpty)
        }
    }

    /// A reconcile of a user with many ids looks for what it deletes in the cells of the days
    /// its window's samples count towards, not among all the user's ids: the same samples go as
    /// when the user has few ids. Among them, a sleep sample ending most of a year after its
    /// start (its cell is its end's), a steps sample split over three days (deleted once),
    /// and samples written at the offsets furthest from UTC.
    @Test func aReconcileDeletesTheSameSamplesWhetherItsUserHasFewIdsOrMany() throws {
        func upsert(received: String, provider: String = "p", _ samples: [String]) -> String {
            #"{"kind":"samples.upsert","user":"w","receivedAt":"\#(received)","provider":"\#(provider)","samples":[\#(samples.joined(separator: ","))]}"#
        }
        func sleep(_ id: String, _ start: String, _ end: String) -> String {
            #"{"id":"\#(id)","type":"sleep","start":"\#(start)","end":"\#(end)","stage":"asleep","origin":"o"}"#
        }
        func steps(_ id: String, _ start: String, _ end: String) -> String {
            #"{"id":"\#(id)","type":"steps","start":"\#(start)","end":"\#(end)","value":100,"unit":"count","origin":"o"}"#
        }
        func reconcile(_ metric: String, listing samples: [String]) -> String {
            #"{"kind":"reconcile","user":"w","receivedAt":"2026-07-20T00:00:00Z","provider":"p","metric":"\#(metric)","window":{"from":"2026-07-11T00:00:00Z","to":"2026-07-12T00:00:00Z"},"samples":[\#(samples.joined(separator: ","))]}"#
        }
        let kept = sleep("night", "2026-07-11T01:00:00Z", "2026-07-11T07:00:00Z")
        let lines = [
            upsert(
                received: "2026-07-19T00:00:00Z",
                [
                    sleep("year", "2026-07-11T23:00:00+05:00", "2027-07-01T08:00:00+05:00"), kept,
                    sleep("before", "2026-07-10T22:00:00Z", "2026-07-11T06:00:00Z"),
                    steps("split", "2026-07-11T12:00:00Z", "2026-07-13T12:00:00Z"),
                    steps("west", "2026-07-10T00:31:00-23:59", "2026-07-10T00:41:00-23:59"),
                    steps("east", "2026-07-12T23:29:00+23:59", "2026-07-12T23:39:00+23:59"),
                    steps("after", "2026-07-12T00:00:00Z", "2026-07-12T00:10:00Z"),
                ]),
            upsert(
                received: "2026-07-19T00:00:00Z", provider: "q",
                [steps("other", "2026-07-11T10:00:00Z", "2026-07-11T10:10:00Z")]),
            upsert(
                received: "2026-07-21T00:00:00Z",
                [steps("later", "2026-07-11T10:00:00Z", "2026-07-11T10:10:00Z")]),
            reconcile("sleep", listing: [kept]), reconcile("steps", listing: []),
        ]
        // More ids than the days a sleep window's samples can count towards (one's end lies
        // up to 366 days after its start).
        let readings = (0..<400).map { minute in
            let start = String(format: "2026-06-01T%02d:%02d:00Z", minute / 60, minute % 60)
            return
                #"{"id":"hr-\#(minute)","type":"heart_rate","start":"\#(start)","value":60,"unit":"bpm","origin":"o"}"#
        }
        let few = try Self.liveContent(lines)
        let many = try Self.liveContent([upsert(received: "2026-06-02T00:00:00Z", readings)] + lines)
        let ids = { (live: [IdIndex.Key: IdIndex.Entry]) in
            live.keys.map(\.id.text).filter { !$0.hasPrefix("hr-") }.sorted()
        }
        #expect(ids(few) == ["after", "before", "later", "night", "other"])
        #expect(ids(many) == ids(few))
        #expect(many.count == few.count + 400)
    }

    /// Two writes as new as each other received at one instant are ordered by their content's
    /// key, against a live sample and against the tombstone a reconcile left of it alike: the
    /// same sample is live in every order of the log. (Until 2026-12-07 a tombstone kept no
    /// content, and a write that had replaced the deleted version stayed out where logged after
    /// the reconcile; a re-run of an attack harness.)
    @Test func writesAsNewAtOneInstantMeetATombstoneAsTheyMeetALiveSample() throws {
        func steps(_ id: String, start: String, value: Int) -> String {
            #"{"id":"\#(id)","type":"steps","start":"2026-07-10T\#(start):00:00Z","end":"2026-07-10T\#(start):30:00Z","value":\#(value),"unit":"count","origin":"com.garmin"}"#
        }
        for value in 100...105 {
            let lines = [
                #"{"kind":"samples.upsert","user":"u","receivedAt":"2026-07-12T00:02:00Z","provider":"garmin","samples":[\#(steps("a", start: "02", value: value))]}"#,
                #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:02:00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-10T14:00:00Z","to":"2026-07-10T22:00:00Z"},"samples":[\#(steps("a", start: "10", value: 102))]}"#,
                #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:08:00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-10T06:00:00Z","to":"2026-07-10T22:00:00Z"},"samples":[]}"#,
            ]
            let settled = try Self.liveContent(lines)
            for order in Self.permutations(lines) {
                #expect(try Self.liveContent(order) == settled, "\(order)")
                #expect(try Self.liveContent(order + order) == settled, "\(order)")
            }
        }
    }

    /// Two reconciles of one window received at one instant each delete what they do not
    /// list: a write one of them lists and the other does not is gone in every order of the
    /// log, and when it comes again. (Until 2026-12-07 their ids were joined, and the write,
    /// folded after both, stayed live; an attack run.)
    @Test func twoReconcilesOfOneWindowAtOneInstantEachDeleteWhatTheyDoNotList() throws {
        func listing(_ id: String, start: String, modified: String) -> String {
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:12:00Z","provider":"health_connect","metric":"sleep","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-10T14:00:00Z"},"samples":[{"id":"\#(id)","type":"SleepSession","start":"2026-07-10T\#(start):00:00Z","end":"2026-07-10T\#(start):50:00Z","stage":"asleep","origin":"com.x","lastModified":"2026-07-11T\#(modified):00:00Z"}]}"#
        }
        let lines = [
            #"{"kind":"healthconnect.changes","user":"u","receivedAt":"2026-07-12T00:05:00Z","recordTypes":["SleepSession"],"token":"t","nextChangesToken":"t","hasMore":true,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"b","type":"SleepSession","start":"2026-07-10T02:00:00Z","end":"2026-07-10T03:55:00Z","stage":"asleep","origin":"com.x","lastModified":"2026-07-11T04:00:00Z"}}]}"#,
            listing("b", start: "18", modified: "00"), listing("a", start: "10", modified: "01"),
        ]
        for order in Self.permutations(lines) {
            #expect(try Self.liveContent(order).keys.map(\.id) == ["a"], "\(order)")
            #expect(try Self.liveContent(order + order) == (try Self.liveContent(order)), "\(order)")
            #expect(try Self.digest(order, twice: true).0 == (try Self.digest(order).0), "\(order)")
        }
    }

    /// A write a reconcile answered for, folded after a later write of the id that is older
    /// than it, leaves the reconcile's tombstone of its version: in receipt order the later
    /// write came after the reconcile deleted the id, and stayed out as no newer than what it
    /// deleted. (Until 2026-12-07 the later write stayed live whatever its version; an attack
    /// run.)
    @Test func aLaterWriteOlderThanTheOneAReconcileDeletedStaysOutInEveryOrder() throws {
        func write(received: String, start: String, value: Int, modified: String) -> String {
            #"{"kind":"healthconnect.changes","user":"u","receivedAt":"2026-07-12T00:\#(received):00Z","recordTypes":["Steps"],"token":"t","nextChangesToken":"t","hasMore":true,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"a","type":"Steps","start":"2026-07-10T\#(start):00:00Z","end":"2026-07-10T\#(start):30:00Z","value":\#(value),"unit":"count","origin":"com.x","lastModified":"2026-07-11T\#(modified):00:00Z"}}]}"#
        }
        let lines = [
            write(received: "00", start: "10", value: 102, modified: "04"),
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-12T00:03:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-10T22:00:00Z"},"samples":[]}"#,
            write(received: "11", start: "02", value: 105, modified: "03"),
        ]
        for order in Self.permutations(lines) { #expect(try Self.liveContent(order).isEmpty, "\(order)") }
    }

    /// A write that a reconcile answered for leaves that reconcile's tombstone of its version,
    /// also where another reconcile's tombstone of an older version holds the id: in receipt
    /// order the write had replaced that version, or come back after it was deleted, before the
    /// reconcile deleted the write. So an older write received after both stays out in every
    /// order that folds it after the write. (Until 2026-12-06 the older tombstone stayed, and the
    /// older write came back through it in 10 of those 60 orders. Folded before the write, it
    /// still comes back in some: which version the second reconcile deleted is known only once
    /// the write is folded, the per-id history the docs leave, Sync identity.)
    @Test func aWriteAReconcileAnsweredForLeavesItsTombstoneOverAnOlderOne() throws {
        func upsert(received: String, modified: String) -> String {
            #"{"kind":"samples.upsert","user":"u","receivedAt":"2026-07-\#(received)T00:00:00Z","provider":"garmin","samples":[{"id":"X","type":"steps","start":"2026-07-06T10:00:00Z","end":"2026-07-06T10:30:00Z","value":\#(Int(received)!),"unit":"count","origin":"com.garmin","lastModified":"2026-07-\#(modified)T00:00:00Z"}]}"#
        }
        func reconcile(received: String) -> String {
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-\#(received)T00:00:00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-05T00:00:00Z","to":"2026-07-08T00:00:00Z"},"samples":[]}"#
        }
        // In receipt order: the first reconcile deletes version 03, the write of version 11
        // comes back, the second reconcile deletes it, and version 09, received after both, is
        // older than what the second deleted.
        let (write, older) = (upsert(received: "11", modified: "11"), upsert(received: "14", modified: "09"))
        let lines = [
            upsert(received: "04", modified: "03"), reconcile(received: "10"), write, reconcile(received: "13"), older,
        ]
        let orders = Self.permutations(lines).filter { $0.firstIndex(of: write)! < $0.firstIndex(of: older)! }
        #expect(orders.count == 60)
        for order in orders { #expect(try Self.liveContent(order).isEmpty, "\(order)") }
    }

    /// A write a reconcile answered for, folded after the reconcile, meets the id's live sample
    /// as it would have in receipt order: a higher sync version received before the live lower
    /// one had replaced it before the reconcile deleted it, so the sample goes in every order;
    /// and a live sample received after the reconcile came after both, so it stays, whatever
    /// its version. (Logged after both writes, the reconcile meets the higher version live and
    /// deletes it, and the lower one received after the reconcile does not come back: one of the
    /// sync-identity orders the docs leave, Sync identity.)
    @Test func aWriteAReconcileAnsweredForMeetsTheSyncVersionAsInReceiptOrder() throws {
        func upsert(received: String, start: String, value: Int, version: Int) -> String {
            #"{"kind":"samples.upsert","user":"u","receivedAt":"2026-07-\#(received)T00:00:00Z","provider":"garmin","samples":[{"id":"X","type":"steps","start":"2026-07-\#(start)T10:00:00Z","end":"2026-07-\#(start)T10:30:00Z","value":\#(value),"unit":"count","origin":"com.garmin","syncIdentifier":"s","syncVersion":\#(version)}]}"#
        }
        let reconcile =
            #"{"kind":"reconcile","user":"u","receivedAt":"2026-07-10T00:00:00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-05T00:00:00Z","to":"2026-07-08T00:00:00Z"},"samples":[]}"#
        func values(_ lines: [String]) throws -> [Double] {
            try Self.liveContent(lines).values.map { $0.sample.value ?? 0 }
        }
        // Both writes before the reconcile: gone, in every order.
        let (higher, lower) = (
            upsert(received: "07", start: "06", value: 300, version: 2),
            upsert(received: "08", start: "01", value: 120, version: 1)
        )
        for order in Self.permutations([higher, lower, reconcile]) { #expect(try values(order).isEmpty, "\(order)") }
        // The lower version received after the reconcile: live in receipt order, and wherever
        // the reconcile is folded before the higher version.
        let (early, late) = (
            upsert(received: "09", start: "06", value: 300, version: 2),
            upsert(received: "12", start: "01", value: 120, version: 1)
        )
        for order in [
            [early, reconcile, late], [late, reconcile, early], [reconcile, late, early], [reconcile, early, late],
        ] {
            #expect(try values(order) == [120], "\(order)")
        }
    }

    /// A higher version of an id's sync identity wins whatever the order its deliveries are
    /// logged in: the lower version received later is ignored in receipt order, and the higher
    /// one logged after it replaced it, though received before (it was absorbed as an older
    /// write of the id: an attack run's log-order permutation, 2026-12-06).
    @Test func aHigherSyncVersionOfAnIdWinsInEveryLogOrder() throws {
        func delivery(received: String, value: Int, version: Int) -> String {
            #"{"kind":"healthkit.delivery","user":"u","receivedAt":"\#(received)","type":"steps","anchor":null,"newAnchor":"QQ==","added":[{"id":"8DE16BAD-914E-4C5B-8051-8CADCCE41694","type":"steps","start":"2026-07-06T22:09:00Z","end":"2026-07-07T01:09:00Z","value":\#(value),"unit":"count","origin":"app","syncIdentifier":"s","syncVersion":\#(version)}],"deleted":[]}"#
        }
        let lines = [
            delivery(received: "2026-07-07T15:08:00Z", value: 963, version: 3),
            delivery(received: "2026-07-12T22:15:05Z", value: 2990, version: 2),
        ]
        let settled = try Self.liveContent(lines)
        #expect(settled.values.map(\.sample.value) == [963])
        #expect(try Self.liveContent(lines.reversed()) == settled)
    }

    /// A `*` `config.sources` default dirties only the users it ranks for: one with a list of
    /// their own keeps their days and versions (an attack run saw a row in `changes` for a
    /// cell whose inputs had not changed, 300 then 300).
    @Test func aDefaultPriorityLeavesAloneUsersWithTheirOwn() throws {
        func upsert(_ user: String, _ id: String, _ value: Int, origin: String) -> String {
            #"{"kind":"samples.upsert","user":"\#(user)","provider":"fitbit","samples":[{"id":"\#(id)","type":"steps","start":"2026-07-14T10:00:00Z","end":"2026-07-14T11:00:00Z","value":\#(value),"unit":"count","origin":"\#(origin)"}]}"#
        }
        func priority(_ user: String, _ origins: String) -> String {
            #"{"kind":"config.sources","user":"\#(user)","metric":"steps","priority":[\#(origins)]}"#
        }
        var projections = Projections()
        _ = try Self.fold(
            [
                priority("u1", #""app.b","app.a""#), upsert("u1", "1", 100, origin: "app.a"),
                upsert("u1", "2", 300, origin: "app.b"), upsert("u2", "1", 100, origin: "app.a"),
                upsert("u2", "2", 300, origin: "app.b"),
            ], into: &projections)
        projections.recompute()
        let effects = try Self.fold([priority("*", #""app.a","app.b""#)], into: &projections)
        #expect(projections.dirtyRows().map(\.user) == ["u2"])
        #expect(effects[0].daysDirtied == 1)
        // The same list again, or u1's own list given as the default's, changes no ranking.
        projections.recompute()
        let again = try Self.fold(
            [priority("*", #""app.a","app.b""#), priority("u2", #""app.a","app.b""#)], into: &projections)
        #expect(again.map(\.daysDirtied) == [0, 0])
    }

    /// Health Connect replaces a record in place: the old day and the new day are both dirty;
    /// an older `lastModified` arriving later is ignored.
    @Test func aHealthConnectUpsertInPlaceDirtiesBothDaysAndAnOlderWriteIsIgnored() throws {
        func page(start: String, modified: String) -> String {
            #"{"kind":"healthconnect.changes","user":"bob","recordTypes":["SleepSession"],"token":"t","nextChangesToken":"u","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"hc-sleep","type":"SleepSession","start":"\#(start)","end":"2026-07-14T06:40:00+02:00","stage":"asleep","origin":"com.google.android.apps.fitness","lastModified":"\#(modified)"}}]}"#
        }
        var projections = Projections()
        _ = try Self.fold(
            [page(start: "2026-07-13T23:45:00+02:00", modified: "2026-07-14T07:00:00+02:00")], into: &projections)
        _ = try Self.fold(
            [
                page(start: "2026-07-13T22:00:00+02:00", modified: "2026-07-14T19:00:00+02:00"),
                page(start: "2026-07-13T23:45:00+02:00", modified: "2026-07-14T07:00:00+02:00"),
            ], into: &projections)
        #expect(projections.index.live.count == 1)
        #expect(projections.index.live.values.first?.sample.startMillis == 1_783_972_800_000)
        #expect(projections.index.live.values.first?.sample.position == 2)
    }

    /// A reconcile deletes the provider's live samples in its window that it does not list and
    /// that were last written before it; it leaves the others, and other users' samples. The
    /// same holds after a checkpoint is loaded (which rebuilds each user's ids and rollup days).
    @Test func aReconcileDeletesWhatTheWindowNoLongerHolds() throws {
        func sample(_ id: String, _ time: String) -> String {
            #"{"id":"\#(id)","type":"steps","start":"\#(time)","end":"\#(time)","value":10,"unit":"count","origin":"com.fitbit"}"#
        }
        func upsert(_ user: String) -> String {
            #"{"kind":"samples.upsert","user":"\#(user)","receivedAt":"2026-07-14T10:00:00Z","provider":"fitbit","samples":[\#(sample("a", "2026-07-14T08:00:00Z")),\#(sample("b", "2026-07-14T09:00:00Z")),\#(sample("c", "2026-07-16T09:00:00Z"))]}"#
        }
        let reconcile =
            #"{"kind":"reconcile","user":"bob","receivedAt":"2026-07-15T10:00:00Z","provider":"fitbit","metric":"steps","window":{"from":"2026-07-14T00:00:00Z","to":"2026-07-15T00:00:00Z"},"samples":[\#(sample("a", "2026-07-14T08:00:00Z"))]}"#
        var projections = Projections()
        let effects = try Self.fold([upsert("alice"), upsert("bob"), reconcile], into: &projections)
        func liveIDs(_ projections: Projections, _ user: String) -> [String] {
            projections.index.live.keys.filter { projections.users[$0.user] == user }.map(\.id.text).sorted()
        }
        #expect(liveIDs(projections, "bob") == ["a", "c"])
        #expect(liveIDs(projections, "alice") == ["a", "b", "c"])
        #expect(effects[2].deletedSamples == 1 && effects[2].knownSamples == 1)

        var upserted = Projections()
        _ = try Self.fold([upsert("alice"), upsert("bob")], into: &upserted)
        upserted.recompute()
        var resumed = try Projections(checkpoint: upserted.checkpoint())
        _ = try Self.fold([reconcile], into: &resumed)
        projections.recompute()
        resumed.recompute()
        #expect(resumed.digest() == projections.digest())
        for user in ["alice", "bob"] {
            let rows = try resumed.rollupRows(user: user, metric: .steps, from: nil, to: nil)
            #expect(rows.map(\.date) == ["2026-07-14", "2026-07-15", "2026-07-16"], "\(user)")
            #expect(rows == (try projections.rollupRows(user: user, metric: .steps, from: nil, to: nil)))
        }
    }

    /// A user's `config.sources` for a metric dirties exactly the days of that user's samples of
    /// the metric, per provider; the `*` default dirties every user's.
    @Test func aSourcePriorityChangeDirtiesTheDaysItRanks() throws {
        func upsert(_ user: String, _ provider: String, _ type: String, _ start: String, _ end: String) -> String {
            #"{"kind":"samples.upsert","user":"\#(user)","provider":"\#(provider)","samples":[{"id":"\#(type)-\#(start)","type":"\#(type)","start":"\#(start)","end":"\#(end)","value":10,"unit":"\#(type == "steps" ? "count" : "bpm")","origin":"com.phone"}]}"#
        }
        func priority(_ user: String) -> String {
            #"{"kind":"config.sources","user":"\#(user)","metric":"steps","priority":["com.watch"]}"#
        }
        var projections = Projections()
        _ = try Self.fold(
            [
                upsert("alice", "fitbit", "steps", "2026-07-14T23:30:00Z", "2026-07-15T00:30:00Z"),
                upsert("alice", "garmin", "steps", "2026-07-16T08:00:00Z", "2026-07-16T08:30:00Z"),
                upsert("alice", "fitbit", "heart_rate", "2026-07-17T10:00:00Z", "2026-07-17T10:00:00Z"),
                upsert("bob", "fitbit", "steps", "2026-07-18T10:00:00Z", "2026-07-18T10:30:00Z"),
            ], into: &projections)
        projections.recompute()
        func dirty() -> [String] { projections.dirtyRows().map { "\($0.user) \($0.provider) \($0.metric) \($0.date)" } }

        let forAlice = try Self.fold([priority("alice")], into: &projections)
        #expect(
            dirty() == [
                "alice fitbit steps 2026-07-14", "alice fitbit steps 2026-07-15", "alice garmin steps 2026-07-16",
            ])
        #expect(forAlice[0].daysDirtied == 3)
        let forEveryone = try Self.fold([priority("*")], into: &projections)
        #expect(dirty().last == "bob fitbit steps 2026-07-18" && dirty().count == 4)
        #expect(forEveryone[0].daysDirtied == 1)
        // A ranking decides only overlap merges: heart rate's days keep their versions (an
        // attack run saw them move, their values unchanged).
        let heartRate = #"{"kind":"config.sources","user":"alice","metric":"heart_rate","priority":["com.watch"]}"#
        #expect(try Self.fold([heartRate], into: &projections)[0].daysDirtied == 0)
        #expect(dirty().count == 4)
    }

    /// Folding every envelope a second time (at later positions) changes nothing.
    @Test func reIngestingEveryEnvelopeGivesTheSameDigest() throws {
        let lines = [
            #"{"kind":"config.sources","user":"*","metric":"steps","priority":["com.apple.health.watch"]}"#,
            Self.delivery(anchor: nil, added: (0..<5).map { Self.heartRate($0) }),
            Self.delivery(anchor: "YQ==", added: [], deleted: ["hr-2", "hr-9"]),
        ]
        var once = Projections()
        _ = try Self.fold(lines, into: &once)
        var twice = Projections()
        _ = try Self.fold(lines + lines, into: &twice)
        #expect(SHA256.hex(once.digest()) == SHA256.hex(twice.digest()))
        var other = Projections()
        _ = try Self.fold(lines.reversed(), into: &other)
        #expect(SHA256.hex(once.digest()) != SHA256.hex(other.digest()), "the digest sees the content")
    }

    /// A checkpoint loaded and the rest of the log folded gives what folding it all gives; a
    /// damaged checkpoint is refused.
    @Test func aCheckpointPlusTheTailIsTheWholeFold() throws {
        let lines = [
            #"{"kind":"config.sources","user":"*","metric":"steps","priority":["com.apple.health.watch"]}"#,
            #"{"kind":"config.ownOrigins","user":"bob","origins":["com.example.backend"]}"#,
            Self.delivery(anchor: nil, added: (0..<5).map { Self.heartRate($0) }),
            Self.delivery(anchor: "YQ==", added: [], deleted: ["hr-2", "hr-9"]),
            Self.delivery(anchor: "YQ==", added: (5..<9).map { Self.heartRate($0, day: 15) }),
        ]
        var whole = Projections()
        _ = try Self.fold(lines, into: &whole)
        for cut in 0...lines.count {
            var prefix = Projections()
            _ = try Self.fold(Array(lines[..<cut]), into: &prefix)
            var resumed = try Projections(checkpoint: prefix.checkpoint())
            #expect(resumed.digest() == prefix.digest())
            _ = try Self.fold(Array(lines[cut...]), into: &resumed)
            #expect(resumed.digest() == whole.digest(), "cut at \(cut)")
        }
        var damaged = whole.checkpoint()
        damaged.removeLast()
        #expect(throws: CheckpointReader.Malformed.self) { try Projections(checkpoint: damaged) }
        // Whole, but folded with other zone data: refused, and told apart from damage (it is
        // named as such among the checkpoints an engine could not use).
        let version = Array(whole.zones.dataVersion.utf8)
        var otherZones = whole.checkpoint()
        let at = try #require(
            otherZones.indices.first {
                otherZones[$0..<min($0 + version.count, otherZones.count)].elementsEqual(version)
            })
        otherZones[at] = otherZones[at] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect { try Projections(checkpoint: otherZones) } throws: { error in
            (error as? CheckpointReader.Malformed)?.otherZoneData
                == String(decoding: otherZones[at..<(at + version.count)], as: UTF8.self)
        }
    }

    /// A checkpoint of some users' projections (a range's part, when it splits) loads as the
    /// fold of those users' envelopes and `*`'s alone, at the same positions, and folds on as
    /// that fold does: ids, tombstones, dirty days, rollups and sync state alike.
    @Test(arguments: ["alice-2", "bob-1", "carol-3"])
    func aCheckpointOfSomeUsersIsTheFoldOfTheirEnvelopes(cut: String) throws {
        let envelopes = try Self.envelopes(ProjectionRangesTests.lines(seed: testSeed(33)))
        let (recomputedAt, splitAt) = (100, 160)
        /// Folds `envelopes[range]` that `kept` keeps at their positions, recomputing where
        /// the whole fold does.
        func fold(_ range: Range<Int>, into projections: inout Projections, keeping kept: (String) -> Bool) {
            for number in range {
                if kept(envelopes[number].user) { _ = projections.apply(envelopes[number], at: UInt64(number + 1)) }
                if number + 1 == recomputedAt { _ = projections.recompute() }
            }
            projections.advance(through: UInt64(range.upperBound))
        }
        var whole = Projections()
        fold(0..<splitAt, into: &whole) { _ in true }
        #expect(!whole.dirty.isEmpty, "the parts take dirty days with them")
        for keep in [{ $0 < cut }, { $0 >= cut }] as [(String) -> Bool] {
            let kept = { (user: String) in user == "*" || keep(user) }
            let selection = whole.selection(keepingUsers: kept)
            var bytes = CanonicalBytes()
            whole.writeCheckpoint(&bytes, keeping: selection)
            var part = try Projections(checkpoint: bytes.bytes)
            var alone = Projections()
            fold(0..<splitAt, into: &alone, keeping: kept)
            #expect(part.digest() == alone.digest())
            #expect(selection.size == alone.rangeSize && alone.checkinCount > 0)
            #expect(selection.dirtyDays == alone.dirty.count)
            #expect(part.users.strings.count < whole.users.strings.count)
            fold(splitAt..<envelopes.count, into: &part, keeping: kept)
            fold(splitAt..<envelopes.count, into: &alone, keeping: kept)
            _ = (part.recompute(), alone.recompute())
            #expect(part.digest() == alone.digest())
        }
    }

    /// A checkpoint keeps the ids each reconcile listed, renumbered with the ids in a part of
    /// some users: a write the reconcile listed, received before it and folded after the part
    /// loads, still meets the listed version by newness (not listed, it would be one the
    /// reconcile answered for, and go).
    @Test func aCheckpointOfSomeUsersKeepsTheIdsTheirReconcilesListed() throws {
        func step(start: String, value: Int, modified: String) -> String {
            #"{"id":"b","type":"steps","start":"2026-07-10T\#(start):00:00Z","end":"2026-07-10T\#(start):30:00Z","value":\#(value),"unit":"count","origin":"com.x","lastModified":"2026-07-11T\#(modified):00:00Z"}"#
        }
        let lines = [
            #"{"kind":"samples.upsert","user":"bob","receivedAt":"2026-07-12T00:00:00Z","provider":"garmin","samples":[\#(step(start: "08", value: 7, modified: "00"))]}"#,
            #"{"kind":"reconcile","user":"carol","receivedAt":"2026-07-12T00:09:00Z","provider":"garmin","metric":"steps","window":{"from":"2026-07-10T00:00:00Z","to":"2026-07-10T06:00:00Z"},"samples":[\#(step(start: "10", value: 100, modified: "00"))]}"#,
            #"{"kind":"samples.upsert","user":"carol","receivedAt":"2026-07-12T00:02:00Z","provider":"garmin","samples":[\#(step(start: "02", value: 200, modified: "03"))]}"#,
        ]
        var whole = Projections()
        _ = try Self.fold(Array(lines.prefix(2)), into: &whole)
        let selection = whole.selection { $0 == "carol" }
        var bytes = CanonicalBytes()
        whole.writeCheckpoint(&bytes, keeping: selection)
        var part = try Projections(checkpoint: bytes.bytes)
        _ = try Self.fold([lines[2]], into: &part)
        #expect(part.index.live.values.map(\.sample.value) == [200])
        #expect(try Self.liveContent(lines).values.compactMap(\.sample.value).sorted() == [7, 200])
    }

    /// The dirty-day set marks a day once (later positions kept), tells a day clean before
    /// from one marked already whatever was marked in between, and starts over after a drain
    /// (the day marked last before it is clean again after it).
    @Test func dirtyDaysAreMarkedOnceAndDrainedInOrder() {
        let day = CivilDay(daysSinceEpoch: 20_000)
        let a = DirtyDays.Key(user: 0, provider: 0, metric: .steps, day: day)
        let b = DirtyDays.Key(user: 1, provider: 0, metric: .steps, day: day)
        var dirty = DirtyDays()
        let marks = [(a, 5), (a, 3), (b, 6), (b, 7), (a, 9)].map { dirty.mark($0, at: $1) }
        #expect(marks == [true, false, true, false, false])
        let drained = dirty.drain()
        #expect(drained.map(\.key) == [a, b] && drained.map(\.value) == [9, 7])
        #expect(dirty.isEmpty && !dirty.contains(a))
        let markedAfterDrain = dirty.mark(a, at: 10)
        #expect(markedAfterDrain)
        #expect(dirty.days.map(\.value) == [10])
    }

    /// A cell's members are the samples added to it, whichever cells were added to in between,
    /// and its span covers them.
    @Test func cellMembersAreKeptPerCell() {
        let day = CivilDay(daysSinceEpoch: 20_000)
        let x = Projections.CellKey(user: 0, metric: .steps, day: day)
        let y = Projections.CellKey(user: 0, metric: .steps, day: CivilDay(daysSinceEpoch: 20_001))
        var cells = CellMembers()
        cells.insert(1, spanning: SampleSpan(start: 10, end: 20), into: x)
        cells.insert(1, spanning: SampleSpan(start: 10, end: 20), into: x)
        cells.insert(2, spanning: SampleSpan(start: 30, end: 40), into: y)
        cells.insert(3, spanning: SampleSpan(start: 5, end: 12), into: x)
        #expect(cells.members(of: x) == [1, 3] && cells.members(of: y) == [2])
        #expect(cells.span(of: x) == SampleSpan(start: 5, end: 20))
        cells.remove(3, spanning: SampleSpan(start: 5, end: 12), from: x) { _ in SampleSpan(start: 10, end: 20) }
        cells.insert(4, spanning: SampleSpan(start: 50, end: 60), into: x)
        #expect(cells.members(of: x) == [1, 4] && cells.span(of: x) == SampleSpan(start: 10, end: 60))
    }

    /// A checkpoint that names one id twice (a writer's bug: the key of the second id entry
    /// made the first's) is refused: its ids are placed in the index's table all at once, and
    /// that placing still finds a key twice.
    @Test func aCheckpointNamingAnIdTwiceIsRefused() throws {
        var projections = Projections()
        _ = try Self.fold([Self.delivery(anchor: nil, added: (0..<3).map { Self.heartRate($0) })], into: &projections)
        let bytes = projections.checkpoint()
        #expect((try? Projections(checkpoint: bytes)) != nil)
        // The three id entries are stored by column, keys first: users, providers (4 bytes
        // each), the UUIDs' halves (8 bytes each, zero for text ids), then each text id's
        // number + 2 (4 bytes each), which read 2, 3, 4.
        func word(at offset: Int) -> UInt32 {
            bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        func isKindColumn(at offset: Int) -> Bool {
            let numbered = (0..<3).allSatisfy { (row: Int) -> Bool in word(at: offset + 4 * row) == UInt32(row + 2) }
            return numbered && bytes[(offset - 48)..<offset].allSatisfy { $0 == 0 }
        }
        let kinds = try #require((72..<(bytes.count - 12)).first(where: isKindColumn))
        // The second entry's key made the first's, a column at a time.
        var twice = bytes
        for (column, width) in [(kinds - 72, 4), (kinds - 60, 4), (kinds - 48, 8), (kinds - 24, 8), (kinds, 4)] {
            twice.replaceSubrange((column + width)..<(column + 2 * width), with: bytes[column..<(column + width)])
        }
        #expect(throws: CheckpointReader.Malformed.self) { try Projections(checkpoint: twice) }
    }

    /// A checkpoint whose bytes were changed behind an intact checksum (a writer's bug, or
    /// tampering) is refused or read, never a trap: every eight bytes of one set to a large
    /// number in turn (a counter of 2^64 − 1 made every command trap converting it to `Int`).
    @Test func largeNumbersAnywhereInACheckpointNeverTrap() throws {
        var projections = Projections()
        let added = (0..<3).map { Self.heartRate($0) }
        _ = try Self.fold(
            [
                Self.delivery(anchor: nil, added: added, received: "2026-07-14T20:00:00Z"),
                Self.delivery(anchor: nil, added: added, received: "2026-07-15T20:00:00Z"),
                #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-15T08:00:00Z","recordTypes":["Steps"],"token":"t","nextChangesToken":"u","hasMore":false,"changesTokenExpired":true,"changes":[]}"#,
            ], into: &projections)
        _ = projections.recompute()
        let bytes = projections.checkpoint()
        var refused = 0
        for value: UInt64 in [.max, 1 << 63, 1 << 32] {
            for offset in 0..<(bytes.count - 8) {
                var changed = bytes
                withUnsafeBytes(of: value.littleEndian) { changed.replaceSubrange(offset..<(offset + 8), with: $0) }
                if (try? Projections(checkpoint: changed)) == nil { refused += 1 }
            }
        }
        #expect(refused > 0)
    }

    /// The checkpoint file holds its payload in LZ4 chunks, read one at a time: many small
    /// chunks (down to a field each, so rollup cells and their lengths fall in different ones)
    /// load back to the same projections, and a damaged file (a flipped bit, a cut, another
    /// version) is refused.
    @Test func aCheckpointFileInManyChunksLoadsBackAndDamageIsRefused() throws {
        var projections = Projections()
        _ = try Self.fold(
            [Self.delivery(anchor: nil, added: (0..<120).map { Self.heartRate($0) })], into: &projections)
        _ = projections.recompute()
        var mixed = Projections()
        _ = try Self.fold(RandomWorkload.lines(seed: testSeed(31), count: 150), into: &mixed)
        _ = mixed.recompute()
        // More ids than a block of the index holds (4,096, stored by column), the last block short.
        var blocks = Projections()
        let minutes = (0..<5_000).map { i in
            #"{"id":"hr-\#(i)","type":"HKQuantityTypeIdentifierHeartRate","start":"2026-07-\#(10 + i / 1_440)T\#(String(format: "%02d:%02d", i / 60 % 24, i % 60)):00Z","value":\#(60 + i % 40),"unit":"count/min","origin":"com.apple.health","device":"Apple Watch"}"#
        }
        _ = try Self.fold([Self.delivery(anchor: nil, added: minutes)], into: &blocks)
        try withTemporaryDirectory { directory in
            for (chunkBytes, state) in [(1, mixed), (256, mixed), (7, projections), (1, blocks), (8 << 20, blocks)] {
                let file = CheckpointFile(dataDirectory: directory, chunkBytes: chunkBytes)
                try file.save(state, record: 0)
                let loaded = try file.load().get()
                // The digest too: a checkpoint written back passes through the same writer.
                #expect(
                    loaded.checkpoint() == state.checkpoint() && loaded.digest() == state.digest(),
                    "chunks of \(chunkBytes) bytes")
            }
            let file = CheckpointFile(dataDirectory: directory, chunkBytes: 256)
            try file.save(projections, record: 0)
            let loaded = try file.load().get()
            #expect(loaded.digest() == projections.digest() && loaded.position == projections.position)
            let saved = try #require(FileManager.default.contents(atPath: file.path))
            #expect(saved.count > 20 * (8 + 1), "the payload took many chunks")
            // A bit flipped in any header field but the version (the record and the position
            // were covered by no checksum until 2026-12-06).
            let flips = ([0, 8, 9, 15, 16, 24, 32, 40, 47] as [Int]).map { ("flip at \($0)", $0) }
            for (damage, at) in [("flip", saved.count / 2), ("cut", -1), ("version", 4)] + flips {
                var bytes = [UInt8](saved)
                switch damage {
                case "cut": bytes.removeLast(3)
                case "version": bytes[4] = 2
                default: bytes[at] ^= 0x10
                }
                try Data(bytes).write(to: URL(fileURLWithPath: file.path))
                let unusable: CheckpointFile.Unusable = damage == "version" ? .otherVersion : .damaged
                #expect(throws: unusable, "\(damage)") { try file.load().get() }
            }
        }
    }

    /// The digest's live section follows user, provider and id text (`String`'s `<`), however
    /// the ids mix UUIDs in either case with other texts, as the digest's rules say.
    @Test func theDigestOrdersLiveIdsByUserProviderAndIdText() throws {
        var random = SplitMix64(seed: testSeed(13))
        func hex(_ count: Int, lowercase: Bool) -> String {
            let digits = Array(lowercase ? "0123456789abcdef" : "0123456789ABCDEF")
            return String((0..<count).map { _ in digits[Int(random.next() % 16)] })
        }
        var textIDs = 0
        func id() -> String {
            switch random.next() % 3 {
            case 2:
                textIDs += 1
                return "hr-\(textIDs * 7 % 100)"
            case let kind:
                let parts = [8, 4, 4, 4, 12].map { hex($0, lowercase: kind == 1) }
                return parts.joined(separator: "-")
            }
        }
        var projections = Projections()
        for user in ["bob", "alice", "Zed", "_eve", "0x"] {
            for provider in ["fitbit", "Garmin", "health_connect"] {
                let samples = (0..<20).map { _ in
                    #"{"id":"\#(id())","type":"steps","start":"2026-07-14T08:00:00Z","end":"2026-07-14T08:01:00Z","value":1,"unit":"count","origin":"com.phone"}"#
                }
                _ = try Self.fold(
                    [
                        #"{"kind":"samples.upsert","user":"\#(user)","provider":"\#(provider)","samples":[\#(samples.joined(separator: ","))]}"#
                    ], into: &projections)
            }
        }
        var keys: [IdIndex.Key] = []
        projections.forEachIdInKeyOrder(.live) { key, _ in keys.append(key) }
        let texts = keys.map { [projections.users[$0.user], projections.providers[$0.provider], $0.id.text] }
        #expect(keys.count > 200)
        let misordered = zip(texts, texts.dropFirst()).first { $1.lexicographicallyPrecedes($0) }
        #expect(misordered == nil)
    }

    /// The digest streams its rollups in 64 KiB pieces; passing that size once trapped
    /// (an exclusivity violation in the flush).
    @Test func theDigestOfMoreThan64KiBOfRollupsIsTheSameInAnyOrder() throws {
        let readings = (0..<1_000).map { day in
            let start = RFC3339.format(millis: 1_700_000_000_000 + Int64(day) * 86_400_000, offsetSeconds: 0)
            return
                #"{"id":"hr-\#(day)","type":"HKQuantityTypeIdentifierHeartRate","start":"\#(start)","value":70,"unit":"count/min","origin":"com.apple.health","device":"Apple Watch"}"#
        }
        var whole = Projections()
        _ = try Self.fold([Self.delivery(anchor: nil, added: readings)], into: &whole)
        #expect(whole.recompute() == 1_000)
        var reversed = Projections()
        _ = try Self.fold([Self.delivery(anchor: nil, added: readings.reversed())], into: &reversed)
        reversed.recompute()
        #expect(whole.digest() == reversed.digest())
    }

    /// `hasSameContent` (field by field) agrees with comparing the content's canonical bytes, on
    /// entries drawn from values that tell the two apart if anything does: ±0, NaN, canonically
    /// equivalent strings with different bytes, absent values.
    @Test func sameContentAgreesWithTheContentBytes() {
        var random = SplitMix64(seed: testSeed(12))
        var projections = Projections()
        projections.sources = [Source(origin: "a", device: nil), Source(origin: "b", device: "Apple Watch")]
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func entry() -> IdIndex.Entry {
            IdIndex.Entry(
                sample: LiveSample(
                    id: "x", metric: pick([.steps, .sleep]), startMillis: pick([0, 1]), startOffset: pick([0, 3600]),
                    endMillis: pick([0, 1]), endOffset: pick([0, 60]), zone: pick([nil, "Europe/Berlin", "UTC"]),
                    value: pick([nil, 0.0, -0.0, .nan, 1]), stage: pick([nil, .asleep, .awake]),
                    source: SourceID(pick([0, 1])), position: pick([1, 2])),
                receivedAt: pick([5, 6]), lastModified: pick([nil, 7]),
                syncIdentifier: pick([nil, "\u{E9}", "e\u{301}"]),
                syncVersion: pick([nil, 1]), unitSymbol: pick([nil, "count"]), originalValue: pick([nil, 0.0, -0.0]),
                activity: pick([nil, .other, .running]), distance: pick([nil, 0.0, 5000]),
                energy: pick([nil, -0.0, 300]))
        }
        let number = projections.index.insert(IdIndex.Key(user: 0, provider: 0, id: "x"))
        var equal = 0
        for _ in 0..<20_000 {
            let a = entry()
            var b = random.next() % 2 == 0 ? a : entry()
            if random.next() % 2 == 0 { b.sample.position = 9 }
            let (recordA, recordB) = (projections.index.record(a), projections.index.record(b))
            let same = recordA.hasSameContent(as: recordB)
            #expect(same == (projections.contentBytes(number, recordA) == projections.contentBytes(number, recordB)))
            if same { equal += 1 }
        }
        #expect(equal > 1_000)
    }

    /// The id index (flat records by number, tombstones in place; rows with details in a side
    /// array, a number's slot reused by its later records) against a plain dictionary.
    @Test func theIdIndexMatchesADictionary() {
        var random = SplitMix64(seed: testSeed(13))
        var index = IdIndex()
        var model: [IdIndex.Key: IdIndex.Entry] = [:]
        for step in 0..<5_000 {
            let key = IdIndex.Key(user: UInt32(random.next() % 3), provider: 0, id: SampleID("s-\(random.next() % 40)"))
            if random.next() % 3 == 0 {
                let before = index.entry(key)
                index.delete(key)
                #expect(before == model.removeValue(forKey: key))
            } else {
                let entry = Self.randomEntry(key.id, step: step, &random)
                index.set(key, entry)
                model[key] = entry
            }
            #expect(index.liveCount == model.count)
            #expect(index.entry(key) == model[key])
        }
        #expect(index.live == model)
        for (key, entry) in model {
            if let identifier = entry.syncIdentifier {
                #expect(
                    index.strings.id(of: identifier).flatMap {
                        index.holder(
                            ofSyncIdentifier: $0 + 1, user: key.user, provider: key.provider,
                            metric: entry.sample.metric)
                    }.map(index.key) == key)
            }
        }
    }

    /// An entry whose optional fields are each there or not: a record of plain fields, one
    /// whose value was written in another unit, one with a sync identity, a workout's details.
    static func randomEntry(_ id: SampleID, step: Int, _ random: inout SplitMix64) -> IdIndex.Entry {
        func maybe<T>(_ value: T) -> T? { random.next() % 2 == 0 ? value : nil }
        let value = maybe(Double(step) / 4)
        let isWorkout = random.next() % 4 == 0
        return IdIndex.Entry(
            sample: LiveSample(
                id: id, metric: isWorkout ? .workout : .steps, startMillis: Int64(step), startOffset: -25_200,
                endMillis: Int64(step) + 60_000, endOffset: 3_600, zone: maybe("Europe/Paris"), value: value,
                stage: maybe(.deep), source: SourceID(UInt32(step % 5)), position: UInt64(step)),
            receivedAt: Int64(step), lastModified: maybe(Int64(step) * 2),
            syncIdentifier: random.next() % 4 == 0 ? "sync-\(id)" : nil, syncVersion: maybe(Int64(step % 7)),
            unitSymbol: maybe("count"),
            originalValue: random.next() % 2 == 0 ? value : maybe(Double(step) * 1_000),
            activity: isWorkout ? maybe(.running) : nil, distance: isWorkout ? maybe(5_000) : nil,
            energy: isWorkout ? maybe(-0.0) : nil)
    }

    /// Canonically equivalent strings with different bytes are different users, sync
    /// identifiers and units (`String`'s `==` would merge them).
    @Test func theInternerTellsStringsApartByTheirBytes() {
        var interner = Interner()
        let composed = interner.intern("\u{E9}")
        let decomposed = interner.intern("e\u{301}")
        #expect(composed != decomposed)
        #expect(interner.intern("\u{E9}") == composed && interner.id(of: "e\u{301}") == decomposed)
        #expect(interner.strings.count == 2)
    }

    /// A day a zone skipped, between two days a sample counts towards, is marked dirty with
    /// them and gets a rollup (a known 0): it keeps its cell as a day whose samples all went
    /// does, so a provider the user did not have dirties it again, alike in the fold and in a
    /// store loaded from its checkpoint (which finds the cell by its rollup).
    @Test func aDayAZoneSkippedKeepsItsCell() throws {
        func upsert(_ provider: String, _ id: String, _ start: String, _ end: String, received: String) -> String {
            #"{"kind":"samples.upsert","user":"sam","receivedAt":"\#(received)","provider":"\#(provider)","samples":[{"id":"\#(id)","type":"steps","start":"\#(start)","end":"\#(end)","timeZone":"Pacific/Apia","value":120,"unit":"count","origin":"com.\#(provider)"}]}"#
        }
        // Samoa went from -10 to +14 at the end of 2011-12-29: the 30th never happened.
        let acrossTheSkip = upsert(
            "fitbit", "f1", "2011-12-29T23:00:00-10:00", "2011-12-31T01:00:00+14:00", received: "2012-01-01T00:00:00Z")
        let newProvider = upsert(
            "garmin", "g1", "2012-01-02T10:00:00+14:00", "2012-01-02T11:00:00+14:00", received: "2012-01-02T00:00:00Z")
        var folded = Projections()
        _ = try Self.fold([acrossTheSkip], into: &folded)
        #expect(folded.recompute() == 3)
        var loaded = try Projections(checkpoint: folded.checkpoint())
        _ = try Self.fold([newProvider], into: &folded)
        _ = try Self.fold([newProvider], into: &loaded)
        func dirtyDays(_ projections: Projections) -> [String] {
            Set(projections.dirty.days.map { $0.key.day.description }).sorted()
        }
        #expect(dirtyDays(folded) == ["2011-12-29", "2011-12-30", "2011-12-31", "2012-01-02"])
        #expect(dirtyDays(loaded) == dirtyDays(folded))
    }
}
