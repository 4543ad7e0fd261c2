import Foundation
import TestSupport
import Testing

@testable import Recount

/// Issue 9's stories end to end: known, partial and unknown days; expired tokens; full
/// re-deliveries; staleness.
@Suite struct SyncStateStoryTests {
    static func steps(_ id: String, _ start: String, _ end: String, _ value: Int) -> String {
        #"{"id":"\#(id)","type":"HKQuantityTypeIdentifierStepCount","start":"\#(start)","end":"\#(end)","value":\#(value),"unit":"count","origin":"com.apple.health","device":"iPhone"}"#
    }

    static func delivery(_ user: String = "alice", received: String, anchor: String? = "YQ==", added: [String])
        -> String
    {
        let anchorJSON = anchor.map { "\"\($0)\"" } ?? "null"
        return
            #"{"kind":"healthkit.delivery","user":"\#(user)","receivedAt":"\#(received)","type":"steps","anchor":\#(anchorJSON),"newAnchor":"Yg==","added":[\#(added.joined(separator: ","))],"deleted":[]}"#
    }

    /// The 03:00 email: a check-in Friday, no wake all weekend, the question asked Monday
    /// 03:00. Saturday and Sunday are unknown, not zero; after Monday's delivery with
    /// Saturday's 14,000 steps, Saturday is known at 14,000 and Sunday a known zero.
    @Test func aSilentWeekendIsUnknownUntilTheNextCheckIn() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            _ = try engine.ingest(
                ndjson: Array(
                    Self.delivery(
                        received: "2026-07-17T21:00:00Z",
                        added: [Self.steps("fri", "2026-07-17T09:00:00-07:00", "2026-07-17T10:00:00-07:00", 8_000)]
                    )
                    .utf8), source: "friday")
            let monday = try engine.rollups(
                user: "alice", metric: "steps", from: "2026-07-17", to: "2026-07-19", asOf: "2026-07-20T03:00:00-07:00")
            #expect(monday.map(\.state) == [.partial, .unknown, .unknown])
            #expect(monday[1].reading == .unknown(.noCheckinSinceDayEnd), "never a zero")

