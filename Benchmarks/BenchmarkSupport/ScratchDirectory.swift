import Foundation
import Synchronization

/// The scratch directories made this run, removed when the process exits: by returning from
/// `main`, by `exit(0)` after a smoke run, or by `exit(1)` from a failed check (a top-level
/// `defer` runs in none of the last two, and every smoke run in CI left its files behind).
private let scratchDirectories = Mutex<[String]>([])

/// Removes the scratch directories; registered with `atexit` once.
private let removalAtExit: Void = {
    atexit {
        for path in scratchDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}()

extension BenchmarkRun {
    /// A new, empty directory under the system's temporary directory, named after `label` and
    /// the process, which is removed with everything in it when the process exits.
    public func scratchDirectory(_ label: String) throws -> String {
        let path = NSTemporaryDirectory() + "recount-\(label)-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = removalAtExit
        scratchDirectories.withLock { $0.append(path) }
        return path
    }
}
