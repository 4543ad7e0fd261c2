/// What `changes` needs to give a moved cell's old reading without replaying the log: for each
/// cell whose version moved while the projections were held by an engine, the reading it had
/// before that move, and the span of versions it held for.
///
/// A cell's reading changes only where its version moves (rule 6, held by the property test
/// `theFeedListsEveryReadingThatMovedAway`), so the reading a cell had before its last move is
/// its reading at every version from the one it then held up to the event that moved it. A
/// follower asking since such a version (one that polls after each ingest: most) is answered
/// from here; one asking from further back, or about a cell that moved twice since, is
/// answered by a replay as before.
///
/// A day without a rollup has no version, and its reading (a known 0 or unknown) moves with
/// the user's channels of the metric and latest offset alone: its reading before holds only
/// from the last event that moved those.
///
/// The reading is taken in the fold, as the first event since the cell's last recompute
/// dirties it or moves its version in place: the rollup is still the one before, and rule 8
/// reads the channels and the user's latest offset as they stood before the envelope (an
/// envelope's sync facts and samples change them while it is folded). A cache, no part of the
/// checkpoint or the digest: projections loaded from a checkpoint start without one, and
/// their cells dirty then can only be answered by a replay.
struct FeedReadings {
    /// A cell's reading before its version moved, and from when: 56 bytes, as an engine keeps
    /// one for each cell that moved while it held the cell's range.
    struct Before {
        /// The samples its rollup counted then, and the rollup's value, minimum and maximum as
        /// bits, each present when its bit of `present` is set (bit 8: the cell had a rollup).
        private var count = 0
        private var figures: (value: UInt64, minimum: UInt64, maximum: UInt64) = (0, 0, 0)
        private var present: UInt8 = 0
        /// Why rule 8 did not call the day known then (`nil`: it was known).
        let reason: RollupRow.Reason?
        /// Taken as the cell was dirtied, and its recompute, which moves the version, not run
        /// yet.
        var isPending: Bool
        /// The first version the reading held at: the rollup's, or, without one, the last
        /// event that moved what rule 8 reads of the user's metric.
        let since: UInt64
        /// The position of the event that moved the version (0: the reading before is not
        /// known, as for a cell dirty when the projections were loaded).
        let movedAt: UInt64

        init(rollup: RollupCell?, reason: RollupRow.Reason?, since: UInt64, movedAt: UInt64, isPending: Bool) {
            if let rollup {
                count = rollup.count
                let bits = { (value: Double?) in value?.bitPattern ?? 0 }
                figures = (bits(rollup.value), bits(rollup.minimum), bits(rollup.maximum))
                present =
                    8 | (rollup.value != nil ? 1 : 0) | (rollup.minimum != nil ? 2 : 0)
                    | (rollup.maximum != nil ? 4 : 0)
            }
            self.reason = reason
            self.since = since
            self.movedAt = movedAt
            self.isPending = isPending
        }

        /// The cell's rollup then, `nil` without one (its sources are no part of a reading).
        func rollup(of cell: Projections.CellKey) -> RollupCell? {
            guard present & 8 != 0 else { return nil }
            let figure = { (bits: UInt64, bit: UInt8) in self.present & bit != 0 ? Double(bitPattern: bits) : nil }
            return RollupCell(
                metric: cell.metric, day: cell.day, count: count, value: figure(figures.value, 1),
                minimum: figure(figures.minimum, 2), maximum: figure(figures.maximum, 4), sources: [])
        }

        /// A cell dirty before readings were taken: its reading before is not known.
        static let unknown = Before(rollup: nil, reason: nil, since: 0, movedAt: 0, isPending: true)

        /// Whether the reading is the cell's at `version`.
        func holds(at version: UInt64) -> Bool { !isPending && since <= version && version < movedAt }
    }

