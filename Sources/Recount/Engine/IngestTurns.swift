import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The turns the engine's ingests take, one at a time (a fold must follow the log's order),
/// with `verify`'s snapshot and `close` among them. The lock is not reentrant: a call that
/// takes a turn from inside an ingest's callback (on the thread holding the turn) is refused
/// with `ReentrantCallError`, where waiting for the turn would never end (the lock traps).
final class IngestTurns: Sendable {
    private let lock = Mutex(())
    /// The thread holding the turn (0: none). Only that thread ever reads its own id here.
    private let holder = Atomic<UInt>(0)

    /// Runs `body` in a turn, after any other thread's; throws `refusal` of the error when the
    /// caller holds the turn already.
    func take<T, E: Error>(_ call: String, refusal: (ReentrantCallError) -> E, _ body: () throws(E) -> T) throws(E)
        -> T
    {
        let thread = Self.currentThread()
        guard holder.load(ordering: .relaxed) != thread else { throw refusal(ReentrantCallError(call: call)) }
        return try lock.withLock { _ throws(E) in
            holder.store(thread, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            return try body()
        }
    }

    private static func currentThread() -> UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}

/// An engine call that waits for the ingests' turn (`ingest`, `verify`, `close`) made from
/// inside a callback of an ingest, which holds the turn until it returns.
public struct ReentrantCallError: Error, CustomStringConvertible, Sendable {
    /// The call refused.
    public let call: String

    public var description: String {
        "\(call) was called from inside a callback of an ingest, which holds the engine's ingest turn until it returns: call it after the ingest"
    }
}
