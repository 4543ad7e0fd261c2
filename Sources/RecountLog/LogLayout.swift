/// A log directory as its manifest and commit point describe it, checked against the segment
/// files that are there: what is committed, where, and which files do not belong.
struct LogLayout {
    /// Sealed segments, each with its exact length and end position.
    var sealed: [Segment]
    /// The segment being appended to, with its committed length and end position.
    var active: Segment?
    /// The commit point as read (its segment may be the last sealed one, just after a roll).
    var commit: CommitPoint
    /// The position after the last committed record.
    var endPosition: UInt64
    /// Empty segment files after the last listed one: a crash came between creating a segment
    /// and listing it. Nothing was ever appended to them; the writer removes them.
    var leftovers: [Segment]

    /// All segments, in position order.
    var segments: [Segment] { sealed + (active.map { [$0] } ?? []) }

    /// Reads and checks the layout of the log in `directory`.
    ///
    /// - Returns: `nil` when there is no log there (no manifest and no segment).
    /// - Throws: `.corruptManifest` when the manifest or commit record is missing, damaged or
    ///   disagrees with the other; `.corruptSegment` for a listed segment that is missing or
    ///   has the wrong length, and for a segment file the manifest does not list.
    static func load(directory: String, fileSystem: any LogFileSystem) throws(LogError) -> LogLayout? {
        let files = try Segment.list(in: directory)
        guard let manifest = try LogManifest.load(directory: directory, fileSystem: fileSystem) else {
            // Creation writes the commit record, then the manifest: a commit record alone (a
            // writer creating the log now, or a crash while it did) is a log not made yet.
            if files.isEmpty { return nil }
            throw LogError(
                .corruptManifest,
                "the log has no manifest (\(files.count) segment files); `recount log repair` rebuilds it",
                path: directory + "/" + LogManifest.fileName)
        }
        guard let commit = try CommitPoint.load(directory: directory, fileSystem: fileSystem) else {
            throw LogError(
                .corruptManifest, "the log has no commit record; `recount log repair` rebuilds it",
                path: directory + "/" + CommitPoint.fileName)
        }
        var layout = LogLayout(sealed: [], active: nil, commit: commit, endPosition: commit.endPosition, leftovers: [])
        let sizes = Dictionary(files.map { ($0.firstPosition, $0.length) }, uniquingKeysWith: { a, _ in a })
        for entry in manifest.entries {
            let path = directory + "/" + Segment.fileName(firstPosition: entry.firstPosition)
            guard let size = sizes[entry.firstPosition] else {
                throw LogError(
                    .corruptSegment, "a segment the manifest lists is missing (positions from \(entry.firstPosition))",
                    path: path)
            }
            if entry.sealed {
                guard size == entry.length else {
                    throw LogError(
                        .corruptSegment, "a sealed segment holds \(size) bytes; the manifest says \(entry.length)",
                        path: path, offset: min(size, entry.length))
                }
                layout.sealed.append(
                    Segment(
                        firstPosition: entry.firstPosition, path: path, length: size, endPosition: entry.endPosition))
            } else {
                layout.active = try activeSegment(entry, path: path, size: size, commit: commit, manifest: manifest)
                layout.endPosition = layout.active!.endPosition
            }
        }
        let lastSealedEnd = layout.sealed.last?.endPosition ?? Log.firstPosition
        if layout.active == nil {
            guard commit.segment.map({ first in layout.sealed.contains { $0.firstPosition == first } }) ?? true,
                commit.endPosition >= lastSealedEnd
            else { throw disagreement(directory) }
            layout.endPosition = commit.endPosition
        }
        let listed = Set(manifest.entries.map(\.firstPosition))
        for file in files where !listed.contains(file.firstPosition) {
            guard file.firstPosition >= layout.endPosition, file.length == 0 else {
                throw LogError(
                    .corruptSegment, "a segment file the manifest does not list", path: file.path)
            }
            layout.leftovers.append(file)
        }
        return layout
    }

    /// The active segment's committed extent, from the commit point.
    private static func activeSegment(
        _ entry: LogManifest.Entry, path: String, size: Int64, commit: CommitPoint, manifest: LogManifest
    ) throws(LogError) -> Segment {
        var segment = Segment(
            firstPosition: entry.firstPosition, path: path, length: 0, endPosition: entry.firstPosition)
        if commit.segment == entry.firstPosition {
            guard commit.endPosition >= entry.firstPosition else { throw disagreement(parentDirectory(of: path)) }
            segment.length = commit.segmentLength
            segment.endPosition = commit.endPosition
        } else {
            // The segment was created after the last commit: by a roll (the commit point still
            // names the sealed segment before it) or after a repair (no segment named).
            let before = manifest.entries.dropLast().last
            guard commit.segment == nil || commit.segment == before?.firstPosition,
                commit.endPosition <= entry.firstPosition
            else { throw disagreement(parentDirectory(of: path)) }
        }
        guard size >= segment.length else {
            throw LogError(
                .corruptSegment,
                "the segment holds \(size) bytes but \(segment.length) are committed: acknowledged records are missing",
                path: path, offset: size)
        }
        return segment
    }

    private static func disagreement(_ directory: String) -> LogError {
        LogError(
            .corruptManifest, "the commit record does not match the manifest; `recount log repair` rebuilds them",
            path: directory + "/" + CommitPoint.fileName)
    }
}
