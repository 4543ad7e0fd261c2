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
        package var userGroups: Int
    }

    /// Replays `reader` from scratch (up to `until`, exclusive), recomputes every dirty day and
    /// digests the result, holding the projections of at most about `groupBytes` of records at
    /// a time (`foldInGroups`). Each group's part of the digest is written to scratch files in
    /// `scratchDirectory`; every part is ordered by user first, so hashing the parts in order
    /// gives the digest a single replay gives.
    ///
    /// - Parameter progress: called each time the samples folded or the records read pass
    ///   another million, with both so far.
    package static func digest(
        _ reader: LogReader, until: UInt64 = .max, groupBytes: Int = defaultGroupBytes,
        scratchDirectory: String = NSTemporaryDirectory(), progress: (@Sendable (ReplayProgress) -> Void)? = nil
    ) throws -> Digested {
        var whole: [UInt8]?
        var spool: DigestSpool?
        var zoneDataVersion = ""
        let folded = try foldInGroups(reader, until: until, groupBytes: groupBytes, progress: progress) {
            projections, group in
            zoneDataVersion = projections.zones.dataVersion
            guard let group else { return whole = projections.digest() }
            if spool == nil { spool = try DigestSpool(directory: scratchDirectory) }
            try spool?.append(projections, users: group)
        }
        guard let digest = try whole ?? spool?.digest(zoneDataVersion: zoneDataVersion) else {
            preconditionFailure("foldInGroups calls its body at least once")
        }
        return Digested(
            summary: folded.summary, digest: digest, zoneDataVersion: zoneDataVersion, userGroups: folded.groups)
    }

    /// Folds the records of `reader` up to `until` (exclusive) from scratch, the envelopes of
    /// `users` (every user's when `nil`) and the `*` config defaults, with the projections of
    /// at most about `groupBytes` of records in memory at a time; `body` gets each group's
    /// projections, recomputed, and its users (`nil`: every user of the log, folded at once).
    ///
    /// A log whose records fit (`LogStats.rawBytes`) is folded in one go. A larger one is read
    /// once to weigh each user's records by their headers; its users are split, in their string
    /// order, into groups of at most `groupBytes` (one user over it is a group alone), and each
    /// group is folded on its own, skipping the others' records by their header. A user's
    /// projections depend only on the user's envelopes and the defaults, so each group's are
    /// what a fold of every user holds for its users.
    ///
    /// - Returns: what was read (each record counted once; the effects of the `*` defaults
    ///   once per group) and how many groups there were.
    package static func foldInGroups(
        _ reader: LogReader, users: Set<String>? = nil, until: UInt64 = .max, groupBytes: Int = defaultGroupBytes,
        progress: (@Sendable (ReplayProgress) -> Void)? = nil, _ body: (Projections, Set<String>?) throws -> Void
    ) throws -> (summary: Summary, groups: Int) {
        if try reader.stats().rawBytes <= UInt64(groupBytes) {
            let (projections, summary) = try recomputed(
                reader, users: users, until: until, progress: progress)
            try body(projections, users)
            return (summary, 1)
        }
        var total = Summary()
        let weights = try weighUsers(reader, until: until) { read in
            total.read = read
            if read % 1_000_000 == 0 { progress?(total.progress) }
        }
        let groups = groups(
            of: weights.filter { users?.contains($0.key) ?? true }.mapValues(\.bytes), holding: groupBytes)
        // Nothing before `until` (or none of `users`' records): the projections are empty.
        guard !groups.isEmpty else {
            try body(Projections(), users)
            return (Summary(), 1)
        }
        for group in groups {
            let (projections, folded) = try recomputed(
                reader, users: group, until: until, progress: total.reporting(after: progress))
            try body(projections, group)
            total += folded
        }
        // Every group folds the `*` records: they count once, with each group's users' own.
        let folded = Set(groups.joined()).union(["*"])
        total.records = weights.filter { folded.contains($0.key) }.values.reduce(0) { $0 + $1.records }
        return (total, groups.count)
    }

    /// The bytes and the number of each user's records before `until` (the `*` defaults' under
    /// `*`). Records are told apart by their first fields only; one too damaged for that is
    /// decoded, which reports the damage.
    ///
    /// - Parameter read: called after each record with the number read so far.
    static func weighUsers(
        _ reader: LogReader, until: UInt64, read: (Int) -> Void = { _ in }
    ) throws -> [String: (bytes: Int, records: Int)] {
        var users: [String: (bytes: Int, records: Int)] = [:]
        var count = 0
        func add(_ record: LogRecord, to weight: inout (bytes: Int, records: Int)) {
            weight.bytes += record.bytes.count
            weight.records += 1
        }
        try reader.forEach(from: reader.snapshot.startPosition, to: until) { record in
            let user = try EnvelopeCodec.user(ofRecord: record.bytes) ?? record.envelope().user
            // One lookup of the user's weight, changed in place (two hashed the string twice).
            add(record, to: &users[user, default: (0, 0)])
            count += 1
            read(count)
        }
        return users
    }

    /// `users` split, in their string order, into groups of at most `bytes` together (a user
    /// over it alone). Canonically equivalent user strings are one key of `users`, so they
    /// share a group.
    static func groups(of users: [String: Int], holding bytes: Int) -> [Set<String>] {
        packed(users.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, holding: bytes).map(Set.init)
    }

    /// `items` in their order, cut into runs whose weights add up to at most `most` (an item
    /// over it alone): the groups of a replay, and of the ranges an engine catches up.
    static func packed<Item>(_ items: [(item: Item, weight: Int)], holding most: Int) -> [[Item]] {
        var groups: [[Item]] = []
        var (group, held) = ([Item](), 0)
        for (item, weight) in items {
            if !group.isEmpty && held + weight > most {
                groups.append(group)
                (group, held) = ([], 0)
            }
            group.append(item)
            held += weight
        }
        if !group.isEmpty { groups.append(group) }
        return groups
    }
}
