import Foundation
package import RecountLog

/// The digest of projections built a group of users at a time: each group's entries of each
/// `DigestPart` are appended to that part's scratch file, then the parts are hashed in order.
/// Groups must come in the users' string order (every part's entries are ordered by user
/// first), so the digest equals that of projections holding every group at once.
package struct DigestSpool {
    /// One scratch file per part, in `DigestPart` order, with its length and entry count.
    private var parts: [(file: any LogFile, length: Int64, count: Int)]

    /// A spool whose files are made in `directory` (they have no name there, and go away with
    /// the spool).
    /// - Throws: `LogError` when they cannot be made there (the message says to set `TMPDIR`).
    package init(directory: String) throws(LogError) {
        parts = []
        for _ in DigestPart.allCases {
            do {
                parts.append((try PosixFileSystem().scratchFile(in: directory), 0, 0))
            } catch {
                var error = error
                error.message += "; a replay of a large log writes scratch files in $TMPDIR (else /tmp)"
                throw error
            }
        }
    }

    /// Appends the entries of the users in `users` that `projections` holds (the projections
    /// of those users, folded from the log without the others).
    package mutating func append(_ projections: Projections, users: Set<String>) throws {
        var failure: (any Error)?
        for (number, part) in DigestPart.allCases.enumerated() {
            var entries = CanonicalBytes()
            func write(_ entries: inout CanonicalBytes) {
                entries.flush { bytes in
                    guard failure == nil else { return }
                    do {
                        let (file, offset) = (parts[number].file, parts[number].length)
                        try bytes.withUnsafeBytes { try file.write($0, at: offset) }
                        parts[number].length += Int64(bytes.count)
                    } catch {
                        failure = error
                    }
                }
            }
            parts[number].count += projections.writeDigestEntries(part, of: users, &entries, flush: write)
            write(&entries)
            if let failure { throw failure }
        }
    }

    /// The digest of every group appended, with days from tz data `zoneDataVersion`.
    package func digest(zoneDataVersion: String) throws -> [UInt8] {
        var stream = DigestStream(zoneDataVersion: zoneDataVersion)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for (number, part) in DigestPart.allCases.enumerated() {
            stream.begin(part, count: part.isCounted ? parts[number].count : nil)
            var offset: Int64 = 0
            while offset < parts[number].length {
                let file = parts[number].file
                let read = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
                guard read > 0 else { throw LogError(.io, "a scratch file of the replay ended early") }
                buffer.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[..<read])) }
                offset += Int64(read)
            }
        }
        return stream.finalize()
    }
}
