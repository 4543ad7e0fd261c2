/// Where a user's days end (contract §3 rule 8): at midnight in the local offset of the user's
/// live sample with the latest start. The fold keeps that sample per user as samples come and
/// go, so that a query reads it without walking the user's ids, and so that the fold sees the
/// offset move: a move shifts every day's end, which can take a day from known without any
/// input of it changing, and its version must then move for `changes` to list it.
extension Projections {
    /// A user's latest live sample: its start, and its local offset there.
    struct LatestSample: Comparable {
        var startMillis: Int64
        var offsetSeconds: Int32

        static func < (a: LatestSample, b: LatestSample) -> Bool {
            (a.startMillis, a.offsetSeconds) < (b.startMillis, b.offsetSeconds)
        }
    }

    /// Each user's latest live sample, by user number, kept as samples are added and removed.
    struct LatestSamples {
        private var byUser: [LatestSample?] = []
        /// Users whose latest sample was removed: found again among their ids before it is read.
        private(set) var stale: [UInt32] = []

        /// The user's latest sample as last found (`nil`: none, or not known while `stale`).
        subscript(user: UInt32) -> LatestSample? {
            Int(user) < byUser.count ? byUser[Int(user)] : nil
        }

        /// Whether a sample starting at `startMillis` may be the user's latest: its offset,
        /// which may take a zone lookup, is then worth finding (`offer`).
        func mayTake(user: UInt32, startMillis: Int64) -> Bool {
            self[user].map { $0.startMillis <= startMillis } ?? true
        }

        /// Takes `sample` when it starts later than the user's latest, or as late at a greater
        /// offset (the order a scan of the ids picks it in), or is the same: a user whose latest
        /// was removed then has it back without a scan (a Health Connect app rewriting today's
        /// record in place removes and adds the latest sample with every page).
        mutating func offer(user: UInt32, _ sample: LatestSample) {
            if let held = self[user], held > sample { return }
            set(user, sample)
        }

        /// Notes that a live sample of the user starting at `startMillis` is removed: when it may
        /// be the latest, the user's latest is found again before it is read.
        mutating func remove(user: UInt32, startMillis: Int64) {
            guard self[user]?.startMillis == startMillis, !stale.contains(user) else { return }
            stale.append(user)
        }

        /// Sets the user's latest sample, as found among the user's ids.
        mutating func set(_ user: UInt32, _ sample: LatestSample?) {
            if Int(user) >= byUser.count {
                guard sample != nil else { return }
                byUser.append(contentsOf: repeatElement(nil, count: Int(user) + 1 - byUser.count))
            }
            byUser[Int(user)] = sample
            if !stale.isEmpty { stale.removeAll { $0 == user } }
        }
    }

    /// The local offset (seconds) of the user's live sample with the latest start: where the
    /// user's days end (contract §3 rule 8); 0 (UTC) when there is none.
    func latestOffset(user: UInt32) -> Int32 {
        assert(!latestSamples.stale.contains(user), "a user's latest sample is read while being found")
        return latestSamples[user]?.offsetSeconds ?? 0
    }

    /// Notes a sample that becomes live, which may be its user's latest.
    mutating func noteLatest(_ record: IdIndex.Record, user: UInt32) {
        guard latestSamples.mayTake(user: user, startMillis: record.startMillis) else { return }
        latestSamples.offer(user: user, latestSample(record))
    }

    /// A live sample's start and local offset there: its `timeZone`'s when it names one (which
    /// decides its day, contract §3 rule 3), else the offset written.
    func latestSample(_ record: IdIndex.Record) -> LatestSample {
        let offset =
            index.zone(of: record).flatMap { zones.offsetSeconds(zone: $0, atMillis: record.startMillis) }
            ?? record.startOffset
        return LatestSample(startMillis: record.startMillis, offsetSeconds: offset)
    }

    /// Finds the latest sample of the users whose latest was removed, offering each of their
    /// live ids again.
    mutating func findStaleLatestSamples() {
        while let user = latestSamples.stale.last {
            latestSamples.set(user, nil)
            // A copy to read the records from while the latest samples change.
            let index = self.index
            index.forEachNumber(ofUser: user, in: .live) { noteLatest(index.record($0), user: user) }
        }
    }

    /// After an envelope's samples changed, dirties the user's days whose reading the move of
    /// the user's latest offset from `old` changes (a sample written further west, or the latest
    /// deleted): those with a cell (live samples, or samples that all went: those are marked
    /// for `provider`, the envelope's) whose reason not to be known (rule 8) differs between the
    /// two days' ends, read with the channels as they are before the envelope's sync facts
    /// (`updateSync` then compares those with the new ones, at the new offset).
    mutating func dirtyDaysMovedByOffset(user: UInt32, provider: UInt32, from old: Int32) {
        findStaleLatestSamples()
        let new = latestOffset(user: user)
        guard new != old else { return }
        feed.noteReadingsMoved(user: user, metric: nil, at: position)
        let (oldMillis, newMillis) = (Int64(old) * 1000, Int64(new) * 1000)
        var marks: [DirtyDays.Key] = []
        for metric in Metric.allCases {
            let channels = channels(user: user, metric: metric, asOf: nil)
            guard !channels.isEmpty else { continue }
            // A day's reading changes only when a check-in, or a window's or lost stretch's edge,
            // lies between its two ends, or its two starts: the days either side of those
            // instants at either offset.
            var days: [Int32] = []
            for channel in channels {
                var instants = channel.state.lastCheckinAt.map { [$0] } ?? []
                for hole in channel.windows + channel.lost { instants += [hole.lowerBound, hole.upperBound] }
                for instant in instants {
                    // Bounded to some 35,000 years from 1970, so that no edge overflows.
                    let bounded = min(max(instant, -(1 << 50)), 1 << 50)
                    let (a, b) = (
                        CivilDay.of(localMillis: bounded + oldMillis).daysSinceEpoch,
                        CivilDay.of(localMillis: bounded + newMillis).daysSinceEpoch
                    )
                    days += Array((min(a, b) - 1)...(max(a, b) + 1))
                }
            }
            for number in Set(days).sorted() {
                let cell = CellKey(user: user, metric: metric, day: CivilDay(daysSinceEpoch: number))
                let (oldStart, oldEnd) = Self.instants(of: cell.day, offsetMillis: oldMillis)
                let (newStart, newEnd) = Self.instants(of: cell.day, offsetMillis: newMillis)
                guard cells.contains(cell),
                    Self.reason(channels, dayStart: oldStart, dayEnd: oldEnd, asOf: nil)
                        != Self.reason(channels, dayStart: newStart, dayEnd: newEnd, asOf: nil)
                else { continue }
                marks += dirtyKeys(of: cell, members: cells.members(of: cell), emptyAs: provider)
            }
        }
        daysDirtiedForReadings += mark(marks)
    }
}
