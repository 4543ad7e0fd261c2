/// What the projections know of one (user, provider, metric) sync channel (contract §3 rules
/// 8–10): its newest cursor, when the client last checked in, when samples last arrived, and
/// whether a window must be read again.
package struct SyncState: Equatable, Sendable {
    /// The kind of cursor a provider hands out.
    package enum CursorKind: UInt8, Sendable {
        /// A HealthKit `HKQueryAnchor`, archived and base64-encoded.
        case healthKitAnchor = 1
        /// A Health Connect changes token.
        case healthConnectToken = 2
    }

    /// Health Connect reads at most this far back without the history permission.
    package static let recoveryHorizonMillis: Int64 = 30 * 86_400_000
    /// A client re-sending the same all-known delivery with the same anchor this many times in
    /// a row is flagged as stuck.
    package static let stuckAfter = 3

    package var cursor: String?
    package var cursorKind: CursorKind?
    /// The `receivedAt` of the envelope that brought the cursor: the newest cursor wins, so
    /// folding an old delivery again does not bring back its old cursor.
    package var cursorReceivedAt: Int64?
    /// The cursor the envelope that brought `cursor` read from, and whether its token had
    /// expired: what orders two cursors received at one instant (`offer`).
    package var cursorFrom: String?
    package var cursorFromExpiredPage = false
    /// The `receivedAt` of the first envelope that brought a cursor: the client had opened the
    /// channel then (staleness as of a past instant).
    package var firstCursorAt: Int64?
    /// The `receivedAt` of the newest expired page or of the newest reconcile that closed a
    /// recovery; older ones change nothing.
    package var healthReceivedAt: Int64?
    /// Every check-in (epoch millis), ascending and distinct: a `checkin`, a HealthKit
    /// delivery, or a Health Connect page that ended a read (`hasMore: false`) without an
    /// expired token. The history, not only the newest, answers `--as-of T` for a past T.
    package private(set) var checkins: [Int64] = []
    /// When each of `checkins` was first received (the earliest `receivedAt` of the envelopes
    /// that made it): a check-in received after T is not one `stale --as-of T` had.
    package private(set) var checkinReceipts: [Int64] = []
    /// The newest `receivedAt` of an envelope that carried samples of the metric.
    package var lastSampleAt: Int64?
    /// The stretches whose changes the client missed and has not read again, ascending and
    /// disjoint: each from the last successful read before an expired token to that expiry
    /// (epoch millis). What lies before `horizon` in them cannot be read again.
    package var missed: [Range<Int64>] = [] { didSet { recoveryKept = nil } }
    /// The `receivedAt` of every expired page folded, ascending and distinct (one folded again
    /// changes nothing).
    package private(set) var expiries: [Int64] = []
    /// The `receivedAt` of the first expired token: the client had opened the channel then,
    /// whatever later expiries join its stretch to (staleness as of a past instant).
    package var firstExpiredAt: Int64?
    /// 30 days before the newest expired token (`Int64.min` before any): Health Connect reads
    /// no further back.
    package var horizon: Int64 = .min { didSet { recoveryKept = nil } }
    /// The recovered stretches that reached beyond the horizon of the newest expiry when they
    /// were recovered, with that horizon (ascending, no two equal): what lies beyond it that no
    /// reconcile received at or after the stretch's expiry read again is lost (`lostRecovered`).
    package var recoveredBeyondHorizon: [RecoveredStretch] = [] { didSet { recoveryKept = nil } }
    /// Full re-deliveries (a nil HealthKit anchor on a channel that had been given one) seen,
    /// and the samples of the last one that were new and already known.
    package var fullRedeliveries = 0
    package var lastFullRedelivery: (new: Int, known: Int)?
    /// The samples of every full re-delivery, new and already known: a replay storm is a high
    /// known count.
    package var redeliveredSamples = (new: 0, known: 0)
    /// Consecutive deliveries with the same anchor that brought nothing new.
    package var repeatedAllKnown = 0
    /// Since when the user has this provider for the metric (contract §3 rule 8): the
    /// `receivedAt` of its first envelope carrying samples of the metric, or its first check-in,
    /// whichever came first; `nil` while it has had neither (a changes page still reading, an
    /// expired token). A question as of an earlier instant leaves the channel out.
    package var hadSince: Int64?
    /// The windows reconciles read again, each with the `receivedAt` of a reconcile of it
    /// (every distinct window and receipt: one a later window covers still tells when its part
    /// was first read again), sorted. A write
    /// received before a reconcile of a window holding its start, of an id it did not list, is
    /// older than what the reconcile found, however late it is folded
    /// (`supersedingReconcile(writtenAt:startingAt:id:)`).
    package private(set) var reconciledWindows: [ReconciledWindow] = [] { didSet { recoveryKept = nil } }
    /// The ids the reconciled windows list, all told.
    package private(set) var listedCount = 0
    /// The length of the longest reconciled window and the newest receipt of one (not part of
    /// the state, as `recoveryKept`): what windows are looked up by (`firstWindow(reachingPast:)`,
    /// `recoverByReconciles`, `supersedingReconcile`).
    private var reconciledBounds = (longest: Int64(0), newestReceipt: Int64.min)
    /// `recoveryWindows` and `lost` as `recovery()` last computed them, until one of the four
    /// fields they come from changes (not part of the state: `==` and checkpoints leave it out).
    private var recoveryKept: (windows: [Range<Int64>], lost: [Range<Int64>])?

    /// A missed stretch that was recovered, and the horizon of the newest expiry then: what of
    /// it lay beyond that horizon could not be read again.
    package struct RecoveredStretch: Equatable, Sendable {
        package var stretch: Range<Int64>
        package var horizon: Int64

        /// Ordered by stretch, then horizon.
        static func < (a: RecoveredStretch, b: RecoveredStretch) -> Bool {
            (a.stretch.lowerBound, a.stretch.upperBound, a.horizon)
                < (b.stretch.lowerBound, b.stretch.upperBound, b.horizon)
        }
    }

    /// A window a reconcile read again (`[from, to)`, epoch millis), when it was received, and
    /// the ids it listed.
    package struct ReconciledWindow: Equatable, Sendable {
        package var from: Int64
        package var to: Int64
        package var receivedAt: Int64
        /// The id-index numbers of the samples it listed, ascending, once each: a reconcile
        /// deletes only what it does not list, so a write it lists it never answered for.
        package var listed: [UInt32] = []

        /// Whether it listed the id numbered `number`.
        func lists(_ number: UInt32) -> Bool { listed.sortedContains(number) }

        /// Orders windows by where they lie, then by receipt (their listings aside).
        static func precedes(_ a: ReconciledWindow, _ b: ReconciledWindow) -> Bool {
            (a.from, a.to, a.receivedAt) < (b.from, b.to, b.receivedAt)
        }
    }

    /// Whether the user has this provider for the metric, as of `millis` (now when `nil`).
    package func isHad(asOf millis: Int64?) -> Bool {
        guard let hadSince else { return false }
        return millis.map { hadSince <= $0 } ?? true
    }

    /// Whether the client had opened the channel by `millis` (now when `nil`), for staleness:
    /// the user had it (`isHad`), or its client had sent a cursor, an expired token or a
    /// reconcile for it. A Health Connect read that never ends (`hasMore: true` forever) or
    /// an expired token never followed by a good read gives the user no provider, but is the
    /// stuck client staleness is for. As of a past instant, a cursor or an expired token counts
    /// when the first came by then (counted while its stretch was missed, an expiry that a
    /// later one joined, or a reconcile recovered, no longer opened the channel as of before
    /// that; an attack run; and a cursor counted when the newest came by then, so a later page
    /// took the channel out of the answer about an earlier instant; an oracle run).
    package func isOpened(asOf millis: Int64?) -> Bool {
        if isHad(asOf: millis) { return true }
        let instant = millis ?? .max
        return (firstCursorAt.map { $0 <= instant } ?? false) || (firstExpiredAt.map { $0 <= instant } ?? false)
            || reconciledWindows.contains { $0.receivedAt <= instant }
    }

    package init() {}

    /// The newest check-in.
    package var lastCheckinAt: Int64? { checkins.last }

    /// The newest check-in at or before `millis` (the newest of all when `millis` is nil),
    /// whenever it was received: where a recovery starts. A question as of an instant reads
    /// `lastCheckin(receivedBy:)`.
    func lastCheckin(atOrBefore millis: Int64?) -> Int64? {
        guard let millis else { return checkins.last }
        let after = firstCheckin(after: millis)
        return after == 0 ? nil : checkins[after - 1]
    }

    /// The newest check-in received by `millis` (the newest of all when `millis` is nil): what a
    /// question asked at `millis` knew. (A check-in is never made after its receipt.)
    package func lastCheckin(receivedBy millis: Int64?) -> Int64? {
        guard let millis else { return checkins.last }
        var place = firstCheckin(after: millis)
        while place > 0 {
            place -= 1
            if checkinReceipts[place] <= millis { return checkins[place] }
        }
        return nil
    }

    /// The index of the first check-in after `millis` (`checkins.count` when none is).
    private func firstCheckin(after millis: Int64) -> Int {
        checkins.partitioningIndex { $0 > millis }
    }

    /// Whether the client keeps re-sending the same batch instead of moving on.
    package var isStuck: Bool { repeatedAllKnown >= Self.stuckAfter }

    package static func == (a: SyncState, b: SyncState) -> Bool {
        a.cursor == b.cursor && a.cursorKind == b.cursorKind && a.cursorReceivedAt == b.cursorReceivedAt
            && a.healthReceivedAt == b.healthReceivedAt && a.checkins == b.checkins
            && a.checkinReceipts == b.checkinReceipts
            && a.lastSampleAt == b.lastSampleAt && a.missed == b.missed && a.horizon == b.horizon
            && a.recoveredBeyondHorizon == b.recoveredBeyondHorizon && a.expiries == b.expiries
            && a.fullRedeliveries == b.fullRedeliveries
            && a.lastFullRedelivery?.new == b.lastFullRedelivery?.new
            && a.lastFullRedelivery?.known == b.lastFullRedelivery?.known && a.repeatedAllKnown == b.repeatedAllKnown
            && a.redeliveredSamples == b.redeliveredSamples && a.hadSince == b.hadSince
            && a.reconciledWindows == b.reconciledWindows && a.firstExpiredAt == b.firstExpiredAt
            && a.firstCursorAt == b.firstCursorAt && a.cursorFrom == b.cursorFrom
            && a.cursorFromExpiredPage == b.cursorFromExpiredPage
    }

    /// Takes `cursor`, which an envelope received at `receivedAt` brought having read from
    /// `from` (its `anchor` or `token`; `expired`: a page whose token had expired), when it is
    /// newer than the held one. Of two received at one instant, whatever their log order: a
    /// good read's over an expired page's (an expiry comes first; the fresh token's read
    /// answers it), then the one that read on from the other's cursor (a read's later page),
    /// then the greater text. A backend that stamps an upload with its request time gave two
    /// pages of one read one instant, and `cursor` handed back the first page's token, or the
    /// expired page's (an oracle run).
    mutating func offer(cursor: String, from: String?, expired: Bool, kind: CursorKind, receivedAt: Int64) {
        let refold = isFirstContactBeforeAnExpiry(receivedAt)
        firstCursorAt = min(firstCursorAt ?? receivedAt, receivedAt)
        if refold { refoldRecovery() }
        if let held = cursorReceivedAt, let current = self.cursor {
            guard held <= receivedAt else { return }
            if held == receivedAt,
                !Self.orders(
                    (cursor, from, expired), after: (current, cursorFrom, cursorFromExpiredPage))
            {
                return
            }
        }
        self.cursor = cursor
        cursorFrom = from
        cursorFromExpiredPage = expired
        cursorKind = kind
        cursorReceivedAt = receivedAt
    }

    /// Whether a cursor received at the instant of the held one replaces it (`offer`).
    private static func orders(
        _ offered: (cursor: String, from: String?, expired: Bool),
        after held: (cursor: String, from: String?, expired: Bool)
    ) -> Bool {
        if offered.expired != held.expired { return held.expired }
        let offeredGoesOn = offered.from == held.cursor
        let heldGoesOn = held.from == offered.cursor
        if offeredGoesOn != heldGoesOn { return offeredGoesOn }
        return offered.cursor > held.cursor
    }

    /// Notes a check-in at `millis`, received at `received` (a check-in folded again, or late,
    /// takes its place once). The user has the provider from its receipt: as of an instant
    /// between a `checkin`'s `at` and its receipt, `stale` counted a channel `rollups` did not.
    /// One made before an expiry already folded moves where that expiry's stretch starts, as if
    /// logged before it: the recovery is folded again (moving it only forward, to a check-in
    /// within the stretch, left a stretch opened at the first contact there when the check-in
    /// was made before it, and a day it missed read as a known 0; an oracle run).
    mutating func checkIn(at millis: Int64, received: Int64) {
        let refold = isFirstContactBeforeAnExpiry(received) || millis < newestExpiry ?? .min
        hadSince = min(hadSince ?? received, received)
        if let last = checkins.last, last >= millis {
            let place = firstCheckin(after: millis)
            if place > 0, checkins[place - 1] == millis {
                checkinReceipts[place - 1] = min(checkinReceipts[place - 1], received)
            } else {
                checkins.insert(millis, at: place)
                checkinReceipts.insert(received, at: place)
            }
        } else {
            checkins.append(millis)
            checkinReceipts.append(received)
        }
        if refold { refoldRecovery() }
    }

    /// Notes a sample of the channel received at `received`: the user has the provider since
    /// then at the latest.
    mutating func noteSample(received: Int64) {
        lastSampleAt = max(lastSampleAt ?? received, received)
        let refold = isFirstContactBeforeAnExpiry(received)
        hadSince = min(hadSince ?? received, received)
        if refold { refoldRecovery() }
    }

    /// The client's first contact with the channel: its first cursor, sample or check-in.
    private var firstContact: Int64? {
        switch (firstCursorAt, hadSince) {
        case (let cursor?, let had?): min(cursor, had)
        case (let first, nil), (nil, let first): first
        }
    }

    /// Whether a contact received at `millis` is the first, before an expiry already folded: an
    /// envelope logged late, received before the ones that had come first. A stretch without
    /// a read before its expiry starts at the first contact (`openStretch`), so the recovery is
    /// folded again; left, the stretch started where the log order had put the first contact
    /// (30 days before the expiry), and its days read unrecoverable in that order and not in
    /// receipt order (a log-order permutation of an attack run's workload, 2026-12-06).
    @inline(__always)
    private func isFirstContactBeforeAnExpiry(_ millis: Int64) -> Bool {
        // The first contact first: most contacts come after it, and the expiries go unread.
        guard millis < firstContact ?? .max, let newestNoted = expiries.last else { return false }
        return millis < newestNoted
    }

    /// The windows to read again with a `reconcile` covering each, ascending and disjoint: the
    /// part of each missed stretch within 30 days of the newest expiry that no reconcile
    /// received at or after the stretch's expiry read again (a client re-reading a long window in
    /// parts is left the parts it has not read yet), stretches that meet as one window. Empty
    /// when the channel is ok.
    package var recoveryWindows: [Range<Int64>] {
        // A channel without missed stretches (most) costs no closure call.
        missed.isEmpty ? [] : Self.union(missed.flatMap { unreadWindows(of: $0, horizon: horizon, by: .max) })
    }

    /// `recoveryWindows` and `lost`, computed once while `missed`, `horizon`, `reconciledWindows`
    /// and `recoveredBeyondHorizon` stay as they are: the fold reads them before and after each
    /// envelope of the channel, and computing them each time made folding a channel with
    /// thousands of expired tokens quadratic.
    mutating func recovery() -> (windows: [Range<Int64>], lost: [Range<Int64>]) {
        if let recoveryKept {
            // Debug builds (the tests) check that no change of the four fields was missed.
            assert(recoveryKept.windows == recoveryWindows && recoveryKept.lost == lost, "stale recovery")
            return recoveryKept
        }
        let computed = (recoveryWindows, lost)
        recoveryKept = computed
        return computed
    }

    /// The parts of `stretch`'s window (as of `horizon`) that no reconcile received at or after the
    /// stretch's expiry and by `millis` read again, ascending.
    private func unreadWindows(of stretch: Range<Int64>, horizon: Int64, by millis: Int64) -> [Range<Int64>] {
        Self.window(of: stretch, horizon: horizon).map { unread($0, of: stretch, by: millis) } ?? []
    }

    /// The parts of `stretch` beyond `horizon` that no reconcile received at or after the stretch's
    /// expiry and by `millis` read again, ascending: days re-read while they could be are not
    /// lost when a later expiry moves the horizon past them (they were, when the stretch was
    /// still open for another part; an attack run).
    private func lostParts(of stretch: Range<Int64>, horizon: Int64, by millis: Int64) -> [Range<Int64>] {
        Self.lostPart(of: stretch, horizon: horizon).map { unread($0, of: stretch, by: millis) } ?? []
    }

    /// The parts of `range` (within `stretch`) that no reconcile received at or after the stretch's
    /// expiry and by `millis` read again, ascending.
    private func unread(_ range: Range<Int64>, of stretch: Range<Int64>, by millis: Int64) -> [Range<Int64>] {
        // By `from`: each reconciled window read again what lies between its bounds.
        Self.uncovered(
            range,
            by: reconciledWindows[firstWindow(reachingPast: range.lowerBound)...].lazy
                .filter { $0.receivedAt >= stretch.upperBound && $0.receivedAt <= millis }.map { $0.from..<$0.to })
    }

    /// The place of the first reconciled window that may reach past `millis`: every window
    /// before it starts the longest window's length or more before `millis`, so ends by then.
    /// (Each expiry, reconcile and recovery looked at every window before: a channel's history
    /// of reconciles folded in the square of their number, and each refold in the cube; an
    /// attack run.)
    private func firstWindow(reachingPast millis: Int64) -> Int {
        let (start, overflow) = millis.subtractingReportingOverflow(reconciledBounds.longest)
        return overflow ? 0 : reconciledWindows.partitioningIndex { $0.from > start }
    }

    /// The parts of `range` that none of `cuts` (ascending by start; they may overlap) covers,
    /// ascending.
    static func uncovered(_ range: Range<Int64>, by cuts: some Sequence<Range<Int64>>) -> [Range<Int64>] {
        var parts: [Range<Int64>] = []
        var from = range.lowerBound
        for cut in cuts where cut.upperBound > from {
            guard cut.lowerBound < range.upperBound else { break }
            if cut.lowerBound > from { parts.append(from..<cut.lowerBound) }
            from = cut.upperBound
            if from >= range.upperBound { return parts }
        }
        parts.append(from..<range.upperBound)
        return parts
    }

    /// The parts of `ranges` that none of `cuts` covers, ascending; both are ascending and
    /// disjoint, so each is passed once. (Each range was compared with every cut: at every
    /// envelope of a channel with thousands of lost stretches, which made folding its log
    /// cubic: 4,000 expired tokens took 32 s, an attack run.)
    static func difference(_ ranges: [Range<Int64>], _ cuts: [Range<Int64>]) -> [Range<Int64>] {
        var parts: [Range<Int64>] = []
        var first = 0
        for range in ranges {
            while first < cuts.count, cuts[first].upperBound <= range.lowerBound { first += 1 }
            parts += uncovered(range, by: cuts[first...])
        }
        return parts
    }

    /// The part of a missed stretch that can still be read, if any.
    private static func window(of stretch: Range<Int64>, horizon: Int64) -> Range<Int64>? {
        stretch.upperBound > horizon ? max(stretch.lowerBound, horizon)..<stretch.upperBound : nil
    }

    /// The time the client can no longer read (ascending, disjoint): the parts of missed
    /// stretches beyond the horizon, recovered or not.
    package var lost: [Range<Int64>] {
        missed.isEmpty
            ? lostRecovered
            : Self.union(lostRecovered + missed.flatMap { lostParts(of: $0, horizon: horizon, by: .max) })
    }

    /// The parts of recovered stretches that lay beyond the horizon and that no reconcile
    /// received at or after the stretch's expiry read again (ascending, disjoint): the client
    /// could not read them, so their days stay unknown. Reconciles received after the stretch
    /// was recovered count too: counted only up to then, a part a later reconcile read again
    /// stayed unrecoverable when the stretch had been recovered first (an oracle run).
    package var lostRecovered: [Range<Int64>] { lostRecovered(by: .max) }

    /// `lostRecovered` with the reconciles received by `millis`.
    private func lostRecovered(by millis: Int64) -> [Range<Int64>] {
        recoveredBeyondHorizon.isEmpty
            ? []
            : Self.union(recoveredBeyondHorizon.flatMap { lostParts(of: $0.stretch, horizon: $0.horizon, by: millis) })
    }

    /// The part of a missed stretch beyond the horizon, if any.
    private static func lostPart(of stretch: Range<Int64>, horizon: Int64) -> Range<Int64>? {
        stretch.lowerBound < horizon ? stretch.clamped(to: .min..<horizon) : nil
    }

    /// The recovery windows and the lost time as they stood at `millis` (now when `nil`): only
    /// the expiries received by then count, with the horizon of the newest of them. A stretch
    /// that a later reconcile recovered has left `missed`, so as of an instant before that
    /// reconcile its days read as not checked in since they ended rather than as in an open
    /// window; its lost part counts from 30 days after its end (the earliest its expiry came).
    package func recovery(asOf millis: Int64?) -> (windows: [Range<Int64>], lost: [Range<Int64>]) {
        guard let millis else { return (recoveryWindows, lost) }
        let known = missed.filter { $0.upperBound <= millis }
        let expiry = newestExpiry.flatMap { $0 <= millis ? $0 : nil } ?? known.last?.upperBound
        let horizonThen = expiry.map { $0 - Self.recoveryHorizonMillis } ?? .min
        let recovered = lostRecovered(by: millis).filter { $0.upperBound + Self.recoveryHorizonMillis <= millis }
        return (
            Self.union(known.flatMap { unreadWindows(of: $0, horizon: horizonThen, by: millis) }),
            Self.union(recovered + known.flatMap { lostParts(of: $0, horizon: horizonThen, by: millis) })
        )
    }

    /// `ranges` as ascending, disjoint ranges covering the same time.
    private static func union(_ ranges: [Range<Int64>]) -> [Range<Int64>] {
        ranges.sorted { $0.lowerBound < $1.lowerBound }.reduce(into: []) { merged, range in
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
    }

    /// An expired changes token received at `millis`: the changes since the last successful
    /// read before it were missed; what lies more than 30 days back cannot be read. A stretch
    /// held that the last read falls in (no successful read lies between the two expiries)
    /// goes on to this one: the new stretch starts where it ends, and each keeps the reconciles
    /// received at or after its own expiry. (Joined into one stretch ending at this expiry until
    /// 2026-12-05, so the parts of the held one re-read before it were listed again, and no
    /// longer counted as of an earlier instant; an attack run.)
    mutating func tokenExpired(at millis: Int64) {
        firstExpiredAt = min(firstExpiredAt ?? millis, millis)
        // Folded again, an expiry changes nothing.
        guard noteExpiry(at: millis) else { return }
        // Received before the newest expiry or the newest recovery: logged late (an upload sent
        // again out of order). Receipt order would have folded it before them, and so does the
        // channel's recovery folded again. (Dropped as old, its missed days read as known zeros:
        // attack runs, and a log-order permutation of one, 2026-12-06.) An expiry at the instant
        // of the newest recovery is not a late one: at one instant an expiry comes first
        // (`lastRead(before:orFrom:)`).
        if millis < newestExpiry ?? .min || millis < healthReceivedAt ?? .min {
            refoldRecovery()
            return
        }
        healthReceivedAt = millis
        horizon = millis - Self.recoveryHorizonMillis
        // The newest expiry: its stretch comes last.
        openStretch(expiringAt: millis)
    }

    /// Folds the channel's expiries and reconciled windows again, from none, in the order they
    /// were received (at one instant an expiry first): the missed stretches, the horizon and the
    /// recovered stretches come out as receipt order leaves them. Check-ins are all in place
    /// throughout, as when each is logged before the expiries it precedes.
    private mutating func refoldRecovery() {
        let expiries = self.expiries
        let windows = reconciledWindows.sorted { ($0.receivedAt, $0.from, $0.to) < ($1.receivedAt, $1.from, $1.to) }
        (self.expiries, reconciledWindows, missed, recoveredBeyondHorizon) = ([], [], [], [])
        reconciledBounds = (0, .min)
        listedCount = 0
        (horizon, healthReceivedAt) = (.min, nil)
        var next = 0
        for expiry in expiries {
            while next < windows.count, windows[next].receivedAt < expiry {
                reconciled(windows[next])
                next += 1
            }
            tokenExpired(at: expiry)
        }
        for window in windows[next...] { reconciled(window) }
    }

    /// The newest expiry folded (`nil` before any).
    private var newestExpiry: Int64? { horizon == .min ? nil : horizon + Self.recoveryHorizonMillis }

    /// Opens the stretch the newest expiry, at `millis`, missed (after the held ones, which end
    /// before it: an expiry logged late folds the channel's recovery again, `refoldRecovery`),
    /// and recovers what the reconciles recover. It starts where the client had read by then:
    /// without a read, where it first came (the part beyond the horizon is lost; from the
    /// horizon alone, the days before it read known once a check-in came, though nothing of
    /// them was read; an oracle run), a first contact by this page itself telling nothing, as
    /// its token came from a read the log does not hold; and on from the end of the stretch
    /// before it, through the reconciles received before `millis` (a stretch between them that
    /// one recovered was opened again, an attack run). Read up to the expiry (a reconcile
    /// received before it that read that far), it missed nothing (it left an empty window no
    /// reconcile closed).
    private mutating func openStretch(expiringAt millis: Int64) {
        let contact = firstContact.flatMap { $0 < millis ? $0 : nil }
        var from = lastRead(before: millis, orFrom: contact ?? millis - Self.recoveryHorizonMillis)
        if let before = missed.last, before.upperBound >= from {
            from = readOn(from: before.upperBound, before: millis)
        }
        guard from < millis else { return }
        missed.append(from..<millis)
        recoverByReconciles()
    }

    /// Notes an expiry (or, reading a checkpoint, one it kept) without folding it; `false` when
    /// it was noted before.
    @discardableResult
    mutating func noteExpiry(at millis: Int64) -> Bool { expiries.insertOnce(millis, orderedBy: <) }

    /// Gives the check-ins the receipts a checkpoint kept; `false` when they do not fit (one
    /// each, none before its check-in).
    mutating func restoreCheckinReceipts(_ receipts: [Int64]) -> Bool {
        guard receipts.count == checkins.count, zip(checkins, receipts).allSatisfy({ $0 <= $1 }) else { return false }
        checkinReceipts = receipts
        return true
    }

    /// Recovers what the reconciles recover of the missed stretches as they are now (after an
    /// expiry, a check-in that shortened one, or another reconcile), in the order they were
    /// received, whatever the order they were folded in: so folding the same envelopes again
    /// changes nothing (a check-in logged late shortened a stretch to fit a reconcile folded
    /// before it, and only the second ingest recovered it; found by an attack run), a window
    /// re-read in parts, logged in any order, is recovered by its last part, and a reconcile
    /// logged after one received later still recovers its own window (it did not: recovering
    /// another window had moved `healthReceivedAt` past it; an attack run).
    ///
    /// A stretch is recovered at the first of those receipts by which it is read again: the
    /// windows received by an instant only grow with it, so a stretch the windows received by
    /// the newest one leave unread is left at once, and the first is found by binary search.
    /// (Each receipt was tried in turn for each reconcile: a window re-read in R parts took
    /// R³ steps, 500 parts ingested again 40 s; an attack run.)
    private mutating func recoverByReconciles() {
        guard let earliestExpiry = missed.map(\.upperBound).min() else { return }
        let newest = reconciledBounds.newestReceipt
        guard newest >= earliestExpiry else { return }
        var receipts: [Int64] = []
        var recovered: [RecoveredStretch] = []
        var recoveredAt = Int64.min
        for stretch in missed where isRecovered(stretch, by: newest) {
            if receipts.isEmpty {
                receipts = reconciledWindows.map(\.receivedAt).filter { $0 >= earliestExpiry }.sorted()
            }
            recoveredAt = max(recoveredAt, receipts[receipts.partitioningIndex { isRecovered(stretch, by: $0) }])
            recovered.append(RecoveredStretch(stretch: stretch, horizon: horizon))
        }
        guard !recovered.isEmpty else { return }
        missed.removeAll { stretch in recovered.contains { $0.stretch == stretch } }
        // Lost is what lies beyond the newest expiry's horizon, less what the reconciles received
        // at or after the stretch's expiry read again, whenever they came (`lostRecovered`).
        for stretch in recovered where Self.lostPart(of: stretch.stretch, horizon: horizon) != nil {
            noteRecovered(stretch)
        }
        healthReceivedAt = max(healthReceivedAt ?? .min, recoveredAt)
    }

    /// How far the client had read before an expiry at `millis`: its last check-in before then
    /// (`fallback` without one), and on through the window of each reconcile received before
    /// then that starts at or before that point (it read the window again). Counted from the
    /// last check-in alone, a second expiry after a reconcile reopened the days the reconcile
    /// had recovered.
    ///
    /// At one instant, an expiry comes first: the reads and reconciles received at its instant
    /// are the client's answer to it (a fresh token's first read, the window read again), in
    /// whatever order they were logged. A client uploads the expired page and its next read
    /// together, and one ingest gives both one `receivedAt`: taken as read up to the expiry,
    /// the missed days read as known zeros, the seed's 03:00 email (an oracle run).
    private func lastRead(before millis: Int64, orFrom fallback: Int64) -> Int64 {
        readOn(from: lastCheckin(atOrBefore: millis - 1) ?? fallback, before: millis)
    }

    /// How far the client had read before an expiry at `millis`, having read up to `read`: on
    /// through the window of each reconcile received before then that starts at or before that
    /// point.
    private func readOn(from read: Int64, before millis: Int64) -> Int64 {
        var read = read
        for window in reconciledWindows[firstWindow(reachingPast: read)...] {
            // By `from`: a window that starts later can only join once an earlier one has.
            guard window.from <= read else { break }
            if window.receivedAt < millis { read = max(read, min(window.to, millis)) }
        }
        return read
    }

    /// Starts each stretch of `missed` no earlier than `starts` at its index (a stretch read to
    /// its expiry is gone). Returns whether it shortened a stretch.
    private mutating func shorten(_ starts: [Int64]) -> Bool {
        var shortened = false
        for index in missed.indices.reversed() {
            let stretch = missed[index]
            let from = max(stretch.lowerBound, starts[index])
            guard from > stretch.lowerBound else { continue }
            if from < stretch.upperBound { missed[index] = from..<stretch.upperBound } else { missed.remove(at: index) }
            shortened = true
        }
        return shortened
    }

    /// A reconcile of `[from, to)` received at `millis`: notes the window, and recovers each
    /// missed stretch whose window it covers, alone or with the reconciles received at or after the
    /// stretch's expiry (a client reads a long window again in parts: a reconcile holds at most
    /// 50,000 samples); a stretch's part beyond the horizon stays lost. Logged after an expiry
    /// it was received before, it is a read the client made before that expiry, as when it is
    /// logged first: the expiry's stretch starts where the client had read through it (it kept
    /// the start it had without it, and a check-in ingested again, logged after the reconcile,
    /// shortened the stretch: ingesting the same envelopes twice changed the state; an attack
    /// run).
    mutating func reconciled(_ window: ReconciledWindow) {
        let millis = window.receivedAt
        // Folded again, a reconcile changes nothing (each time, one received before the newest
        // recovery folded the channel's recovery again: a window re-read in 500 parts, uploaded
        // twice, took 40 s the second time; an attack run).
        guard noteReconciledWindow(window) else { return }
        // Received before the newest recovery, it may be what recovered a stretch in receipt
        // order: the recovery is folded again (left, the later reconcile stayed the newest
        // recovery in that log order, and the digest moved when the log was ingested again).
        if millis < healthReceivedAt ?? .min {
            refoldRecovery()
            return
        }
        _ = shorten(missed.map { millis < $0.upperBound ? readOn(from: $0.lowerBound, before: $0.upperBound) : .min })
        recoverByReconciles()
    }

    /// Whether the reconciles received at or after the missed `stretch`'s expiry and by `millis`
    /// read its window again together.
    private func isRecovered(_ stretch: Range<Int64>, by millis: Int64) -> Bool {
        stretch.upperBound <= millis && Self.window(of: stretch, horizon: horizon) != nil
            && unreadWindows(of: stretch, horizon: horizon, by: millis).isEmpty
    }

    /// Notes a recovered stretch with a part beyond the horizon (or, reading a checkpoint, one
    /// it noted), in order, once.
    mutating func noteRecovered(_ recovered: RecoveredStretch) {
        recoveredBeyondHorizon.insertOnce(recovered, orderedBy: <)
    }

    /// Notes a window a reconcile read again (or, reading a checkpoint, one it noted). A window
    /// a later one covers is kept: it tells when its part was first read again, which decides
    /// when a missed stretch was recovered and where a later expiry's stretch starts (dropped,
    /// both depended on the order reconciles were logged in; an attack run). Returns `false`
    /// when it was noted before, or is empty.
    @discardableResult
    mutating func noteReconciledWindow(_ window: ReconciledWindow) -> Bool {
        guard window.from < window.to else { return false }
        // Placed by binary search: sorting at each window made loading a checkpoint quadratic.
        var place = reconciledWindows.partitioningIndex { !ReconciledWindow.precedes($0, window) }
        // The same window received at the same instant: one reconcile folded again (the same
        // ids), or another, kept beside it: each deletes what it does not list (their ids
        // joined, a write one of them deleted stayed live in some log orders; an attack run).
        while place < reconciledWindows.count, !ReconciledWindow.precedes(window, reconciledWindows[place]) {
            if reconciledWindows[place].listed == window.listed { return false }
            place += 1
        }
        reconciledWindows.insert(window, at: place)
        listedCount += window.listed.count
        reconciledBounds = (
            max(reconciledBounds.longest, window.to - window.from),
            max(reconciledBounds.newestReceipt, window.receivedAt)
        )
        return true
    }

    /// When the first reconcile received after `receivedAt` that read again a window holding
    /// `start`, and did not list the id numbered `number`, was received, if one was: a sample
    /// written then and starting there is superseded by what that reconcile found.
    /// Only the windows that may reach past `start` and start by it are looked at. (Each write
    /// looked at every window: 80,000 hourly reconciles of one sample each took 18 s to fold;
    /// an attack run.)
    func supersedingReconcile(writtenAt receivedAt: Int64, startingAt start: Int64, id number: UInt32) -> Int64? {
        guard reconciledBounds.newestReceipt > receivedAt else { return nil }
        var earliest: Int64?
        for window in reconciledWindows[firstWindow(reachingPast: start)...] {
            guard window.from <= start else { break }
            if window.receivedAt > receivedAt, start < window.to, !window.lists(number) {
                earliest = min(earliest ?? .max, window.receivedAt)
            }
        }
        return earliest
    }
}
