// Helpers shared by the test targets and the benchmarks: deterministic randomness and scratch
// directories.
import Foundation
public import Testing

/// SplitMix64: a small, seedable generator, so randomised tests replay exactly from their seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed for a randomised test: `RECOUNT_TEST_SEED` when set, else `fallback`; printed with
/// the test's name so a failure can be replayed.
public func testSeed(_ fallback: UInt64, _ name: String = #function) -> UInt64 {
    let seed = ProcessInfo.processInfo.environment["RECOUNT_TEST_SEED"].flatMap { UInt64($0) } ?? fallback
    print("\(name): seed \(seed) (replay with RECOUNT_TEST_SEED=\(seed))")
    return seed
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
public func withTemporaryDirectory<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: (String) throws -> T
) throws -> T {
    let path = try newTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// `withTemporaryDirectory` for an asynchronous body.
public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = try newTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

private func newTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "recount-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
