/// A stored checkpoint an engine found and could not use: it folds that range of users from the
/// log instead (the log is the truth), and a writer stores it again.
public struct UnusableCheckpoint: Sendable, Equatable, CustomStringConvertible {
    /// The checkpoint file.
    public let path: String
    /// Why it could not be used: `damaged` (a checksum or its contents), `missing` (named by
    /// the ranges' manifest, not on disk), `another log's` (it covers records this log does
    /// not hold), `another version's` (of the format: written before an upgrade), `of other tz
    /// data` (folded before a toolchain update changed the zone data), or `another range's` (it
    /// was written for other users than its range's: restored under another range's name, or
    /// from a split other than the manifest's).
    public let reason: String

    init(path: String, reason: String) { (self.path, self.reason) = (path, reason) }

    init(path: String, unusable: CheckpointFile.Unusable) {
        let reason =
            switch unusable {
            case .missing: "missing"
            case .damaged: "damaged"
            case .otherLog: "another log's"
            case .otherVersion: "another version's"
            case .otherZoneData: "of other tz data"
            case .otherRange: "another range's"
            }
        self.init(path: path, reason: reason)
    }

    public var description: String { "checkpoint \(path) is \(reason): rebuilt from the log" }
}
