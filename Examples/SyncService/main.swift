// A backend service's use of Recount, in miniature: take a phone's upload, answer "how many
// steps each day this week, and can I trust the number?", follow the feed of days that changed,
// and explain a day.
//
//     swift run SyncService [DIR]
import Foundation
import Recount

let directory = CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "recount-example-\(getpid())"
// Group commit: an ingest returns before its batch is fsynced, and batches are fsynced together
// within 200 ms (what power loss may then lose: the README's Durability table).
let engine = try RecountEngine(
    directory: directory, durability: .groupCommit(maxBytes: 8 << 20, maxDelay: .milliseconds(200)))
defer { try? engine.close() }
if let torn = engine.recovery {
    // A crash cut the log's last frame short; opening cut it off and saved its bytes.
    print("recovered: \(torn)")
}

// An upload as the iOS app sends it: one HealthKit anchored-query result per line. Watch and
// phone both counted Tuesday's walk; a later delivery (a check-in) shows the day has ended.
let upload = """
    {"kind":"healthkit.delivery","user":"u1","receivedAt":"2026-07-14T20:00:00Z","type":"steps","anchor":null,"newAnchor":"YQ==","added":[{"id":"w1","type":"steps","start":"2026-07-14T09:00:00-07:00","end":"2026-07-14T10:00:00-07:00","value":4200,"unit":"count","origin":"com.apple.health","device":"Apple Watch"},{"id":"p1","type":"steps","start":"2026-07-14T09:05:00-07:00","end":"2026-07-14T09:55:00-07:00","value":3900,"unit":"count","origin":"com.apple.health","device":"iPhone"}],"deleted":[]}
    {"kind":"healthkit.delivery","user":"u1","receivedAt":"2026-07-16T08:00:00Z","type":"steps","anchor":"YQ==","newAnchor":"Yg==","added":[],"deleted":[]}
    """
let report = try engine.ingest(ndjson: Array(upload.utf8), source: "upload") { rejection in
    print("rejected: \(rejection)")  // the line, field and reason; rejection.error.code for programs
}
print("appended \(report.appended) envelopes: \(report.newSamples) new samples, \(report.daysDirtied) days dirtied")

// Engine calls block their thread while they read, write and fsync. A service's async handlers
// run them on a queue of their own, off Swift's cooperative pool (a thread per core).
let engineQueue = DispatchQueue(label: "recount-engine")
func onEngineQueue<T: Sendable>(_ call: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        engineQueue.async { continuation.resume(with: Result(catching: call)) }
    }
}

// A cloud provider's webhook, decoded by the service's own HTTP layer, goes in as envelopes built
// in code: the engine writes each as its NDJSON line and checks it as it would the line.
let webhook = try await onEngineQueue {
    try engine.ingest(
        [
            IngestEnvelope(
                user: "u1", receivedAt: "2026-07-16T08:05:00Z",
                .checkin(provider: "garmin", metrics: ["steps"], at: "2026-07-16T08:05:00Z"))
        ], source: "garmin-webhook")
}
print("webhook: appended \(webhook.appended), rejected \(webhook.rejectedLines)")

func describe(_ reading: RollupRow.Reading) -> String {
    switch reading {
    case .known(let values): "known    \(values.map { "\($0.name) \($0.value)" })"
    case .partial(let values, let why): "partial  \(values.map { "\($0.name) \($0.value)" }) (\(why.rawValue))"
    case .unknown(let why): "unknown  (\(why.rawValue)): do not show 0"
    }
}
for row in try engine.rollups(user: "u1", metric: "steps", from: "2026-07-13", to: "2026-07-16") {
    print("\(row.date) \(describe(row.reading))")
}

// The feed a backend follows to push updated days to its clients: every day whose version moved
// after the highest version it was given, with the reading it was given then and the one now.
// Here the watch's sample of Tuesday's walk is deleted, so the phone's counts, and the feed says so.
var followed = try engine.changes(since: 0).map(\.version).max() ?? 0
_ = try engine.ingest(
    [
        IngestEnvelope(
            user: "u1", receivedAt: "2026-07-16T09:00:00Z",
            .healthKitDelivery(type: "steps", anchor: "Yg==", newAnchor: "Yw==", added: [], deleted: ["w1"]))
    ], source: "upload")
for change in try engine.changes(since: followed) {
    print("feed: \(change.user) \(change.metric) \(change.date): \(describe(change.old)) -> \(describe(change.new))")
    followed = max(followed, change.version)
}
if let audit = try engine.audit(user: "u1", metric: "steps", day: "2026-07-14") { print(audit.summary) }
print(try engine.verify().matches ? "verify: the projections match a replay of the log" : "verify: MISMATCH")

// Readers see the log as far as it is synced; under group commit the last batches may wait up
// to 200 ms, so the service syncs before telling another reader the upload is in.
try engine.sync()
// A support tool beside the service (another process would do the same, without a lock) opens
// the directory for one user's questions: it folds only u1's records from the log.
let support = try RecountEngine(readingDirectory: directory, user: "u1")
print("support: \(try support.audit(user: "u1", metric: "steps", day: "2026-07-14")?.summary ?? "no rollup")")