            _ = try engine.ingest(
                ndjson: Array(
                    Self.delivery(
                        received: "2026-07-20T16:00:00Z",
                        added: [Self.steps("sat", "2026-07-18T10:00:00-07:00", "2026-07-18T16:00:00-07:00", 14_000)]
                    )
                    .utf8), source: "monday")
            let after = try engine.rollups(user: "alice", metric: "steps", from: "2026-07-17", to: "2026-07-19")
            #expect(after[1].reading == .known([RollupRow.Value(name: "value", value: 14_000)]))
            #expect(after[2].reading == .known([RollupRow.Value(name: "value", value: 0)]), "a known zero")
            #expect(after[0].reading == .known([RollupRow.Value(name: "value", value: 8_000)]))
            // Asked again as of Monday 03:00, the answer is the one given then: Saturday's steps
            // came later.
            let asked = try engine.rollups(
                user: "alice", metric: "steps", from: "2026-07-17", to: "2026-07-19", asOf: "2026-07-20T03:00:00-07:00")
            #expect(asked == monday)
            let beforeFirstCheckin = try engine.stale(asOf: "2026-07-17T20:00:00Z")
            #expect(beforeFirstCheckin.rows.isEmpty && beforeFirstCheckin.fractions.isEmpty, "no channel existed yet")
            // An instant whose UTC time no RFC 3339 text can write is refused, not answered for.
            #expect { try engine.stale(asOf: "0001-01-01T00:00:00+01:00") } throws: {
                ($0 as? QueryError)?.code == .invalidDate
            }
            // So are a day before 0001 and a name no envelope can carry.
            #expect { try engine.rollups(user: "alice", metric: "steps", from: "0000-12-31") } throws: {
                ($0 as? QueryError)?.code == .invalidDate
            }
            #expect { try engine.samples(user: "alice smith", metric: "steps", day: "2026-07-17") } throws: {
                ($0 as? QueryError)?.code == .invalidUser
            }
            try engine.close()
        }
    }

    /// A check-in whose `at` runs ahead of its arrival (a phone's clock set forward) counts at
    /// its `receivedAt`: days that had not ended when it arrived stay unknown, never a zero.
    @Test func aCheckInFromTheFutureCountsWhenItArrived() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            _ = try engine.ingest(
                ndjson: Array(
                    (Self.delivery(
                        received: "2026-07-14T20:00:00Z",
                        added: [Self.steps("mon", "2026-07-13T09:00:00-07:00", "2026-07-13T10:00:00-07:00", 500)])
                        + "\n"
                        + #"{"kind":"checkin","user":"alice","receivedAt":"2026-07-14T21:00:00Z","provider":"healthkit","metrics":["steps"],"at":"2026-07-20T12:00:00Z"}"#)
                        .utf8), source: "clock ahead")
            let days = try engine.rollups(user: "alice", metric: "steps", from: "2026-07-13", to: "2026-07-16")
            #expect(days.map(\.state) == [.known, .unknown, .unknown, .unknown])
            #expect(days[0].reading == .known([RollupRow.Value(name: "value", value: 500)]))
            let cursor = try #require(try engine.cursor(user: "alice", provider: "healthkit", metric: "steps"))
            #expect(cursor.lastCheckinAt == "2026-07-14T21:00:00Z")
            try engine.close()
        }
    }

    /// A question as of an instant counts the providers the user had then: Oura, first heard of
    /// the next day, does not make Tuesday partial as of Wednesday noon. And a channel heard of
    /// before that instant (Garmin's samples) is stale then, though its first check-in came later.
    @Test func aQuestionAsOfAnInstantCountsTheProvidersTheUserHadThen() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            func upsert(_ user: String, _ provider: String, received: String) -> String {
                #"{"kind":"samples.upsert","user":"\#(user)","receivedAt":"\#(received)","provider":"\#(provider)","samples":[{"id":"\#(provider)","type":"steps","start":"2026-07-14T10:00:00-07:00","value":5,"unit":"count","origin":"o"}]}"#
            }
            func checkin(_ user: String, _ provider: String, at: String) -> String {
                #"{"kind":"checkin","user":"\#(user)","receivedAt":"\#(at)","provider":"\#(provider)","metrics":["steps"],"at":"\#(at)"}"#
            }
            let lines = [
                upsert("u1", "fitbit", received: "2026-07-15T00:00:00Z"),
                checkin("u1", "fitbit", at: "2026-07-15T08:00:00Z"),
                checkin("u1", "oura", at: "2026-07-16T00:00:00Z"),
                upsert("u2", "garmin", received: "2026-07-15T06:00:00Z"),
                checkin("u2", "garmin", at: "2026-07-16T00:00:00Z"),
                checkin("u2", "oura", at: "2026-07-16T00:00:00Z"),
            ]
            _ = try engine.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "providers")
            let asked = try engine.rollups(
                user: "u1", metric: "steps", from: "2026-07-14", to: "2026-07-14", asOf: "2026-07-15T12:00:00Z")
            #expect(asked.map(\.state) == [.known], "fitbit, the one provider u1 had, checked in after the day")
            let stale = try engine.stale(asOf: "2026-07-15T12:00:00Z")
            #expect(stale.rows.map { "\($0.user) \($0.provider)" } == ["u2 garmin"])
            try engine.close()
        }
    }

    /// `--as-of T` answers as the envelopes received by T alone do: a reconcile, a backfill, a
    /// sample in another offset, or the first data, received after T change nothing about T.
    /// Read from today's projections, an attack run found each of them changing the answer: an
    /// open recovery window read as a known 0, a day past the latest offset's midnight as a
    /// known 0, "never synced" with a value, a backfill's total and version before it came.
    @Test(arguments: [
        // An expiry, a read, then (after T) the reconcile of the window.
        (
            [
                #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-01T10:00:00Z","recordTypes":["StepsRecord"],"token":"t1","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"s1","type":"Steps","start":"2026-06-30T08:00:00Z","end":"2026-06-30T09:00:00Z","value":100,"unit":"count","origin":"com.google.android.apps.fitness"}}]}"#,
                #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-20T10:00:00Z","recordTypes":["StepsRecord"],"token":"t2","nextChangesToken":"t9","hasMore":false,"changesTokenExpired":true,"changes":[]}"#,
                #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-21T10:00:00Z","recordTypes":["StepsRecord"],"token":"n1","nextChangesToken":"n2","hasMore":false,"changesTokenExpired":false,"changes":[]}"#,
                #"{"kind":"reconcile","user":"u1","receivedAt":"2026-07-22T10:00:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-01T10:00:00Z","to":"2026-07-20T10:00:00Z"},"samples":[]}"#,
            ], "2026-07-21T12:00:00Z", "2026-07-05", RollupRow.Reading.unknown(.recoveryWindowOpen)
        ),
        // A sample at +13:45 after T moves the latest offset, and so midnight.
        (
            [
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T21:00:00Z","provider":"fitbit","samples":[{"id":"a","type":"steps","start":"2026-07-14T10:00:00-09:30","end":"2026-07-14T11:00:00-09:30","value":100,"unit":"count","origin":"com.fitbit"}]}"#,
                #"{"kind":"checkin","user":"u1","receivedAt":"2026-07-16T05:00:00Z","provider":"fitbit","metrics":["steps"],"at":"2026-07-16T05:00:00Z"}"#,
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-20T00:00:00Z","provider":"fitbit","samples":[{"id":"h","type":"heart_rate","start":"2026-07-20T10:00:00+13:45","value":70,"unit":"bpm","origin":"com.fitbit"}]}"#,
            ], "2026-07-16T06:00:00Z", "2026-07-15", .unknown(.noCheckinSinceDayEnd)
        ),
        // The first data after T.
        (
            [
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T12:00:00Z","provider":"fitbit","samples":[{"id":"a","type":"steps","start":"2026-07-14T10:00:00Z","end":"2026-07-14T11:00:00Z","value":100,"unit":"count","origin":"com.fitbit"}]}"#
            ], "2026-07-01T00:00:00Z", "2026-07-14", .unknown(.neverSynced)
        ),
        // A backfill after T.
        (
            [
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T12:00:00Z","provider":"fitbit","samples":[{"id":"a","type":"steps","start":"2026-07-14T10:00:00Z","end":"2026-07-14T11:00:00Z","value":100,"unit":"count","origin":"com.fitbit"}]}"#,
                #"{"kind":"checkin","user":"u1","receivedAt":"2026-07-15T01:00:00Z","provider":"fitbit","metrics":["steps"],"at":"2026-07-15T01:00:00Z"}"#,
                #"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-20T12:00:00Z","provider":"fitbit","samples":[{"id":"b","type":"steps","start":"2026-07-14T15:00:00Z","end":"2026-07-14T16:00:00Z","value":400,"unit":"count","origin":"com.fitbit"}]}"#,
            ], "2026-07-16T00:00:00Z", "2026-07-14", .known([RollupRow.Value(name: "value", value: 100)])
        ),
    ])
    func asOfAnInstantOnlyWhatWasReceivedByItCounts(
        lines: [String], asOf: String, day: String, reading: RollupRow.Reading
    ) throws {
        try withTemporaryDirectory { directory in
            let everything = try RecountEngine(directory: directory + "/everything")
            _ = try everything.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "all")
            let then = try RecountEngine(directory: directory + "/then")
            let instant = try RecountEngine.instant(asOf, "--as-of")
            let received = lines.filter { line in
                let text = line.split(separator: "\"receivedAt\":\"")[1].prefix { $0 != "\"" }
                return (try? RecountEngine.instant(String(text), "receivedAt")).map { $0 <= instant } ?? false
            }
            _ = try then.ingest(ndjson: Array(received.joined(separator: "\n").utf8), source: "then")
            let asked = try everything.rollups(user: "u1", metric: "steps", from: day, to: day, asOf: asOf)
            #expect(asked.map(\.reading) == [reading])
            #expect(asked == (try then.rollups(user: "u1", metric: "steps", from: day, to: day, asOf: asOf)))
        }
    }

    /// `--as-of T` reads a channel's recovery as it stood at T: an expired token received after
    /// T names no window and no lost time then, as a store holding only what came by T says.
    @Test func asOfAnInstantBeforeAnExpiryTheExpiryIsNotSeen() throws {
        let page =
            #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-05-01T10:00:00Z","recordTypes":["Steps"],"token":"t0","nextChangesToken":"t1","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"a","type":"Steps","start":"2026-05-01T08:00:00+02:00","end":"2026-05-01T09:00:00+02:00","value":100,"unit":"count","origin":"com.google.android.apps.fitness"}}]}"#
        let expiry =
            #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-10T10:00:00Z","recordTypes":["Steps"],"token":"t1","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":true,"changes":[]}"#
        try withTemporaryDirectory { directory in
            func reasons(_ lines: [String], asOf: String, in name: String) throws -> [String] {
                let engine = try RecountEngine(directory: directory + "/" + name)
                defer { try? engine.close() }
                _ = try engine.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "test")
                return try engine.rollups(user: "u1", metric: "steps", from: "2026-05-02", to: "2026-07-09", asOf: asOf)
                    .map { row in
                        switch row.reading {
                        case .known: "known"
                        case .partial(_, let reason): "partial \(reason.rawValue)"
                        case .unknown(let reason): "unknown \(reason.rawValue)"
                        }
                    }
            }
            let before = "2026-06-01T00:00:00Z"
            #expect(
                try reasons([page, expiry], asOf: before, in: "both") == reasons([page], asOf: before, in: "first"))
            let after = try reasons([page, expiry], asOf: "2026-07-11T00:00:00Z", in: "both")
            #expect(after.first == "unknown unrecoverable_gap" && after.last == "unknown recovery_window_open")
        }
    }

    /// A changes page still reading (`hasMore`) brings neither samples nor a check-in, so the
    /// user does not have Health Connect yet and Fitbit alone makes the day known; but its
    /// client has opened the channel and never checked in, so it is stale (a read that never
    /// ends is a stuck client; the seed's `last_client_checkin_at is null`). And an
    /// expired page logged after a later check-in starts its recovery window at the last
    /// check-in before it, not after its own end.
    @Test func onlySamplesAndCheckInsGiveAProviderAndARecoveryStartsBeforeItsExpiry() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let lines = [
                #"{"kind":"checkin","user":"u1","receivedAt":"2026-07-10T10:00:00Z","provider":"fitbit","metrics":["steps"],"at":"2026-07-10T10:00:00Z"}"#,
                #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"2026-07-09T10:00:00Z","recordTypes":["Steps"],"token":"t0","nextChangesToken":"t1","hasMore":true,"changesTokenExpired":false,"changes":[]}"#,
                #"{"kind":"checkin","user":"u2","receivedAt":"2026-04-01T00:00:00Z","provider":"health_connect","metrics":["steps"],"at":"2026-04-01T00:00:00Z"}"#,
                #"{"kind":"checkin","user":"u2","receivedAt":"2026-05-28T00:00:00Z","provider":"health_connect","metrics":["steps"],"at":"2026-05-28T00:00:00Z"}"#,
                #"{"kind":"healthconnect.changes","user":"u2","receivedAt":"2026-05-27T06:00:00Z","recordTypes":["Steps"],"token":"k3","nextChangesToken":"k4","hasMore":false,"changesTokenExpired":true,"changes":[]}"#,
                // An expired token, never followed by a good read.
                #"{"kind":"healthconnect.changes","user":"u3","receivedAt":"2026-07-01T10:00:00Z","recordTypes":["Steps"],"token":"x1","nextChangesToken":"x2","hasMore":false,"changesTokenExpired":true,"changes":[]}"#,
            ]
            _ = try engine.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "sync")
            let day = try engine.rollups(user: "u1", metric: "steps", from: "2026-07-08", to: "2026-07-08")
            #expect(day.map(\.state) == [.known])
            let stale = try engine.stale(asOf: "2026-07-10T11:00:00Z").rows
            #expect(
                stale.map { "\($0.user) \($0.provider) \($0.lastCheckinAt ?? "never")" } == [
                    "u1 health_connect never", "u2 health_connect 2026-05-28T00:00:00Z", "u3 health_connect never",
                ])
            #expect(
                try engine.stale(asOf: "2026-07-09T09:00:00Z").rows.map(\.user) == ["u2", "u3"], "before u1's read")
            #expect(try engine.stale(asOf: "2026-06-30T09:00:00Z").rows.map(\.user) == ["u2"], "before u3's expiry")
            let cursor = try #require(try engine.cursor(user: "u2", provider: "health_connect", metric: "steps"))
            #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-04-27T06:00:00Z", to: "2026-05-27T06:00:00Z")])
            #expect(cursor.unrecoverable == [TimeWindow(from: "2026-04-01T00:00:00Z", to: "2026-04-27T06:00:00Z")])
            let inWindow = try engine.rollups(user: "u2", metric: "steps", from: "2026-05-20", to: "2026-05-20")
            #expect(inWindow.map(\.state) == [.unknown])
            try engine.close()
        }
    }

    /// The user's days end at midnight in the local offset of the latest sample, and a sample's
    /// `timeZone` decides it as it decides the sample's day: written at -07:00 in Asia/Tokyo,
    /// the day ends at Tokyo's midnight, so a delivery an hour later makes it known.
    @Test func theLatestSamplesZoneDecidesWhenTheDayEnds() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let sample =
                #"{"id":"tokyo","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-14T10:00:00-07:00","end":"2026-07-14T10:30:00-07:00","timeZone":"Asia/Tokyo","value":300,"unit":"count","origin":"com.apple.health","device":"iPhone"}"#
            _ = try engine.ingest(
                ndjson: Array(Self.delivery(received: "2026-07-15T16:00:00Z", added: [sample]).utf8), source: "tokyo")
            let day = try #require(
                try engine.rollups(user: "alice", metric: "steps", from: "2026-07-15", to: "2026-07-15").first)
            #expect(day.reading == .known([RollupRow.Value(name: "value", value: 300)]))
            try engine.close()
        }
    }

    /// An expired Health Connect token opens a recovery window; the day in it is not known
    /// until a reconcile covering the window arrives, which deletes the record the client no
    /// longer has.
    @Test func anExpiredTokenNeedsAReconcileWhichDeletesWhatIsGone() throws {
        func page(received: String, expired: Bool, changes: String) -> String {
            #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"\#(received)","recordTypes":["Steps"],"token":"t","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":\#(expired),"changes":[\#(changes)]}"#
        }
        func upsertion(_ id: String, _ value: Int) -> String {
            #"{"upsertion":{"id":"\#(id)","type":"Steps","start":"2026-07-14T09:00:00+02:00","end":"2026-07-14T09:30:00+02:00","value":\#(value),"unit":"count","origin":"com.google.android.apps.fitness"}}"#
        }
        func upsertionOn16th(_ id: String) -> String {
            #"{"upsertion":{"id":"\#(id)","type":"Steps","start":"2026-07-16T12:00:00+02:00","end":"2026-07-16T12:30:00+02:00","value":70,"unit":"count","origin":"com.google.android.apps.fitness"}}"#
        }
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let lines = [
                page(received: "2026-07-15T08:00:00Z", expired: false, changes: upsertion("a", 100)),
                page(received: "2026-07-16T08:00:00Z", expired: false, changes: upsertionOn16th("b")),
                page(received: "2026-07-25T08:00:00Z", expired: true, changes: ""),
            ]
            _ = try engine.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "pages")
            let cursor = try #require(try engine.cursor(user: "bob", provider: "health_connect", metric: "steps"))
            #expect(cursor.state == "needs_recovery")
            #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-07-16T08:00:00Z", to: "2026-07-25T08:00:00Z")])
            let open = try engine.rollups(user: "bob", metric: "steps", from: "2026-07-14", to: "2026-07-16")
            #expect(open[0].reading == .known([RollupRow.Value(name: "value", value: 100)]), "read before the window")
            #expect(open[2].reading == .partial([RollupRow.Value(name: "value", value: 70)], .recoveryWindowOpen))

            // The client re-reads the window: "b" is no longer there.
            let reconcile =
                #"{"kind":"reconcile","user":"bob","receivedAt":"2026-07-25T08:05:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-16T08:00:00Z","to":"2026-07-25T08:00:00Z"},"samples":[]}"#
            let report = try engine.ingest(ndjson: Array(reconcile.utf8), source: "reconcile")
            #expect(report.deletedSamples == 1)
            #expect(try engine.cursor(user: "bob", provider: "health_connect", metric: "steps")?.state == "ok")
            _ = try engine.ingest(
                ndjson: Array(page(received: "2026-07-25T09:00:00Z", expired: false, changes: "").utf8), source: "next")
            let known = try engine.rollups(user: "bob", metric: "steps", from: "2026-07-16", to: "2026-07-16")
            #expect(known.first?.reading == .known([RollupRow.Value(name: "value", value: 0)]))
            try engine.close()
        }
    }

    /// A token that expires more than 30 days after the last read leaves days that can never be
    /// read again: they are unknown with that reason.
    @Test func daysBeyondTheThirtyDayHorizonAreAnUnrecoverableGap() throws {
        var projections = Projections()
        let lines = [
            #"{"kind":"checkin","user":"bob","receivedAt":"2026-05-01T00:00:00Z","provider":"health_connect","metrics":["steps"],"at":"2026-05-01T00:00:00Z"}"#,
            #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-15T00:00:00Z","recordTypes":["Steps"],"token":"t","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":true,"changes":[]}"#,
        ]
        _ = try ProjectionsTests.fold(lines, into: &projections)
        let rows = try projections.rollupRows(
            user: "bob", metric: .steps, from: CivilDay(parsing: "2026-06-01"), to: CivilDay(parsing: "2026-06-13"))
        #expect(rows.allSatisfy { $0.reading == .unknown(.unrecoverableGap) })
        let recent = try projections.rollupRows(
            user: "bob", metric: .steps, from: CivilDay(parsing: "2026-07-01"), to: CivilDay(parsing: "2026-07-01"))
        #expect(recent.first?.reading == .unknown(.recoveryWindowOpen))
        #expect(
            try projections.rollupRows(
                user: "carol", metric: .steps, from: CivilDay(parsing: "2026-07-01"),
                to: CivilDay(parsing: "2026-07-01")
            ).first?.reading == .unknown(.neverSynced))
    }

    /// A check-in received ahead of the engine's clock, within the skew ingest accepts, does not
    /// make a day known before it ends: asked now, the day is partial until the clock passes
    /// its end (a check-in 30 s after a day that had 3 minutes to run made it known; an oracle
    /// run). `--as-of` an instant after the end, it is known.
    @Test func aDayThatHasNotEndedIsNotKnownWhateverACheckInAheadOfTheClockSays() throws {
        let minute: Int64 = 60_000
        let day: Int64 = 1440 * minute
        // The day ends on a whole minute 3 to 4 minutes from now, at midnight in `offset`.
        let end = (RecountEngine.now().millis / minute + 4) * minute
        var offset = (day - end % day) % day
        if offset > 14 * 60 * minute { offset -= day }
        func local(_ millis: Int64) -> String { RFC3339.format(millis: millis, offsetSeconds: Int32(offset / 1000)) }
        let date = String(local(end - 1).prefix(10))
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let lines = [
                Self.delivery(
                    received: local(end - 20 * minute),
                    added: [Self.steps("s", local(end - 60 * minute), local(end - 30 * minute), 500)]),
                #"{"kind":"checkin","user":"alice","receivedAt":"\#(local(end + 30_000))","provider":"healthkit","metrics":["steps"],"at":"\#(local(end + 30_000))"}"#,
            ]
            let report = try engine.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "ahead")
            #expect(report.appended == 2)
            let now = try engine.rollups(user: "alice", metric: "steps", from: date, to: date)
            #expect(
                now.map(\.reading) == [.partial([RollupRow.Value(name: "value", value: 500)], .noCheckinSinceDayEnd)])
            #expect(try engine.audit(user: "alice", metric: "steps", day: date)?.state == .partial)
            let after = try engine.rollups(user: "alice", metric: "steps", from: date, to: date, asOf: local(end + day))
            #expect(after.map(\.state) == [.known])
        }
    }

    static func page(_ user: String = "bob", received: String, expired: Bool) -> String {
        #"{"kind":"healthconnect.changes","user":"\#(user)","receivedAt":"\#(received)","recordTypes":["Steps"],"token":"t","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":\#(expired),"changes":[]}"#
    }

    static func reconcile(_ user: String = "bob", received: String, from: String, to: String) -> String {
        #"{"kind":"reconcile","user":"\#(user)","receivedAt":"\#(received)","provider":"health_connect","metric":"steps","window":{"from":"\#(from)","to":"\#(to)"},"samples":[]}"#
    }

    static func checkin(_ user: String = "bob", received: String, at: String) -> String {
        #"{"kind":"checkin","user":"\#(user)","receivedAt":"\#(received)","provider":"health_connect","metrics":["steps"],"at":"\#(at)"}"#
    }

    /// Bob's Health Connect steps channel, which must exist.
    static func cursor(_ projections: Projections) throws -> CursorRow {
        try #require(projections.cursorRow(user: "bob", provider: "health_connect", metric: .steps))
    }

    static func state(_ projections: Projections, _ day: String) throws -> RollupRow.State? {
        let day = CivilDay(parsing: day)
        return try projections.rollupRows(user: "bob", metric: .steps, from: day, to: day).first?.state
    }

    /// Two tokens that expire with a successful read between them leave two windows to read
    /// again, not one spanning the days read in between; a reconcile of one closes that one.
    @Test func twoExpiriesWithAReadBetweenThemLeaveTwoWindows() throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.page(received: "2026-07-01T08:00:00Z", expired: false),
                Self.page(received: "2026-07-05T08:00:00Z", expired: true),
                Self.page(received: "2026-07-10T08:00:00Z", expired: false),
                Self.page(received: "2026-07-20T08:00:00Z", expired: true),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(
            cursor.recoveryWindows == [
                TimeWindow(from: "2026-07-01T08:00:00Z", to: "2026-07-05T08:00:00Z"),
                TimeWindow(from: "2026-07-10T08:00:00Z", to: "2026-07-20T08:00:00Z"),
            ])
        #expect(try Self.state(projections, "2026-07-07") == .known, "read by the check-in of the 10th")
        #expect(try Self.state(projections, "2026-07-03") == .unknown)
        #expect(try Self.state(projections, "2026-07-15") == .unknown)
        _ = try ProjectionsTests.fold(
            [
                #"{"kind":"reconcile","user":"bob","receivedAt":"2026-07-20T09:00:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-01T00:00:00Z","to":"2026-07-06T00:00:00Z"},"samples":[]}"#
            ], into: &projections)
        let after = try Self.cursor(projections)
        #expect(after.state == "needs_recovery")
        #expect(after.recoveryWindows == [TimeWindow(from: "2026-07-10T08:00:00Z", to: "2026-07-20T08:00:00Z")])
        #expect(try Self.state(projections, "2026-07-03") == .known)
    }

    /// A window too long for one reconcile (at most 50,000 samples) is read again in parts: the
    /// parts received after the expiry close it together once the last arrives, whatever the
    /// order they are logged in; a part missing, or one received before the expiry, leaves it
    /// open. Only a reconcile covering the whole window closed it before 2026-12-05.
    @Test(arguments: [[0, 1, 2], [2, 0, 1], [1, 2, 0]])
    func aWindowReadAgainInPartsIsRecovered(order: [Int]) throws {
        func part(_ received: String, from: String, to: String) -> String {
            #"{"kind":"reconcile","user":"bob","receivedAt":"\#(received)","provider":"health_connect","metric":"steps","window":{"from":"\#(from)","to":"\#(to)"},"samples":[]}"#
        }
        let expiry = [
            Self.page(received: "2026-07-01T08:00:00Z", expired: false),
            Self.page(received: "2026-07-20T08:00:00Z", expired: true),
        ]
        let parts = [
            part("2026-07-20T09:00:00Z", from: "2026-07-01T00:00:00Z", to: "2026-07-08T00:00:00Z"),
            part("2026-07-20T09:01:00Z", from: "2026-07-08T00:00:00Z", to: "2026-07-15T00:00:00Z"),
            part("2026-07-20T09:02:00Z", from: "2026-07-15T00:00:00Z", to: "2026-07-21T00:00:00Z"),
        ]
        var projections = Projections()
        _ = try ProjectionsTests.fold(expiry + order.dropLast().map { parts[$0] }, into: &projections)
        let open = try Self.cursor(projections)
        #expect(open.state == "needs_recovery", "a part is missing")
        let unread = [
            TimeWindow(from: "2026-07-01T08:00:00Z", to: "2026-07-08T00:00:00Z"),
            TimeWindow(from: "2026-07-08T00:00:00Z", to: "2026-07-15T00:00:00Z"),
            TimeWindow(from: "2026-07-15T00:00:00Z", to: "2026-07-20T08:00:00Z"),
        ]
        #expect(open.recoveryWindows == [unread[order.last!]], "only the part not read yet is left to read")
        _ = try ProjectionsTests.fold([parts[order.last!]], into: &projections)
        let closed = try Self.cursor(projections)
        #expect(closed.state == "ok" && closed.recoveryWindows.isEmpty, "\(closed)")
        let read = Self.page(received: "2026-07-20T10:00:00Z", expired: false)
        _ = try ProjectionsTests.fold([read], into: &projections)
        #expect(try Self.state(projections, "2026-07-10") == .known)
        var inReceiptOrder = Projections()
        _ = try ProjectionsTests.fold(expiry + parts + [read], into: &inReceiptOrder)
        #expect(inReceiptOrder.digest() == projections.digest())

        var early = Projections()
        let before = part("2026-07-19T09:00:00Z", from: "2026-07-08T00:00:00Z", to: "2026-07-15T00:00:00Z")
        _ = try ProjectionsTests.fold([expiry[0], before, expiry[1], parts[0], parts[2]], into: &early)
        let stillOpen = try Self.cursor(early)
        #expect(stillOpen.state == "needs_recovery", "a part read before the token expired")
        #expect(stillOpen.recoveryWindows == [unread[1]])
        // Read since: the days read again are known, the days of the part still to read are not.
        _ = try ProjectionsTests.fold([read], into: &early)
        #expect(try Self.state(early, "2026-07-03") == .known)
        #expect(try Self.state(early, "2026-07-10") == .unknown)
        #expect(try Self.state(early, "2026-07-17") == .known)
    }

    /// Found by an attack run against a model of the recovery rules, each in one log order:
    /// two windows reconciled newest first (the older reconcile was ignored: recovering the
    /// other window had moved the channel's newest recovery past it); and a window read again
    /// in parts, a later reconcile covering one part, and a second expiry between them in
    /// receipt order (the covered part was forgotten, so when the window closed, and so where
    /// the second expiry's stretch started, depended on the order the reconciles were logged).
    /// Every order of the lines gives what receipt order gives.
    @Test(arguments: [
        (
            [
                Self.checkin(received: "2026-07-02T00:00:00Z", at: "2026-07-02T00:00:00Z"),
                Self.page(received: "2026-07-04T00:00:00Z", expired: true),
                Self.checkin(received: "2026-07-05T00:00:00Z", at: "2026-07-05T00:00:00Z"),
                Self.page(received: "2026-07-07T00:00:00Z", expired: true),
                Self.reconcile(
                    received: "2026-07-09T00:00:00Z", from: "2026-07-05T00:00:00Z", to: "2026-07-07T00:00:00Z"),
                Self.reconcile(
                    received: "2026-07-08T00:00:00Z", from: "2026-07-02T00:00:00Z", to: "2026-07-04T00:00:00Z"),
            ], [TimeWindow]()
        ),
        (
            [
                Self.checkin(received: "2026-07-02T00:00:00Z", at: "2026-07-02T00:00:00Z"),
                Self.page(received: "2026-07-04T00:00:00Z", expired: true),
                Self.reconcile(
                    received: "2026-07-04T03:00:00Z", from: "2026-07-02T00:00:00Z", to: "2026-07-03T12:00:00Z"),
                Self.reconcile(
                    received: "2026-07-04T01:00:00Z", from: "2026-07-02T00:00:00Z", to: "2026-07-03T00:00:00Z"),
                Self.reconcile(
                    received: "2026-07-04T02:00:00Z", from: "2026-07-03T00:00:00Z", to: "2026-07-04T00:00:00Z"),
                Self.page(received: "2026-07-04T02:30:00Z", expired: true),
            ], [TimeWindow(from: "2026-07-04T00:00:00Z", to: "2026-07-04T02:30:00Z")]
        ),
    ])
    func recoveryDoesNotDependOnTheOrderReconcilesAreLoggedIn(lines: [String], windows: [TimeWindow]) throws {
        // The reconciles in their places, in the order given, in receipt order, and reversed.
        // (The other lines stay: a reconcile logged after an expiry it was received before does
        // not move where that expiry's stretch starts, a documented departure.)
        let places = lines.indices.filter { lines[$0].contains(#""kind":"reconcile""#) }
        let reconciles = places.map { lines[$0] }
        var digests: Set<[UInt8]> = []
        for order in [reconciles, reconciles.sorted(), reconciles.reversed()] {
            var ordered = lines
            for (place, line) in zip(places, order) { ordered[place] = line }
            var projections = Projections()
            _ = try ProjectionsTests.fold(ordered, into: &projections)
            let cursor = try Self.cursor(projections)
            #expect(cursor.recoveryWindows == windows, "\(ordered)")
            #expect(cursor.state == (windows.isEmpty ? "ok" : "needs_recovery"))
            digests.insert(projections.digest())
        }
        #expect(digests.count == 1)
    }

    /// An expired page logged after a recovery received later than it (an upload sent again out
    /// of order) opens its stretch as receipt order does: the channel's expiries and reconciles
    /// are folded again in receipt order. Until 2026-12-06 it was dropped as old, and the days
    /// it missed, whose part beyond 30 days before the newest expiry cannot be read again, read
    /// as known zeros in that log order and unknown in receipt order (an attack run's log-order
    /// permutation). Every order of the four lines gives what receipt order gives.
    @Test func anExpiryLoggedAfterALaterRecoveryOpensItsStretch() throws {
        let lines = [
            Self.page(received: "2026-07-02T00:00:00Z", expired: true),
            Self.page(received: "2026-07-04T00:00:00Z", expired: false),
            Self.page(received: "2026-07-05T00:00:00Z", expired: true),
            Self.reconcile(received: "2026-07-08T00:00:00Z", from: "2026-06-30T00:00:00Z", to: "2026-07-08T00:00:00Z"),
        ]
        var receiptOrder = Projections()
        _ = try ProjectionsTests.fold(lines, into: &receiptOrder)
        let cursor = try Self.cursor(receiptOrder)
        // The first page's stretch (from 30 days before it, as nothing was read before it)
        // is read again from 06-30 on; before the newest expiry's horizon (06-05) it is lost.
        #expect(cursor.state == "needs_recovery")
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-06-05T00:00:00Z", to: "2026-06-30T00:00:00Z")])
        #expect(cursor.unrecoverable == [TimeWindow(from: "2026-06-02T00:00:00Z", to: "2026-06-05T00:00:00Z")])
        for order in ProjectionsTests.permutations(lines) {
            var projections = Projections()
            _ = try ProjectionsTests.fold(order, into: &projections)
            #expect(try Self.cursor(projections) == cursor, "\(order)")
            #expect(projections.digest() == receiptOrder.digest(), "\(order)")
        }
    }

    /// A stretch with no read before its expiry starts at the client's first contact (30 days
    /// before the expiry without one). A first contact logged late, after an expiry it was
    /// received before (a reconcile's samples, a page's cursor), moves that start as receipt
    /// order has it: until 2026-12-06 the stretch kept the log order's start, and its days
    /// read unrecoverable in one order and not checked in in the other (a log-order
    /// permutation of an attack run's workload).
    @Test(arguments: [
        #"{"kind":"reconcile","user":"bob","receivedAt":"2026-07-04T00:00:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-08T00:00:00Z","to":"2026-07-19T00:00:00Z"},"samples":[{"id":"s1","type":"steps","start":"2026-07-15T10:00:00Z","end":"2026-07-15T11:00:00Z","value":50,"unit":"count","origin":"app"}]}"#,
        #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-04T00:00:00Z","recordTypes":["Steps"],"token":"t0","nextChangesToken":"t","hasMore":true,"changesTokenExpired":false,"changes":[]}"#,
    ])
    func aFirstContactLoggedLateMovesWhereTheStretchStarts(contact: String) throws {
        let expiry = Self.page(received: "2026-07-05T00:00:00Z", expired: true)
        var receiptOrder = Projections()
        _ = try ProjectionsTests.fold([contact, expiry], into: &receiptOrder)
        let cursor = try Self.cursor(receiptOrder)
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-07-04T00:00:00Z", to: "2026-07-05T00:00:00Z")])
        #expect(cursor.unrecoverable.isEmpty)
        var late = Projections()
        _ = try ProjectionsTests.fold([expiry, contact], into: &late)
        #expect(try Self.cursor(late) == cursor)
        // Each day reads the same (the digests differ by the positions the two logs give).
        func readings(_ projections: inout Projections) throws -> [String] {
            projections.recompute()
            return try projections.rollupRows(
                user: "bob", metric: .steps, from: CivilDay(parsing: "2026-06-01"), to: CivilDay(parsing: "2026-07-20")
            ).map { "\($0.date) \($0.reading)" }
        }
        #expect(try readings(&late) == readings(&receiptOrder))
    }

    /// The days and the sync channels are a function of the envelopes and their `receivedAt`,
    /// not of the order they are logged in: random workloads (check-ins, Health Connect pages
    /// with expired tokens and upserts in place, reconciles, deletions, `config.sources`) of 400
    /// envelopes folded in receipt order and shuffled read the same, with check-ins made days
    /// before they were received among them (which found two bugs: a check-in made before the
    /// channel's first contact and a write that moved a sample out of a reconcile's window,
    /// each read otherwise logged late). Each envelope gets an
    /// instant of its own, and the samples no sync identity, whose equal versions the contract
    /// settles by log order. At 2aeef27 (2026-12-06) runs 3, 11 and 12 of these read other days
    /// and recovery windows in the two orders.
    @Test(arguments: Array(UInt64(1)...12))
    func aWorkloadReadsTheSameInAnyLogOrder(run: UInt64) throws {
        var workload = RandomWorkload(seed: testSeed(140 + run))
        workload.lateCheckins = true
        workload.listingReconciles = true
        var lines: [String] = []
        for (index, line) in workload.lines(count: 400).enumerated() {
            // An instant per envelope (in the line's receipt, a check-in's `at`, a reconcile's
            // window end, a page's `lastModified` alike), in order; no sync identities.
            let received = try #require(line.firstMatch(of: /"receivedAt":"([^"]+)"/)?.output.1)
            let instant = RFC3339.format(millis: 1_784_505_600_000 + Int64(index) * 1_234_567, offsetSeconds: 0)
            lines.append(
                line.replacingOccurrences(of: received, with: instant).replacing(
                    /,"syncIdentifier":"[^"]*","syncVersion":\d+/, with: ""))
        }
        var shuffled = lines
        shuffled.shuffle(using: &workload.generator)
        func readings(_ lines: [String]) throws -> [String] {
            var projections = Projections()
            _ = try ProjectionsTests.fold(lines, into: &projections)
            projections.recompute()
            var rows: [String] = []
            for user in ["alice", "bob", "carol"] {
                for metric in [Metric.steps, .heartRate, .sleep] {
                    rows += try projections.rollupRows(
                        user: user, metric: metric, from: CivilDay(parsing: "2026-07-08"),
                        to: CivilDay(parsing: "2026-08-10")
                    ).map { "\(user) \(metric.name) \($0.date) \($0.reading)" }
                    for provider in ["fitbit", "health_connect"] {
                        let cursor = projections.cursorRow(user: user, provider: provider, metric: metric)
                        rows.append(
                            "\(user) \(provider) \(metric.name) \(cursor.map { "\($0.state) \($0.recoveryWindows) \($0.unrecoverable) \($0.lastCheckinAt ?? "-")" } ?? "none")"
                        )
                    }
                }
            }
            return rows
        }
        let inReceiptOrder = try readings(lines)
        let inOtherOrder = try readings(shuffled)
        let differing = zip(inReceiptOrder, inOtherOrder).filter { $0 != $1 }
        #expect(inOtherOrder.count == inReceiptOrder.count && differing.isEmpty, "\(differing.prefix(3))")
    }

    /// A channel whose client got an expired token by T is stale as of T, whatever comes
    /// after T: a later expiry joining its stretch, or a reconcile recovering it, hid it (an
    /// attack run).
    @Test(arguments: [
        Self.page(received: "2026-07-06T00:00:00Z", expired: true),
        Self.reconcile(received: "2026-07-06T00:00:00Z", from: "2026-06-01T00:00:00Z", to: "2026-07-05T00:00:00Z"),
    ])
    func aChannelWithAnExpiredTokenByTIsStaleAsOfT(after: String) throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [Self.page(received: "2026-07-04T00:00:00Z", expired: true), after], into: &projections)
        let stale = projections.staleReport(asOf: RFC3339.parse("2026-07-05T12:00:00Z")!.millis)
        #expect(
            stale.rows.map { "\($0.user) \($0.provider) \($0.lastCheckinAt ?? "never")" } == [
                "bob health_connect never"
            ])
    }

    /// At one instant an expiry comes first. A client uploads the expired page with its fresh
    /// token's first read, and one ingest stamps both with one `receivedAt`: the read does not
    /// count as made before the expiry, so the days since the read before stay in a window, in
    /// either log order (they read as known zeros; an oracle run). A reconcile of that window
    /// uploaded with the page closes it (it never did). An expiry after a reconcile that read
    /// past it misses nothing (it left an empty window no reconcile could close; an attack run).
    @Test func anExpiryComesBeforeTheReadsAndReconcilesAtItsInstant() throws {
        let read = Self.page(received: "2026-07-01T10:00:00Z", expired: false)
        let expiry = Self.page(received: "2026-07-05T08:00:00Z", expired: true)
        let freshRead = Self.page(received: "2026-07-05T08:00:00Z", expired: false)
        let recovery = Self.reconcile(
            received: "2026-07-05T08:00:00Z", from: "2026-07-01T00:00:00Z", to: "2026-07-05T08:00:00Z")
        let earlyExpiry = Self.page(received: "2026-07-03T08:00:00Z", expired: true)
        let earlyRecovery = Self.reconcile(
            received: "2026-07-05T08:00:00Z", from: "2026-07-01T00:00:00Z", to: "2026-07-03T08:00:00Z")
        for (lines, windows) in [
            ([read, expiry, freshRead], [TimeWindow(from: "2026-07-01T10:00:00Z", to: "2026-07-05T08:00:00Z")]),
            ([read, freshRead, expiry], [TimeWindow(from: "2026-07-01T10:00:00Z", to: "2026-07-05T08:00:00Z")]),
            ([read, expiry, recovery], []), ([read, recovery, expiry], []),
            // A reconcile that closes an earlier window at the instant of a new expiry, logged
            // before it: the expiry is not an old one (it was dropped, and the week it missed
            // read as known zeros; an oracle run).
            (
                [read, earlyExpiry, earlyRecovery, expiry],
                [TimeWindow(from: "2026-07-03T08:00:00Z", to: "2026-07-05T08:00:00Z")]
            ),
            (
                [read, earlyExpiry, expiry, earlyRecovery],
                [TimeWindow(from: "2026-07-03T08:00:00Z", to: "2026-07-05T08:00:00Z")]
            ),
            (
                [
                    Self.checkin(received: "2026-07-02T00:00:00Z", at: "2026-07-02T00:00:00Z"),
                    Self.reconcile(
                        received: "2026-07-02T12:00:00Z", from: "2026-07-01T00:00:00Z", to: "2026-07-04T00:00:00Z"),
                    Self.page(received: "2026-07-03T00:00:00Z", expired: true),
                ], []
            ),
        ] {
            var projections = Projections()
            _ = try ProjectionsTests.fold(lines, into: &projections)
            let cursor = try Self.cursor(projections)
            #expect(cursor.recoveryWindows == windows, "\(lines)")
            #expect(cursor.state == (windows.isEmpty ? "ok" : "needs_recovery") && cursor.unrecoverable.isEmpty)
        }
    }

    /// Of two cursors received at one instant (a backend stamping an upload with its request
    /// time), in either log order: a good page's over an expired page's, then a read's later
    /// page (it reads on from the other's cursor), then the greater text. The text alone handed
    /// back the first page's token, or the expired page's (an oracle run).
    @Test func ofTwoCursorsAtOneInstantTheReadThatWentOnWins() throws {
        func page(_ token: String, _ next: String, expired: Bool = false) -> String {
            #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-05T08:00:00Z","recordTypes":["Steps"],"token":"\#(token)","nextChangesToken":"\#(next)","hasMore":false,"changesTokenExpired":\#(expired),"changes":[]}"#
        }
        func delivery(_ anchor: String?, _ next: String) -> String {
            #"{"kind":"healthkit.delivery","user":"bob","receivedAt":"2026-07-05T08:00:00Z","type":"steps","anchor":\#(anchor.map { "\"\($0)\"" } ?? "null"),"newAnchor":"\#(next)","added":[],"deleted":[]}"#
        }
        for (lines, provider, expected) in [
            ([page("tok-8", "tok-9"), page("tok-9", "tok-10")], "health_connect", "tok-10"),
            ([page("t1", "t2", expired: true), page("fresh", "fresh2")], "health_connect", "fresh2"),
            ([page("a", "b"), page("c", "d")], "health_connect", "d"),
            ([delivery(nil, "Yg=="), delivery("Yg==", "YQ==")], "healthkit", "YQ=="),
        ] {
            for order in [lines, lines.reversed()] {
                var projections = Projections()
                _ = try ProjectionsTests.fold(order, into: &projections)
                let cursor = projections.cursorRow(user: "bob", provider: provider, metric: .steps)?.cursor
                #expect(cursor == expected, "\(order)")
                // Folded again, nothing moves.
                _ = try ProjectionsTests.fold(order, into: &projections)
                #expect(projections.cursorRow(user: "bob", provider: provider, metric: .steps)?.cursor == expected)
            }
        }
    }

    /// A reconcile reads its window again: a token that expires after it, with no check-in
    /// between, misses only what came after the window, not the days the reconcile recovered
    /// (an attack run saw the second window reopen from the check-in before the first expiry).
    /// A reconcile whose window leaves a gap after the last read does not join it: the gap is
    /// still to read, but what the reconcile read again stays read (until 2026-12-05 the second
    /// expiry's stretch swallowed the first, and the window was listed whole again; an attack
    /// run).
    @Test(arguments: [
        ("2026-07-01T10:00:00Z", [TimeWindow(from: "2026-07-20T10:00:00Z", to: "2026-07-22T10:00:00Z")]),
        (
            "2026-07-05T00:00:00Z",
            [
                TimeWindow(from: "2026-07-01T10:00:00Z", to: "2026-07-05T00:00:00Z"),
                TimeWindow(from: "2026-07-20T10:00:00Z", to: "2026-07-22T10:00:00Z"),
            ]
        ),
    ])
    func anExpiryAfterAReconcileMissesOnlyWhatCameAfterItsWindow(reconciledFrom: String, windows: [TimeWindow]) throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.page(received: "2026-07-01T10:00:00Z", expired: false),
                Self.page(received: "2026-07-20T10:00:00Z", expired: true),
                #"{"kind":"reconcile","user":"bob","receivedAt":"2026-07-20T11:00:00Z","provider":"health_connect","metric":"steps","window":{"from":"\#(reconciledFrom)","to":"2026-07-20T10:00:00Z"},"samples":[]}"#,
                Self.page(received: "2026-07-22T10:00:00Z", expired: true),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(cursor.recoveryWindows == windows)
    }

    /// A second expiry moves the horizon past a stretch's unread parts: the stretch is then
    /// recovered (its readable rest was read again), and what is lost is the time beyond the
    /// horizon less what every reconcile received by that expiry read again. Counted by the
    /// first reconcile alone, the middle of April another had read again was unrecoverable
    /// (an oracle run).
    @Test func aStretchRecoveredByAMovedHorizonKeepsWhatWasReadAgain() throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.page(received: "2026-05-02T16:24:00Z", expired: true),
                Self.reconcile(
                    received: "2026-05-02T17:46:00Z", from: "2026-04-28T10:46:00Z", to: "2026-05-02T17:46:00Z"),
                Self.reconcile(
                    received: "2026-05-03T00:00:00Z", from: "2026-04-09T09:00:00Z", to: "2026-04-23T23:00:00Z"),
                Self.page(received: "2026-05-29T22:32:00Z", expired: true),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(
            cursor.unrecoverable == [
                TimeWindow(from: "2026-04-02T16:24:00Z", to: "2026-04-09T09:00:00Z"),
                TimeWindow(from: "2026-04-23T23:00:00Z", to: "2026-04-28T10:46:00Z"),
            ])
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-05-02T17:46:00Z", to: "2026-05-29T22:32:00Z")])
    }

    /// A stretch recovered because a later expiry moved the horizon past its unread part loses
    /// that part only until a reconcile received after the stretch's expiry reads it again,
    /// whenever that reconcile comes: counted up to the recovery alone, June 1–5 stayed
    /// unrecoverable, while the same log with the second expiry later (and the stretch still
    /// open when the reconcile came) read them known (an oracle run). As of an instant before
    /// that reconcile, the part is lost.
    @Test func aLostPartReadAgainAfterItsStretchWasRecoveredIsNotLost() throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.page(received: "2026-06-01T00:00:00Z", expired: false),
                Self.page(received: "2026-06-10T00:00:00Z", expired: true),
                Self.reconcile(
                    received: "2026-06-11T00:00:00Z", from: "2026-06-05T00:00:00Z", to: "2026-06-11T00:00:00Z"),
                Self.page(received: "2026-07-08T00:00:00Z", expired: true),
                Self.reconcile(
                    received: "2026-07-09T00:00:00Z", from: "2026-05-30T00:00:00Z", to: "2026-06-06T00:00:00Z"),
                Self.page(received: "2026-07-10T00:00:00Z", expired: false),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(cursor.unrecoverable.isEmpty)
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-06-11T00:00:00Z", to: "2026-07-08T00:00:00Z")])
        #expect(try Self.state(projections, "2026-06-02") == .known)
        let before = try projections.rollupRows(
            user: "bob", metric: .steps, from: CivilDay(parsing: "2026-06-02"), to: CivilDay(parsing: "2026-06-02"),
            asOf: Instant(rfc3339: "2026-07-08T12:00:00Z")?.millis)
        #expect(before.map(\.reading) == [.unknown(.unrecoverableGap)])
    }

    /// A reconcile logged after an expiry it was received before is a read made before that
    /// expiry, as when logged first: the window it read again is not missed. It kept the window
    /// open, and the same check-in ingested again, logged after it, closed it: ingesting the same
    /// envelopes twice changed the state (an attack run).
    @Test func aReconcileLoggedAfterAnExpiryItPrecededReadsAsBeforeIt() throws {
        let checkin = Self.checkin(received: "2026-07-30T19:00:00Z", at: "2026-07-30T19:00:00Z")
        let expiry = Self.page(received: "2026-08-14T09:00:00Z", expired: true)
        let reconcile = Self.reconcile(
            received: "2026-08-13T15:00:00Z", from: "2026-06-30T00:00:00Z", to: "2026-08-15T00:00:00Z")
        var inReceiptOrder = Projections()
        _ = try ProjectionsTests.fold([checkin, reconcile, expiry], into: &inReceiptOrder)
        var loggedLate = Projections()
        _ = try ProjectionsTests.fold([checkin, expiry, reconcile], into: &loggedLate)
        #expect(try Self.cursor(loggedLate).state == "ok")
        #expect(try Self.cursor(loggedLate) == Self.cursor(inReceiptOrder))
        let once = loggedLate.digest()
        _ = try ProjectionsTests.fold([checkin, expiry, reconcile], into: &loggedLate)
        #expect(loggedLate.digest() == once, "ingested twice, nothing changes")
    }

    /// An expired page logged after a later expired page of its channel opens its window as in
    /// receipt order: dropped as old, the days it missed read as known zeros (an attack run).
    /// Folded again, it changes nothing.
    @Test func anExpiryLoggedAfterALaterOneOpensItsWindow() throws {
        let pages = [
            Self.page(received: "2026-07-03T12:00:00Z", expired: false),
            Self.page(received: "2026-07-05T12:00:00Z", expired: true),
            Self.page(received: "2026-07-07T12:00:00Z", expired: false),
            Self.page(received: "2026-07-11T12:00:00Z", expired: true),
            Self.page(received: "2026-07-12T12:00:00Z", expired: false),
        ]
        var inReceiptOrder = Projections()
        _ = try ProjectionsTests.fold(pages, into: &inReceiptOrder)
        var loggedLate = Projections()
        _ = try ProjectionsTests.fold([pages[0], pages[2], pages[3], pages[1], pages[4]], into: &loggedLate)
        let windows = [
            TimeWindow(from: "2026-07-03T12:00:00Z", to: "2026-07-05T12:00:00Z"),
            TimeWindow(from: "2026-07-07T12:00:00Z", to: "2026-07-11T12:00:00Z"),
        ]
        #expect(try Self.cursor(inReceiptOrder).recoveryWindows == windows)
        #expect(try Self.cursor(loggedLate).recoveryWindows == windows)
        #expect(try Self.state(loggedLate, "2026-07-04") == .unknown)
        let once = loggedLate.digest()
        _ = try ProjectionsTests.fold([pages[1]], into: &loggedLate)
        #expect(loggedLate.digest() == once, "folded again, nothing changes")
    }

    /// A check-in logged after the expiry it was made before reads on through the reconciles
    /// received before the expiry, as one logged in time does (it moved the stretch's start to
    /// the check-in alone, holding days a reconcile had read unknown; an attack run); one made
    /// an hour before the expiry leaves that hour missed.
    @Test(arguments: [
        ("2026-09-02T00:00:00Z", [TimeWindow(from: "2026-09-05T00:00:00Z", to: "2026-09-06T00:00:00Z")]),
        ("2026-09-05T23:00:00Z", [TimeWindow(from: "2026-09-05T23:00:00Z", to: "2026-09-06T00:00:00Z")]),
    ])
    func aLateCheckInReadsOnThroughTheReconcilesBeforeTheExpiry(at: String, windows: [TimeWindow]) throws {
        let reconcile = Self.reconcile(
            received: "2026-09-05T00:00:00Z", from: "2026-09-01T00:00:00Z", to: "2026-09-05T00:00:00Z")
        let expiry = Self.page(received: "2026-09-06T00:00:00Z", expired: true)
        let late = Self.checkin(received: "2026-09-07T00:00:00Z", at: at)
        let onTime = Self.checkin(received: at, at: at)
        var inLogOrder = Projections()
        _ = try ProjectionsTests.fold([reconcile, expiry, late], into: &inLogOrder)
        let cursor = try Self.cursor(inLogOrder)
        #expect(cursor.recoveryWindows == windows)
        #expect(cursor.state == (windows.isEmpty ? "ok" : "needs_recovery"))
        var inTime = Projections()
        _ = try ProjectionsTests.fold([onTime, reconcile, expiry], into: &inTime)
        #expect(
            try Self.cursor(inTime).recoveryWindows
                == windows)
    }

    /// A check-in logged after several expiries it was made before counts for each: a stretch
    /// that started later, without it, starts where the client had read by its expiry, as in
    /// receipt order (a random log of an attack run's model kept such a stretch open).
    @Test func aLateCheckInCountsForEveryExpiryAfterIt() throws {
        let reconcile = Self.reconcile(
            received: "2026-09-14T00:00:00Z", from: "2026-09-13T13:00:00Z", to: "2026-10-01T01:00:00Z")
        let expiries = ["2026-09-15T00:00:00Z", "2026-09-15T19:00:00Z", "2026-09-15T20:00:00Z"].map {
            Self.page(received: $0, expired: true)
        }
        let late = Self.checkin(received: "2026-09-19T16:00:00Z", at: "2026-09-15T12:00:00Z")
        let onTime = Self.checkin(received: "2026-09-15T12:00:00Z", at: "2026-09-15T12:00:00Z")
        var inLogOrder = Projections()
        _ = try ProjectionsTests.fold([reconcile] + expiries + [late], into: &inLogOrder)
        var inReceiptOrder = Projections()
        _ = try ProjectionsTests.fold(
            [reconcile, expiries[0], onTime, expiries[1], expiries[2]], into: &inReceiptOrder)
        for projections in [inLogOrder, inReceiptOrder] {
            let cursor = try Self.cursor(projections)
            #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-08-16T20:00:00Z", to: "2026-09-15T00:00:00Z")])
        }
    }

    /// A window re-read in part, then a second expiry with no read between: the part read again
    /// stays read, the rest of the first window and the second stretch are left to read, as one
    /// window where they meet; a reconcile of those alone closes the channel. Folded in one go
    /// or line by line, and as of an instant between the expiries, the same (an attack run: the
    /// second expiry listed the first window whole again).
    @Test func aSecondExpiryKeepsWhatWasReadAgainRead() throws {
        let lines = [
            Self.checkin(received: "2026-11-01T00:00:00Z", at: "2026-11-01T00:00:00Z"),
            Self.page(received: "2026-11-11T00:00:00Z", expired: true),
            Self.reconcile(received: "2026-11-12T00:00:00Z", from: "2026-11-01T00:00:00Z", to: "2026-11-06T00:00:00Z"),
            Self.page(received: "2026-11-15T00:00:00Z", expired: true),
        ]
        var projections = Projections()
        _ = try ProjectionsTests.fold(lines, into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-11-06T00:00:00Z", to: "2026-11-15T00:00:00Z")])
        // Why a day is not known, now and as of an instant between the expiries.
        func reason(_ day: String, asOf: String? = nil) throws -> RollupRow.Reason? {
            let day = CivilDay(parsing: day)
            let asOf = try asOf.map { try #require(Instant(rfc3339: $0)).millis }
            return try projections.rollupRows(user: "bob", metric: .steps, from: day, to: day, asOf: asOf).first?
                .reading.reason
        }
        #expect(try reason("2026-11-03") == .noCheckinSinceDayEnd, "read again")
        #expect(try reason("2026-11-08") == .recoveryWindowOpen)
        #expect(try reason("2026-11-03", asOf: "2026-11-13T00:00:00Z") == .noCheckinSinceDayEnd)
        #expect(try reason("2026-11-08", asOf: "2026-11-13T00:00:00Z") == .recoveryWindowOpen)
        var oneByOne = Projections()
        for line in lines { _ = try ProjectionsTests.fold([line], into: &oneByOne) }
        #expect(oneByOne.digest() == projections.digest())
        _ = try ProjectionsTests.fold(
            [
                Self.reconcile(
                    received: "2026-11-16T00:00:00Z", from: "2026-11-06T00:00:00Z", to: "2026-11-15T00:00:00Z")
            ],
            into: &projections)
        let closed = try Self.cursor(projections)
        #expect(closed.state == "ok" && closed.recoveryWindows.isEmpty, "\(closed)")
    }

    /// A reconcile received after an expiry but logged before it, and a check-in made before
    /// the expiry but logged after both: the check-in shortens the missed stretch to what the
    /// reconcile covers, which recovers it at once. It did only when the same envelopes were
    /// ingested again (the reconcile then folded after the shortened stretch; rule 7, found by
    /// an attack run).
    @Test func aLateCheckInLetsAReconcileFoldedBeforeItRecover() throws {
        let lines = [
            #"{"kind":"reconcile","user":"bob","receivedAt":"2026-07-17T22:37:00Z","provider":"health_connect","metric":"steps","window":{"from":"2026-07-13T11:00:00Z","to":"2026-07-16T11:00:00Z"},"samples":[]}"#,
            Self.page(received: "2026-07-15T06:53:00Z", expired: true),
            #"{"kind":"checkin","user":"bob","receivedAt":"2026-07-16T04:14:00Z","provider":"health_connect","metrics":["steps"],"at":"2026-07-15T03:53:00Z"}"#,
        ]
        var once = Projections()
        _ = try ProjectionsTests.fold(lines, into: &once)
        let cursor = try Self.cursor(once)
        #expect(cursor.state == "ok" && cursor.recoveryWindows.isEmpty, "\(cursor)")
        var twice = once
        _ = try ProjectionsTests.fold(lines, into: &twice)
        #expect(twice.digest() == once.digest())
    }

    /// A second expiry more than 30 days after the first loses what lies beyond 30 days of
    /// either window, but not the days read between them.
    @Test func aLateSecondExpiryLosesOnlyWhatWasMissed() throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.checkin(received: "2026-05-01T00:00:00Z", at: "2026-05-01T00:00:00Z"),
                Self.page(received: "2026-05-10T00:00:00Z", expired: true),
                Self.checkin(received: "2026-05-12T00:00:00Z", at: "2026-05-12T00:00:00Z"),
                Self.page(received: "2026-06-20T00:00:00Z", expired: true),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(
            cursor.unrecoverable == [
                TimeWindow(from: "2026-05-01T00:00:00Z", to: "2026-05-10T00:00:00Z"),
                TimeWindow(from: "2026-05-12T00:00:00Z", to: "2026-05-21T00:00:00Z"),
            ])
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-05-21T00:00:00Z", to: "2026-06-20T00:00:00Z")])
        #expect(try Self.state(projections, "2026-05-11") == .known)
        #expect(try Self.state(projections, "2026-05-15") == .unknown)
    }

    /// A check-in made before an expiry but logged after it starts the window where it would
    /// have, had it been logged first.
    @Test func aCheckInLoggedAfterTheExpiryItPrecededShortensTheWindow() throws {
        let checkin = Self.checkin(received: "2026-07-06T00:00:00Z", at: "2026-07-03T00:00:00Z")
        let expiry = Self.page(received: "2026-07-05T00:00:00Z", expired: true)
        let start = Self.checkin(received: "2026-05-20T00:00:00Z", at: "2026-05-20T00:00:00Z")
        var rows: [CursorRow] = []
        for order in [[start, checkin, expiry], [start, expiry, checkin]] {
            var projections = Projections()
            _ = try ProjectionsTests.fold(order, into: &projections)
            rows.append(try Self.cursor(projections))
        }
        #expect(rows[0].recoveryWindows == [TimeWindow(from: "2026-07-03T00:00:00Z", to: "2026-07-05T00:00:00Z")])
        #expect(rows[1] == rows[0])
        #expect(rows[1].unrecoverable.isEmpty)
    }

    /// Of two reconciles that each read a missed stretch again, the one received first
    /// recovered it, in every order of the log: logged after the later one, it left the later
    /// one as the channel's newest recovery, and ingesting the log again moved the digest (a
    /// random workload ingested twice).
    @Test func theFirstReconcileReceivedRecoversAStretchInEveryOrder() throws {
        let lines = [
            Self.checkin(received: "2026-07-01T00:00:00Z", at: "2026-07-01T00:00:00Z"),
            Self.page(received: "2026-07-03T00:00:00Z", expired: true),
            Self.reconcile(received: "2026-07-04T00:00:00Z", from: "2026-06-30T00:00:00Z", to: "2026-07-04T00:00:00Z"),
            Self.reconcile(received: "2026-07-05T00:00:00Z", from: "2026-06-30T00:00:00Z", to: "2026-07-05T00:00:00Z"),
        ]
        var receiptOrder = Projections()
        _ = try ProjectionsTests.fold(lines, into: &receiptOrder)
        #expect(try Self.cursor(receiptOrder).recoveryWindows.isEmpty)
        for order in ProjectionsTests.permutations(lines) {
            var projections = Projections()
            _ = try ProjectionsTests.fold(order, into: &projections)
            #expect(projections.digest() == receiptOrder.digest(), "\(order)")
        }
    }

    /// A check-in made before the channel's first contact and logged after an expiry starts
    /// that expiry's window, as when logged first, whether it was received before the expiry or
    /// after it: the window started at the first contact, and a day between the two read as a
    /// known 0 (an oracle run).
    @Test(arguments: ["2026-07-04T12:00:00Z", "2026-07-06T00:00:00Z"])
    func aCheckInMadeBeforeTheFirstContactStartsTheWindowInAnyLogOrder(received: String) throws {
        let contact =
            #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-04T04:00:00Z","recordTypes":["Steps"],"token":"t0","nextChangesToken":"t","hasMore":true,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"s1","type":"Steps","start":"2026-07-02T10:00:00Z","end":"2026-07-02T11:00:00Z","value":100,"unit":"count","origin":"app"}}]}"#
        let checkin = Self.checkin(received: received, at: "2026-07-03T06:00:00Z")
        let expiry = Self.page(received: "2026-07-05T22:00:00Z", expired: true)
        let read = Self.page(received: "2026-07-06T10:00:00Z", expired: false)
        for order in [
            [contact, checkin, expiry, read], [contact, expiry, checkin, read], [contact, expiry, read, checkin],
        ] {
            var projections = Projections()
            _ = try ProjectionsTests.fold(order, into: &projections)
            let cursor = try Self.cursor(projections)
            #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-07-03T06:00:00Z", to: "2026-07-05T22:00:00Z")])
            projections.recompute()
            #expect(try Self.state(projections, "2026-07-02") == .known)
            #expect(try Self.state(projections, "2026-07-03") == .unknown)
        }
    }

    /// A reinstall's nil-anchor re-delivery is reported as such, with zero new samples, and a
    /// client re-sending the same all-known delivery is flagged as stuck. The first sync, nil
    /// anchored as every first sync is, is not a re-delivery.
    @Test func aFullReDeliveryIsReportedAndARepeatingClientIsFlagged() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let samples = (0..<5).map {
                Self.steps("s\($0)", "2026-07-14T0\($0):00:00-07:00", "2026-07-14T0\($0):30:00-07:00", 100)
            }
            _ = try engine.ingest(
                ndjson: Array(Self.delivery(received: "2026-07-14T20:00:00Z", anchor: nil, added: samples).utf8),
                source: "1")
            let first = try #require(try engine.cursor(user: "alice", provider: "healthkit", metric: "steps"))
            #expect(first.fullRedeliveries == 0 && first.lastFullRedelivery == nil)
            let again = try engine.ingest(
                ndjson: Array(Self.delivery(received: "2026-07-15T20:00:00Z", anchor: nil, added: samples).utf8),
                source: "2")
            #expect(again.newSamples == 0 && again.knownSamples == 5)
            var cursor = try #require(try engine.cursor(user: "alice", provider: "healthkit", metric: "steps"))
            #expect(
                cursor.fullRedeliveries == 1 && cursor.lastFullRedelivery?.new == 0
                    && cursor.lastFullRedelivery?.known == 5)
            #expect(cursor.cursor == "Yg==" && cursor.kind == "healthkit.anchor" && !cursor.stuck)
            for day in 16...18 {
                _ = try engine.ingest(
                    ndjson: Array(
                        Self.delivery(received: "2026-07-\(day)T20:00:00Z", anchor: "Yg==", added: samples).utf8),
                    source: "repeat")
            }
            cursor = try #require(try engine.cursor(user: "alice", provider: "healthkit", metric: "steps"))
            #expect(cursor.stuck)
            // The operator's summary shows the storm: one full re-delivery of five known samples,
            // and a stuck client.
            let stats = try engine.stats()
            #expect(stats.liveSamples == 5 && stats.users == 1)
            let healthKit = try #require(stats.providers.first)
            #expect(stats.providers.map(\.provider) == ["healthkit"])
            #expect(healthKit.fullRedeliveries == 1 && healthKit.redeliveredNew == 0 && healthKit.redeliveredKnown == 5)
            #expect(healthKit.stuck == 1 && healthKit.channels == 1 && healthKit.needsRecovery == 0)
            try engine.close()
        }
    }

    /// The delivery counters count deliveries, not folds: ingesting every envelope again leaves
    /// them as they were, and a first sync logged after a later delivery is not a re-delivery.
    @Test func deliveryCountersCountEachDeliveryOnce() throws {
        let samples = (0..<3).map {
            Self.steps("s\($0)", "2026-07-14T0\($0):00:00-07:00", "2026-07-14T0\($0):30:00-07:00", 100)
        }
        let lines =
            [
                Self.delivery(received: "2026-07-14T20:00:00Z", anchor: nil, added: samples),
                Self.delivery(received: "2026-07-15T20:00:00Z", anchor: nil, added: samples),
            ] + (16...18).map { Self.delivery(received: "2026-07-\($0)T20:00:00Z", anchor: "Yg==", added: samples) }
        var once = Projections()
        _ = try ProjectionsTests.fold(lines, into: &once)
        var twice = Projections()
        _ = try ProjectionsTests.fold(lines + lines, into: &twice)
        let row = try #require(once.cursorRow(user: "alice", provider: "healthkit", metric: .steps))
        #expect(row.fullRedeliveries == 1 && row.lastFullRedelivery?.known == 3 && row.stuck)
        #expect(twice.cursorRow(user: "alice", provider: "healthkit", metric: .steps) == row)
        #expect(twice.stats().providers == once.stats().providers)

        var late = Projections()
        _ = try ProjectionsTests.fold([lines[2], lines[0]], into: &late)
        #expect(late.cursorRow(user: "alice", provider: "healthkit", metric: .steps)?.fullRedeliveries == 0)
    }

    /// Check-ins folded late or twice take their place once, in order, and `--as-of` reads the
    /// newest one at or before its instant.
    @Test func checkInsAreKeptInOrderOnceEach() {
        var state = SyncState()
        for millis: Int64 in [5, 3, 5, 4, 1, 3, 6] { state.checkIn(at: millis, received: millis) }
        #expect(state.checkins == [1, 3, 4, 5, 6])
        #expect(state.lastCheckin(atOrBefore: 2) == 1 && state.lastCheckin(atOrBefore: 5) == 5)
        #expect(state.lastCheckin(atOrBefore: 0) == nil && state.lastCheckin(atOrBefore: nil) == 6)
    }

    /// Per provider and cohort, the fraction of users whose last check-in is older than their
    /// expected interval.
    @Test func theStaleFractionPerProviderFollowsEachCohortsInterval() throws {
        var projections = Projections()
        var lines = [
            #"{"kind":"config.provider","user":"*","receivedAt":"2026-07-01T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":3600}"#,
            #"{"kind":"config.provider","user":"u3","receivedAt":"2026-07-01T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":604800,"cohort":"weekly"}"#,
            #"{"kind":"config.provider","user":"u4","receivedAt":"2026-07-01T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":604800,"cohort":"weekly"}"#,
        ]
        for (user, at) in [
            ("u1", "2026-07-20T11:30:00Z"), ("u2", "2026-07-20T08:00:00Z"), ("u3", "2026-07-15T00:00:00Z"),
            ("u4", "2026-07-10T00:00:00Z"),
        ] {
            lines.append(
                #"{"kind":"checkin","user":"\#(user)","receivedAt":"\#(at)","provider":"fitbit","metrics":["steps"],"at":"\#(at)"}"#
            )
        }
        _ = try ProjectionsTests.fold(lines, into: &projections)
        let report = projections.staleReport(asOf: RFC3339.parse("2026-07-20T12:00:00Z")!.millis)
        #expect(report.rows.map(\.user) == ["u2", "u4"])
        let silence: Int64? = 14_400
        #expect(report.rows.first?.silenceSeconds == silence, "four hours")
        #expect(
            report.fractions.map { "\($0.provider)/\($0.cohort ?? "-") \($0.staleUsers)/\($0.users)" } == [
                "fitbit/- 1/2", "fitbit/weekly 1/2",
            ])
        #expect(projections.stats().users == 4, "the `*` of the config defaults is not a user")
        // "Older than" its interval, to the millisecond: u1 checked in at 11:30 every hour.
        func staleUsers(at instant: String) -> [String] {
            projections.staleReport(asOf: RFC3339.parse(instant)!.millis).rows.map(\.user)
        }
        #expect(staleUsers(at: "2026-07-20T12:30:00.000Z") == ["u2", "u4"])
        #expect(staleUsers(at: "2026-07-20T12:30:00.001Z") == ["u1", "u2", "u4"])
        // Its silence is shown rounded up, more than the interval (it showed 3,600 against 3,600).
        let justStale = projections.staleReport(asOf: RFC3339.parse("2026-07-20T12:30:00.001Z")!.millis).rows
        #expect(justStale.first.map { "\($0.user) \($0.silenceSeconds ?? 0) \($0.expectedSeconds)" } == "u1 3601 3600")
    }

    /// `stale --as-of T` reads the `config.provider` settings in force at T: a week's interval
    /// set after T does not clear a channel stale by the hour's interval of then, and a user's
    /// own setting counts only from its receipt (before it, the `*` one did). Read from today's
    /// settings, the past answer changed with every later setting. Folded in either order, or
    /// twice, the settings give the same answers.
    @Test(arguments: [false, true])
    func staleAsOfAnInstantReadsTheProviderSettingsThen(reversed: Bool) throws {
        let settings = [
            #"{"kind":"config.provider","user":"*","receivedAt":"2026-07-01T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":3600}"#,
            #"{"kind":"config.provider","user":"*","receivedAt":"2026-07-21T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":604800}"#,
            #"{"kind":"config.provider","user":"u2","receivedAt":"2026-07-21T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":7200,"cohort":"c"}"#,
            #"{"kind":"config.provider","user":"u2","receivedAt":"2026-07-21T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":60}"#,
        ]
        let checkins = ["u1", "u2"].map { user in
            #"{"kind":"checkin","user":"\#(user)","receivedAt":"2026-07-20T08:00:00Z","provider":"fitbit","metrics":["steps"],"at":"2026-07-20T08:00:00Z"}"#
        }
        var projections = Projections()
        let ordered = reversed ? settings.reversed() + settings : settings
        _ = try ProjectionsTests.fold(ordered + checkins, into: &projections)
        func stale(at instant: String) -> [String] {
            projections.staleReport(asOf: RFC3339.parse(instant)!.millis).rows.map {
                "\($0.user) \($0.expectedSeconds) \($0.cohort ?? "-")"
            }
        }
        // Four hours after the check-ins: the hour's interval was in force for both users.
        #expect(stale(at: "2026-07-20T12:00:00Z") == ["u1 3600 -", "u2 3600 -"])
        // After the new settings: u1 has a week; u2 its own two hours (the greater of two at
        // one instant), in its cohort.
        #expect(stale(at: "2026-07-21T12:00:00Z") == ["u2 7200 c"])
        #expect(projections.providerSetting(user: "u1", provider: "fitbit").seconds == 604_800)
        // A checkpoint keeps every setting, so a loaded store answers the past the same.
        projections = try Projections(checkpoint: projections.checkpoint())
        #expect(stale(at: "2026-07-20T12:00:00Z") == ["u1 3600 -", "u2 3600 -"])
        #expect(stale(at: "2026-07-21T12:00:00Z") == ["u2 7200 c"])
    }

    /// `stale --as-of T` counts the check-ins received by T: one made before T but received after
    /// it was not one a question asked at T knew (until 2026-12-06 it counted, so a late upload
    /// changed the answer about the past). A check-in received twice counts from its first
    /// receipt, whichever is logged first.
    @Test(arguments: [false, true])
    func staleAsOfAnInstantCountsTheCheckinsReceivedByIt(reversed: Bool) throws {
        func checkin(received: String, at: String) -> String {
            #"{"kind":"checkin","user":"u","receivedAt":"\#(received)","provider":"fitbit","metrics":["steps"],"at":"\#(at)"}"#
        }
        let setting =
            #"{"kind":"config.provider","user":"*","receivedAt":"2026-07-01T00:00:00Z","provider":"fitbit","expectedCheckinSeconds":60}"#
        let early = checkin(received: "2026-07-20T08:00:00Z", at: "2026-07-20T08:00:00Z")
        // Made at 10:00, uploaded at 14:00; and the same check-in, retried, through at 12:00.
        let late = checkin(received: "2026-07-20T14:00:00Z", at: "2026-07-20T10:00:00Z")
        let retried = checkin(received: "2026-07-20T12:00:00Z", at: "2026-07-20T10:00:00Z")
        func lastCheckins(_ envelopes: [String], at instants: [String]) throws -> [String] {
            var projections = Projections()
            _ = try ProjectionsTests.fold([setting] + (reversed ? envelopes.reversed() : envelopes), into: &projections)
            func answers() -> [String] {
                instants.map { instant in
                    projections.staleReport(asOf: RFC3339.parse(instant)!.millis).rows.map { $0.lastCheckinAt ?? "-" }
                        .joined()
                }
            }
            let folded = answers()
            // A checkpoint keeps the receipts, so a loaded store answers the past the same.
            projections = try Projections(checkpoint: projections.checkpoint())
            #expect(answers() == folded)
            return folded
        }
        let instants = ["2026-07-20T11:00:00Z", "2026-07-20T13:00:00Z", "2026-07-20T15:00:00Z"]
        #expect(
            try lastCheckins([early, late], at: instants) == [
                "2026-07-20T08:00:00Z", "2026-07-20T08:00:00Z", "2026-07-20T10:00:00Z",
            ])
        #expect(
            try lastCheckins([early, late, retried], at: instants) == [
                "2026-07-20T08:00:00Z", "2026-07-20T10:00:00Z", "2026-07-20T10:00:00Z",
            ])
    }

    /// Two logs whose only difference is when one check-in was received answer `stale --as-of`
    /// differently, so their digests differ: `verify` compares what answers about the past
    /// read (until 2026-12-06 the digest left the receipts out, and the two were equal). Each
    /// log folded twice keeps its digest: a receipt is the earliest of its deliveries.
    @Test func theDigestTellsApartCheckinsReceivedAtOtherInstants() throws {
        let setting =
            #"{"kind":"config.provider","user":"*","receivedAt":"2026-07-01T00:00:00Z","provider":"health_connect","expectedCheckinSeconds":60}"#
        let early = Self.checkin(received: "2026-07-20T08:00:00Z", at: "2026-07-20T08:00:00Z")
        // Made at 10:00 and uploaded at 14:00, or at 12:00.
        let uploads = ["2026-07-20T14:00:00Z", "2026-07-20T12:00:00Z"].map {
            Self.checkin(received: $0, at: "2026-07-20T10:00:00Z")
        }
        var answers: [String] = []
        var digests: Set<[UInt8]> = []
        for upload in uploads {
            var projections = Projections()
            _ = try ProjectionsTests.fold([setting, early, upload], into: &projections)
            let asOf = RFC3339.parse("2026-07-20T13:00:00Z")!.millis
            answers.append(projections.staleReport(asOf: asOf).rows.map { $0.lastCheckinAt ?? "-" }.joined())
            let digest = projections.digest()
            digests.insert(digest)
            var twice = Projections()
            _ = try ProjectionsTests.fold([setting, early, upload, setting, early, upload], into: &twice)
            #expect(twice.digest() == digest)
        }
        #expect(answers == ["2026-07-20T08:00:00Z", "2026-07-20T10:00:00Z"])
        #expect(digests.count == 2)
    }

    /// `stale --as-of T` answers as the log held it at T: on random workloads whose envelopes
    /// come out of receipt order (check-ins made hours before their upload, `config.provider`
    /// settings for `*` and for users, Health Connect pages with expired tokens, reconciles),
    /// the report as of T over the whole log is the report as of T over only the envelopes
    /// received by T, for instants across the workload.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func staleAsOfAnInstantIsTheReportOfWhatWasReceivedByIt(run: UInt64) throws {
        var workload = RandomWorkload(seed: testSeed(90 + run))
        var lines = workload.lines(count: 120)
        for _ in 0..<60 {
            let user = workload.pick(["alice", "bob", "carol", "*"])
            let received = 19 * 24 * 60 + Int(workload.generator.next() % (4 * 24 * 60))
            func instant(_ minutes: Int) -> String {
                "2026-07-\(minutes / 1440 + 1)T\(String(format: "%02d:%02d", minutes / 60 % 24, minutes % 60)):00Z"
            }
            let provider = workload.pick(["fitbit", "health_connect"])
            let line =
                user == "*" || workload.generator.next() % 3 == 0
                ? #"{"kind":"config.provider","user":"\#(user)","receivedAt":"\#(instant(received))","provider":"\#(provider)","expectedCheckinSeconds":\#(workload.pick([3600, 7200, 43200]))\#(workload.pick(["", #","cohort":"beta""#]))}"#
                : #"{"kind":"checkin","user":"\#(user)","receivedAt":"\#(instant(received))","provider":"\#(provider)","metrics":["steps","sleep"],"at":"\#(instant(received - Int(workload.generator.next() % 360)))"}"#
            lines.insert(line, at: Int(workload.generator.next() % UInt64(lines.count + 1)))
        }
        let envelopes = try ProjectionsTests.envelopes(lines)
        var whole = Projections()
        for envelope in envelopes { _ = whole.apply(envelope, at: whole.position + 1) }
        var rows = 0
        for hour in stride(from: 19 * 24 + 12, through: 23 * 24, by: 7) {
            let instant = Int64(1_782_864_000_000) + Int64(hour) * 3_600_000  // 2026-07-01 + hours
            var then = Projections()
            for envelope in envelopes where envelope.receivedAt.millis <= instant {
                _ = then.apply(envelope, at: then.position + 1)
            }
            let report = whole.staleReport(asOf: instant)
            #expect(report == then.staleReport(asOf: instant), "as of \(report.asOf)")
            rows += report.rows.count
        }
        #expect(rows > 20, "\(rows) stale rows compared")
    }

    /// A third expiry whose last read falls in a held stretch goes on from its end through the
    /// reconciles received since, so a stretch between them that one recovered stays read (it
    /// was listed again, and its day held unknown; an oracle run).
    @Test func anExpiryGoesOnThroughAStretchAReconcileRecovered() throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.checkin(received: "2026-07-10T00:00:00Z", at: "2026-07-10T00:00:00Z"),
                Self.page(received: "2026-07-11T00:00:00Z", expired: true),
                Self.page(received: "2026-07-12T00:00:00Z", expired: true),
                Self.reconcile(
                    received: "2026-07-12T06:00:00Z", from: "2026-07-11T00:00:00Z", to: "2026-07-12T06:00:00Z"),
                Self.page(received: "2026-07-13T00:00:00Z", expired: true),
                Self.checkin(received: "2026-07-13T01:00:00Z", at: "2026-07-13T01:00:00Z"),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(
            cursor.recoveryWindows == [
                TimeWindow(from: "2026-07-10T00:00:00Z", to: "2026-07-11T00:00:00Z"),
                TimeWindow(from: "2026-07-12T06:00:00Z", to: "2026-07-13T00:00:00Z"),
            ])
        #expect(try Self.state(projections, "2026-07-11") == .known)
    }

    /// Days a reconcile read again stay read when a later expiry moves the horizon past them,
    /// though another part of their stretch is still open (they turned unrecoverable; an
    /// oracle run).
    @Test func daysReadAgainAreNotLostWhenTheHorizonMovesPastThem() throws {
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                Self.checkin(received: "2026-06-01T00:00:00Z", at: "2026-06-01T00:00:00Z"),
                Self.page(received: "2026-06-20T00:00:00Z", expired: true),
                Self.reconcile(
                    received: "2026-06-20T01:00:00Z", from: "2026-06-01T00:00:00Z", to: "2026-06-19T00:00:00Z"),
                Self.checkin(received: "2026-06-21T00:00:00Z", at: "2026-06-21T00:00:00Z"),
                Self.page(received: "2026-07-15T00:00:00Z", expired: true),
            ], into: &projections)
        let cursor = try Self.cursor(projections)
        #expect(cursor.unrecoverable == [])
        #expect(
            cursor.recoveryWindows == [
                TimeWindow(from: "2026-06-19T00:00:00Z", to: "2026-06-20T00:00:00Z"),
                TimeWindow(from: "2026-06-21T00:00:00Z", to: "2026-07-15T00:00:00Z"),
            ])
        #expect(try Self.state(projections, "2026-06-10") == .known)
    }

    /// A recovery window cut shorter (by a reconcile of part of it, or a check-in logged late)
    /// moves no version of the days it still meets: their readings did not change (`changes`
    /// listed them, old and new the same; an oracle run).
    @Test func aWindowCutShorterMovesNoVersion() throws {
        let steps =
            #"{"id":"s1","type":"Steps","start":"2026-07-10T08:00:00Z","end":"2026-07-10T08:30:00Z","value":100,"unit":"count","origin":"com.x"}"#
        let lines = [
            #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-07-10T12:00:00Z","recordTypes":["Steps"],"token":"t0","nextChangesToken":"t1","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":\#(steps)}]}"#,
            Self.page(received: "2026-07-12T12:00:00Z", expired: true),
            Self.reconcile(received: "2026-07-12T13:00:00Z", from: "2026-07-11T12:00:00Z", to: "2026-07-12T12:00:00Z"),
            Self.checkin(received: "2026-07-12T14:00:00Z", at: "2026-07-10T18:00:00Z"),
        ]
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            _ = try engine.ingest(ndjson: Array(lines.joined(separator: "\n").utf8), source: "page")
            #expect(try engine.changes(since: 2).isEmpty)
            let day = try engine.rollups(user: "bob", metric: "steps", from: "2026-07-10", to: "2026-07-10")
            #expect(day.map(\.reading) == [.partial([RollupRow.Value(name: "value", value: 100)], .recoveryWindowOpen)])
            try engine.close()
        }
    }

    /// `stale` as of a past instant counts a channel from its client's first cursor, and the
    /// user has a provider from a check-in's receipt: a later page no longer takes a stuck read
    /// out of the answer about an earlier instant, and a check-in received later no longer
    /// puts the provider in it (`rollups` as of then did not either; an oracle run).
    @Test func staleAsOfAPastInstantIsNotChangedByWhatCameLater() throws {
        func page(_ received: String, _ token: String) -> String {
            #"{"kind":"healthconnect.changes","user":"u1","receivedAt":"\#(received)","recordTypes":["Steps"],"token":"\#(token)","nextChangesToken":"\#(token)+","hasMore":true,"changesTokenExpired":false,"changes":[]}"#
        }
        let checkin =
            #"{"kind":"checkin","user":"u2","receivedAt":"2026-07-13T01:00:00Z","provider":"fitbit","metrics":["steps"],"at":"2026-07-12T05:00:00Z"}"#
        var projections = Projections()
        _ = try ProjectionsTests.fold([page("2026-07-10T01:00:00Z", "t0"), checkin], into: &projections)
        let asOf = try #require(Instant(rfc3339: "2026-07-12T01:00:00Z")).millis
        let before = projections.staleReport(asOf: asOf)
        #expect(before.rows.map { "\($0.user) \($0.provider)" } == ["u1 health_connect"], "opened by its first page")
        _ = try ProjectionsTests.fold([page("2026-07-13T01:00:00Z", "t1")], into: &projections)
        #expect(projections.staleReport(asOf: asOf) == before)
        let atNine = try #require(Instant(rfc3339: "2026-07-12T09:00:00Z")).millis
        #expect(
            !projections.staleReport(asOf: atNine).fractions.contains { $0.provider == "fitbit" },
            "u2's check-in came later")
    }

    /// A channel whose read never ended before its token expired missed everything since it
    /// first came: what lies beyond the horizon is lost, not known 0 once a check-in comes
    /// (days nobody read were known zeros; an oracle run). An expiry on the channel's first page
    /// still starts at the horizon: its token came from a read the log does not hold.
    @Test func anExpiryWithoutAnyReadMissedEverythingSinceTheChannelCame() throws {
        let firstPage =
            #"{"kind":"healthconnect.changes","user":"bob","receivedAt":"2026-06-01T12:00:00Z","recordTypes":["Steps"],"token":"t0","nextChangesToken":"t1","hasMore":true,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"s1","type":"Steps","start":"2026-06-01T10:00:00Z","end":"2026-06-01T10:30:00Z","value":5,"unit":"count","origin":"com.x"}}]}"#
        var projections = Projections()
        _ = try ProjectionsTests.fold(
            [
                firstPage, Self.page(received: "2026-07-20T00:00:00Z", expired: true),
                Self.checkin(received: "2026-07-21T00:00:00Z", at: "2026-07-21T00:00:00Z"),
            ], into: &projections)
        _ = projections.recompute()
        let cursor = try Self.cursor(projections)
        #expect(cursor.unrecoverable == [TimeWindow(from: "2026-06-01T12:00:00Z", to: "2026-06-20T00:00:00Z")])
        #expect(cursor.recoveryWindows == [TimeWindow(from: "2026-06-20T00:00:00Z", to: "2026-07-20T00:00:00Z")])
        #expect(try Self.state(projections, "2026-06-01") == .partial)
        #expect(try Self.state(projections, "2026-06-10") == .unknown)

        var first = Projections()
        _ = try ProjectionsTests.fold([Self.page(received: "2026-07-20T00:00:00Z", expired: true)], into: &first)
        let alone = try Self.cursor(first)
        #expect(alone.recoveryWindows == [TimeWindow(from: "2026-06-20T00:00:00Z", to: "2026-07-20T00:00:00Z")])
        #expect(alone.unrecoverable == [])
    }
}