    /// Whether readings are taken (an engine's projections; a scratch replay takes none).
    private(set) var isKept = false
    /// The position the projections had folded when readings started to be taken.
    private var keptAfter: UInt64 = 0
    /// The user of the envelope being folded, and that user's latest offset before it.
    private var envelopeUser = UInt32.max
    private var envelopeOffset: Int32 = 0
    /// The channels the envelope being folded changed, as they were before it.
    private var channelsBefore: [(key: Projections.SyncKey, inputs: Projections.KnownInputs)] = []
    /// Each cell's reading before its version last moved, or, while it is dirty, before the
    /// move its recompute will make.
    private var readings = FlatMap<Projections.CellKey, Before>()
    /// Each version move since readings were first taken, in fold order: the cell, and the
    /// position folded when it moved (which only grows), so the cells moved after a version are
    /// found without looking at every rollup. Superseded moves are dropped as it grows.
    private var moves: [(cell: Projections.CellKey, at: UInt64)] = []
    /// The last event that moved what rule 8 reads of each user's metric (a channel's check-ins,
    /// windows, lost time or whether the user has it; the user's latest offset).
    private var readingsMoved = FlatMap<Projections.UserMetric, UInt64>()

    /// Starts taking readings, after the projections folded the log up to `position`: the
    /// cells dirty then have none to take, and what rule 8 read before is not known.
    mutating func keep(after position: UInt64, dirtyCells: some Sequence<Projections.CellKey>) {
        guard !isKept else { return }
        isKept = true
        keptAfter = position
        for cell in dirtyCells { readings[cell] = .unknown }
    }

    /// Notes the envelope about to be folded: its user, and where that user's days end.
    mutating func begin(user: UInt32, offset: Int32) {
        guard isKept else { return }
        (envelopeUser, envelopeOffset) = (user, offset)
        channelsBefore.removeAll(keepingCapacity: true)
    }

    /// Notes a channel the envelope changes, as it was before its first change.
    mutating func noteChannel(_ key: Projections.SyncKey, before inputs: Projections.KnownInputs) {
        guard isKept, !channelsBefore.contains(where: { $0.key == key }) else { return }
        channelsBefore.append((key, inputs))
    }

    /// Notes that what rule 8 reads of `user`'s `metric` (every metric, when `nil`) moved at
    /// `position`.
    mutating func noteReadingsMoved(user: UInt32, metric: Metric?, at position: UInt64) {
        guard isKept else { return }
        guard let metric else {
            for metric in Metric.allCases { noteReadingsMoved(user: user, metric: metric, at: position) }
            return
        }
        readingsMoved[Projections.UserMetric(user: user, metric: metric)] = position
    }

    /// The first version a reading of `cell` taken now holds at: its rollup's `version`, or,
    /// without one, the last event that moved what rule 8 reads of the user's metric.
    func since(_ cell: Projections.CellKey, version: UInt64?) -> UInt64 {
        version ?? readingsMoved[Projections.UserMetric(user: cell.user, metric: cell.metric)] ?? keptAfter
    }

    /// The channel `key` as it was before the envelope, when the envelope changed it.
    func channelBefore(_ key: Projections.SyncKey) -> Projections.KnownInputs? {
        channelsBefore.first { $0.key == key }?.inputs
    }

    /// The latest offset of `user` before the envelope, when `user` is its user.
    func offsetBefore(user: UInt32) -> Int32? { user == envelopeUser ? envelopeOffset : nil }

    /// Where to note `cell`'s reading as it is dirtied, when it is to be taken now: the first
    /// time since its last recompute (`nil` otherwise).
    mutating func claim(_ cell: Projections.CellKey) -> Int? {
        guard isKept else { return nil }
        let (number, inserted) = readings.number(of: cell, storingIfAbsent: .unknown)
        return inserted || !readings[number: number].isPending ? number : nil
    }

    /// Notes the reading of a cell dirtied, where `claim` said.
    mutating func noteDirtied(_ number: Int, _ before: Before) { readings[number: number] = before }

    /// Notes a version moved in place (the cell clean, its figures kept).
    mutating func noteMovedInPlace(_ cell: Projections.CellKey, _ before: Before) {
        readings[cell] = before
        noteMove(cell, at: before.movedAt)
    }

    /// Notes that `cell`'s rollup was rebuilt, the log folded up to `position`: its reading
    /// before is the one taken when it was first dirtied.
    mutating func noteRebuilt(_ cell: Projections.CellKey, at position: UInt64) {
        guard isKept else { return }
        _ = readings.modify(cell) { $0.isPending = false }
        noteMove(cell, at: position)
    }

    private mutating func noteMove(_ cell: Projections.CellKey, at position: UInt64) {
        moves.append((cell, position))
        // Each cell's last move is all a question needs: the others go once they are half.
        if moves.count >= 2 * max(readings.count, 1 << 16) {
            var seen = Set<Projections.CellKey>()
            moves = Array(moves.reversed().filter { seen.insert($0.cell).inserted }.reversed())
        }
    }

