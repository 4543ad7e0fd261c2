import Glibc
import Synchronization

/// Stamps `receivedAt` on the envelopes that leave it out (contract §1): the engine's clock,
/// moved on by a millisecond for each envelope of one user stamped within the same millisecond,
/// so that the envelopes of one upload keep their order in the log.
///
/// Envelopes of one user with equal `receivedAt` are as new as each other, and the fold then
/// settles between them by content, whatever their log order (so that ingesting them again
/// changes nothing). A client's upload of a sample and its revision, or of two pages of one read,
/// was stamped with one instant when the ingest took less than a millisecond: the revision was
/// lost to the older content, and `cursor` handed back the first page's token (an oracle run).
///
/// A user's stamps never go backwards, and run at most `maximumLead` ahead of the clock: a user
/// sending more than a thousand envelopes a second for longer shares stamps again rather than
/// drifting into the future, where a check-in would make days known before they end.
package final class ReceiptClock: Sendable {
    /// How far a user's stamps may run ahead of the clock.
    package static let maximumLead: Int64 = 1000
    /// How far after the clock a `receivedAt` a client gives may lie (the clocks of a backend's
    /// hosts differ a little); one later is refused (`IngestError.Code.receivedInFuture`).
    package static let maximumSkew: Int64 = 5 * 60_000

    private let now: @Sendable () -> Instant
    private let state = Mutex(State())
    /// The clock's last reading plus `maximumSkew`: `receivedAt` values up to it are accepted.
    private let acceptedUpTo = Atomic<Int64>(.min)

    private struct State {
        /// Each user's last stamp (epoch millis); those the clock has passed no longer matter.
        var lastStamps: [String: Int64] = [:]
        /// The count of `lastStamps` at which those are dropped: twice what stayed last time, so
        /// that the sweeps cost a constant per stamp however many users are stamping at once.
        var sweepAt = 4096
    }

    /// A clock reading `now` (the wall clock when not given).
    package init(now: @escaping @Sendable () -> Instant = RecountEngine.now) {
        self.now = now
    }

    /// Why `receivedAt`, given by a client, cannot be logged: it lies more than `maximumSkew`
    /// after the clock (a backend's clock or a typo in the year). A check-in received then made
    /// every day until then known, today's and tomorrow's zeros included (an oracle run).
    package func refusal(of receivedAt: Instant) -> String? {
        // The clock only moves on: an instant within the bound it gave last passes without
        // reading it again (most envelopes carry their `receivedAt`).
        if receivedAt.millis <= acceptedUpTo.load(ordering: .relaxed) { return nil }
        let clock = now()
        acceptedUpTo.store(clock.millis + Self.maximumSkew, ordering: .relaxed)
        guard receivedAt.millis > clock.millis + Self.maximumSkew else { return nil }
        return "is \(RFC3339.format(millis: receivedAt.millis, offsetSeconds: receivedAt.offsetSeconds)), more than "
            + "\(Self.maximumSkew / 60_000) minutes after this engine's clock "
            + "(\(RFC3339.format(millis: clock.millis, offsetSeconds: 0))): it cannot have been received yet"
    }

    /// Waits until the clock has passed every stamp given (at most `maximumLead`), so that an
    /// engine opened on the directory next, which starts from the clock alone, stamps after
    /// them: a `recount ingest` right after an upload of 300 envelopes of one user stamped
    /// earlier than that upload's last ones, and the revision it brought was dropped as older
    /// (an oracle run).
    package func waitUntilStampsPass() {
        guard let last = state.withLock({ $0.lastStamps.values.max() }) else { return }
        let lead = min(last - now().millis, Self.maximumLead)
        guard lead >= 0 else { return }
        usleep(UInt32((lead + 1) * 1000))
    }

    /// The `receivedAt` of `user`'s next envelope that has none.
    package func stamp(user: String) -> Instant {
        let clock = now()
        let millis = state.withLock { state in
            let last = state.lastStamps[user] ?? .min
            let next =
                last < clock.millis ? clock.millis : last + 1 <= clock.millis + Self.maximumLead ? last + 1 : last
            if state.lastStamps.count >= state.sweepAt {
                state.lastStamps = state.lastStamps.filter { $0.value >= clock.millis }
                state.sweepAt = max(4096, 2 * state.lastStamps.count)
            }
            state.lastStamps[user] = next
            return next
        }
        return Instant(millis: millis, offsetSeconds: clock.offsetSeconds)
    }
}
