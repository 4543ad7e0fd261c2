import Foundation
package import RecountLog

extension ProjectionReplay {
    /// The most bytes of log records (uncompressed) a replay folds into memory at once by
    /// default. A replay's peak memory is about 4.4 bytes for each (measured on the benchmark
    /// log and on one three times its size), so near 285 MiB whatever the log's size.
    package static let defaultGroupBytes = 64 << 20

    /// What a replay from scratch read, and the digest of what it built.
    package struct Digested: Sendable {
        package var summary: Summary
        package var digest: [UInt8]
        package var zoneDataVersion: String
        /// How many groups of users were folded one after another (1: the log at once).
        package var userGroups = 1
    }

    /// Replays `reader` from scratch (up to `until`, exclusive), recomputes every dirty day and
    /// digests the result, holding the projections of at most about `groupBytes` of records at
    /// a time.
    ///
    /// A log whose records fit is folded whole. A larger one is read once to weigh each user's
    /// records, its users are split into groups contiguous in their string order, and each
    /// group is folded on its own (with the `*` config defaults, as a one-user replay is) and
    /// its part of the digest written to scratch files in `scratchDirectory`: a user's
    /// projections depend only on the user's envelopes and the defaults, so the digest is the
    /// one a single replay gives. One user whose records pass `groupBytes` is a group alone.
    ///
    /// - Parameter progress: called about every million samples with the samples folded so far.
    package static func digest(
        _ reader: LogReader, until: UInt64 = .max, groupBytes: Int = defaultGroupBytes,
        scratchDirectory: String = NSTemporaryDirectory(), progress: ((Int) -> Void)? = nil
    ) throws -> Digested {
        /// `progress` for a fold that starts after `before` samples.
        func reporting(after before: Int) -> ((Summary) -> Void)? {
            progress.map { report in { report(before + $0.samples) } }
        }
        if try reader.stats().rawBytes <= UInt64(groupBytes) {
            var projections = Projections()
            let summary = try fold(reader, into: &projections, until: until, progress: reporting(after: 0))
            projections.recompute()
            return Digested(
                summary: summary, digest: projections.digest(), zoneDataVersion: projections.zones.dataVersion)
        }
        let weighed = try weighUsers(reader, until: until)
        var spool = try DigestSpool(directory: scratchDirectory)
        var total = Summary()
        var zoneDataVersion = ""
        let groups = groups(of: weighed.users, holding: groupBytes)
        for group in groups {
            var projections = Projections()
            let folded = try fold(
                reader, into: &projections, until: until, users: group, progress: reporting(after: total.samples))
            projections.recompute()
            try spool.append(projections, users: group)
            total.samples += folded.samples
            total.effect += folded.effect
            zoneDataVersion = projections.zones.dataVersion
        }
        total.records = weighed.records
        total.lastPosition = weighed.lastPosition
        return Digested(
            summary: total, digest: try spool.digest(zoneDataVersion: zoneDataVersion),
            zoneDataVersion: zoneDataVersion, userGroups: groups.count)
    }

    /// The bytes of each user's records before `until` (the `*` defaults' under `*`), how many
    /// records there are and the last one's position. Records are told apart by their first
    /// fields only; one too damaged for that is decoded, which reports the damage.
    static func weighUsers(_ reader: LogReader, until: UInt64) throws -> (
        users: [String: Int], records: Int, lastPosition: UInt64
    ) {
        var users: [String: Int] = [:]
        var (records, lastPosition) = (0, UInt64(0))
        try reader.forEach(from: reader.snapshot.startPosition, to: until) { record in
            let user = try EnvelopeCodec.user(ofRecord: record.bytes) ?? EnvelopeCodec.decode(record.bytes).user
            users[user, default: 0] += record.bytes.count
            records += 1
            lastPosition = record.position
        }
        return (users, records, lastPosition)
    }

    /// `users` split, in their string order, into groups of at most `bytes` together (a user
    /// over it alone). Canonically equivalent user strings are one key of `users`, so they
    /// share a group.
    static func groups(of users: [String: Int], holding bytes: Int) -> [Set<String>] {
        var groups: [Set<String>] = []
        var (group, held) = (Set<String>(), 0)
        for (user, weight) in users.sorted(by: { $0.key < $1.key }) {
            if !group.isEmpty && held + weight > bytes {
                groups.append(group)
                (group, held) = ([], 0)
            }
            group.insert(user)
            held += weight
        }
        if !group.isEmpty { groups.append(group) }
        return groups
    }
}