    /// How many moves are noted (superseded ones included, until they are dropped).
    var movesNoted: Int { moves.count }

    /// The cells whose version may have moved after `version`, each once, the last moved first;
    /// `nil` when some may have moved before readings were taken.
    func cellsMoved(after version: UInt64) -> [Projections.CellKey]? {
        guard isKept, version >= keptAfter else { return nil }
        // The first move after `version`: positions only grow.
        var (low, high) = (0, moves.count)
        while low < high {
            let middle = (low + high) / 2
            if moves[middle].at <= version { low = middle + 1 } else { high = middle }
        }
        var seen = Set<Projections.CellKey>()
        return moves[low...].reversed().compactMap { seen.insert($0.cell).inserted ? $0.cell : nil }
    }

    /// The reading `cell` had before its version last moved, when it held at `version`.
    func before(_ cell: Projections.CellKey, at version: UInt64) -> Before? {
        readings[cell].flatMap { $0.holds(at: version) ? $0 : nil }
    }
}

extension Projections {
    /// Starts keeping each moved cell's reading before its move (an engine's projections).
    mutating func keepFeedReadings() {
        feed.keep(
            after: position,
            dirtyCells: dirty.days.map { CellKey(user: $0.key.user, metric: $0.key.metric, day: $0.key.day) })
    }

    /// Marks `key` dirty as of the envelope being folded, taking its cell's reading first
    /// when this is the cell's first since its last recompute (`FeedReadings`).
    /// - Returns: whether the day was clean for its provider.
    mutating func dirtyDay(_ key: DirtyDays.Key) -> Bool {
        guard dirty.mark(key, at: position) else { return false }
        let cell = CellKey(user: key.user, metric: key.metric, day: key.day)
        if let number = feed.claim(cell) {
            var before = readingBefore(cell, movedAt: position)
            before.isPending = true
            feed.noteDirtied(number, before)
        }
        return true
    }

    /// `cell`'s reading before the envelope being folded, which moves its version: its rollup's
    /// figures and version, and why rule 8 did not call the day known, the channels the
    /// envelope changed read as they were, and its user's latest offset before it.
    mutating func readingBefore(_ cell: CellKey, movedAt position: UInt64) -> FeedReadings.Before {
        // Read in place: a copy of the rollup or of a channel's state retained its arrays.
        var held: (cell: RollupCell, version: UInt64)?
        _ = rollups.modify(cell) { stored in
            let figures = stored.cell
            held = (
                RollupCell(
                    metric: figures.metric, day: figures.day, count: figures.count, value: figures.value,
                    minimum: figures.minimum, maximum: figures.maximum, sources: []), stored.version
            )
        }
        let offset = feed.offsetBefore(user: cell.user) ?? latestOffset(user: cell.user)
        let (dayStart, dayEnd) = Self.instants(of: cell.day, offsetMillis: Int64(offset) * 1000)
        var (reason, had): (RollupRow.Reason?, Bool) = (nil, false)
        for provider in channelProviders[cell.user] {
            let key = SyncKey(user: cell.user, provider: provider, metric: cell.metric)
            var inputs = feed.channelBefore(key)
            if inputs == nil { _ = syncStates.modify(key) { inputs = KnownInputs(of: &$0) } }
            guard let inputs, inputs.isHad else { continue }
            had = true
            reason = Self.graver(reason, inputs.reason(dayStart: dayStart, dayEnd: dayEnd))
        }
        return FeedReadings.Before(
            rollup: held?.cell, reason: had ? reason : .neverSynced, since: feed.since(cell, version: held?.version),
            movedAt: position, isPending: false)
    }

    /// How `rollups` read `cell` at `version`, when its reading before its last move held then
    /// (`nil`: only a replay can tell).
    func reading(of cell: CellKey, at version: UInt64) -> RollupRow.Reading? {
        guard let before = feed.before(cell, at: version) else { return nil }
        let rollup = before.rollup(of: cell)
        return Self.reading(
            values: rollup.map(Self.values(of:)) ?? knownZero(of: cell.metric), count: rollup?.count ?? 0,
            reason: before.reason)
    }
}
