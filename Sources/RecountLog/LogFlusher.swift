import Dispatch
import Synchronization

/// A repeating timer for group commit: calls `flush` every interval until cancelled.
final class LogFlusher: Sendable {
    private let timer: Mutex<(any DispatchSourceTimer)?>

    init(every interval: Duration, flush: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(1_000_000, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "recount.log.flusher"))
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        source.setEventHandler(handler: flush)
        source.resume()
        timer = Mutex(source)
    }

    /// Stops the timer; safe to call more than once.
    func cancel() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    deinit { cancel() }
}
