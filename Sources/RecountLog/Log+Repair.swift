/// What `Log.repair` found and did.
public struct LogRepair: Sendable, CustomStringConvertible {
    /// The first damage found, or `nil` when the log needed no repair.
    public var damage: LogError?
    /// Positions whose records are gone: those cut off, and those the commit record promised
    /// but the files no longer held. New records continue after them, so no position is
    /// ever given twice.
    public var lostPositions: Range<UInt64>?
    /// Files holding an exact copy of every byte removed from the log.
    public var savedTo: [String] = []
    /// The manifest or commit record was missing or damaged and was rebuilt from the segments.
    public var rebuiltManifest = false
    /// When this repair found nothing to do: the report of the last repair that did, as it kept
    /// it in the log directory (`REPAIR`). A repair killed after its last write and before it
    /// printed left no other word of the positions it lost (an attack run, 2026-12-07).
    public var lastRepairReport: String?

    /// The file in the log directory that keeps the last repair's report.
    package static let reportFileName = "REPAIR"

    /// How many positions were lost: at most this many records (positions a crashed writer
    /// reserved and never wrote count too).
    public var lostRecords: UInt64 { lostPositions.map { $0.upperBound - $0.lowerBound } ?? 0 }

    public var description: String {
        guard let damage else {
            let intact = "the log is intact; nothing was cut" + (rebuiltManifest ? " (manifest rebuilt)" : "")
            guard var last = lastRepairReport.map({ Substring($0) }) else { return intact }
            while last.last == "\n" { last.removeLast() }
            return intact + "\nthe last repair's report (kept in \(Self.reportFileName)):\n" + last
        }
        var text = "found: \(damage)\n"
        if let lost = lostPositions, !lost.isEmpty {
            text +=
                "lost positions \(lost.lowerBound)..<\(lost.upperBound): at most \(lostRecords) records (positions "
                + "reserved and never written count too); none of them will be given again\n"
        } else {
            text += "no record was lost\n"
        }
        for path in savedTo { text += "kept a copy of the removed bytes in \(path)\n" }
        if rebuiltManifest { text += "rebuilt the manifest and commit record from the segments\n" }
        return text
    }
}

extension Log {
    /// Cuts a damaged log back to the last good frame before its first damage, so that a
    /// writer can open it again. Never run automatically.
    ///
    /// Everything removed is kept, byte for byte: the damaged segment's cut-off bytes in
    /// `SEGMENT.cut-OFFSET`, later segments renamed to `SEGMENT.removed`. The positions lost
    /// are not given again: the next append starts a new segment after the highest position
    /// the log had committed. A missing or damaged manifest or commit record is rebuilt from
    /// the segment files.
    ///
    /// - Throws: `.locked` when a writer has the log open; `.noLog` when there is no log.
    public static func repair(directory: String) throws(LogError) -> LogRepair {
        try repair(directory: directory, fileSystem: PosixFileSystem())
    }

    package static func repair(directory: String, fileSystem: any LogFileSystem) throws(LogError) -> LogRepair {
        guard try Segment.directoryExists(directory) else {
            throw LogError(.noLog, "no log at \(directory)", path: directory)
        }
        let lock = try DirectoryLock(directory: directory)
        defer { lock.release() }
        var survey = try LogSurvey(directory: directory, fileSystem: fileSystem)
        var report = LogRepair(damage: survey.damage, rebuiltManifest: survey.rebuildManifest)
        let reportPath = directory + "/" + LogRepair.reportFileName
        guard survey.damage != nil || survey.rebuildManifest else {
            report.lastRepairReport = fileSystem.text(of: reportPath)
            return report
        }
        if let cut = survey.cut {
            // A rebuilt manifest can cut a torn tail (a segment's last frame) off too.
            report.savedTo = try survey.removeDamage(at: cut)
            report.lostPositions = cut.position..<max(cut.position, survey.committedEnd)
        } else {
            report.lostPositions = survey.missing
        }
        // Kept before the manifest and commit record change, so that a repair killed after them
        // has said what it did.
        try fileSystem.replace(reportPath, with: Array(report.description.utf8))
        try survey.writeManifestAndCommit()
        return report
    }
}

/// A damaged log's segments as far as they are good, and where the first damage is.
struct LogSurvey {
    /// Where to cut: a segment (by index in `segments`) at an offset holding `position`.
    struct Cut {
        var segment: Int
        var offset: Int64
        var position: UInt64
    }

    let directory: String
    let fileSystem: any LogFileSystem
    /// Every segment the manifest (or, without one, the directory) has, in position order,
    /// with the extent of its good frames once surveyed.
    var segments: [Segment] = []
    var damage: LogError?
    var cut: Cut?
    /// Positions the manifest or commit record says a segment holds past its good frames (when
    /// nothing is cut): lost, and never given again.
    var missing: Range<UInt64>?
    /// The position after the highest one the log may have handed out (its reservation).
    var committedEnd: UInt64 = Log.firstPosition
    var commitSequence: UInt64 = 0
    var rebuildManifest = false

    init(directory: String, fileSystem: any LogFileSystem) throws(LogError) {
        self.directory = directory
        self.fileSystem = fileSystem
        let files = try Segment.list(in: directory)
        var sealed: [UInt64: LogManifest.Entry] = [:]
        // Read first and on its own: when only the manifest is damaged, the commit record still
        // says how far positions were handed out. Its own damage is reported after the manifest's.
        let loadedCommit = Result { () throws(LogError) in
            try CommitPoint.load(directory: directory, fileSystem: fileSystem)
        }
        let commit = try? loadedCommit.get()
        do throws(LogError) {
            guard let manifest = try LogManifest.load(directory: directory, fileSystem: fileSystem) else {
                throw LogError(
                    .corruptManifest, "the log has no manifest", path: directory + "/" + LogManifest.fileName)
            }
            guard try loadedCommit.get() != nil else {
                throw LogError(.corruptManifest, "the log has no commit record", path: directory + "/COMMIT")
            }
            for entry in manifest.entries {
                segments.append(
                    Segment(
                        firstPosition: entry.firstPosition,
                        path: directory + "/" + Segment.fileName(firstPosition: entry.firstPosition),
                        length: entry.length, endPosition: entry.sealed ? entry.endPosition : entry.firstPosition))
                if entry.sealed { sealed[entry.firstPosition] = entry }
                committedEnd = max(committedEnd, entry.sealed ? entry.endPosition : entry.firstPosition)
            }
            if let extra = files.first(where: { file in !segments.contains { $0.firstPosition == file.firstPosition } }
            ),
                extra.length > 0
            {
                damage = LogError(.corruptSegment, "a segment file the manifest does not list", path: extra.path)
                rebuildManifest = true
            }
            // The opener's check too: a manifest and a commit record that each read well but
            // disagree (a repair killed between replacing one and the other) are rebuilt.
            do throws(LogError) {
                _ = try LogLayout.load(directory: directory, fileSystem: fileSystem)
            } catch  where error.code == .corruptManifest {
                throw error
            } catch {
                // Damage in the segments: the survey below finds and cuts it.
            }
        } catch {
            if error.code != .corruptManifest { throw error }
            damage = error
            rebuildManifest = true
        }
        if rebuildManifest {
            segments = files
            sealed = [:]
        }
        if let commit {
            committedEnd = max(committedEnd, commit.reservedEnd, commit.endPosition)
            commitSequence = commit.sequence
        }
        try survey(sealed: sealed, commit: rebuildManifest ? nil : commit)
        // Positions the commit record says the active segment's frames hold, and no frame does.
        if cut == nil, let commit, commit.segment != nil, let end = segments.last?.endPosition, end < commit.endPosition
        {
            noteMissing(end..<commit.endPosition)
        }
        // Every segment is listed as sealed after a repair, so the last one is cut to its frames.
        if cut == nil, let last = segments.indices.last,
            let size = try? fileSystem.open(segments[last].path, writable: false, create: false).size(),
            size > segments[last].length
        {
            cut = Cut(segment: last, offset: segments[last].length, position: segments[last].endPosition)
        }
    }

    /// Scans every segment until the first damage, recording each one's good extent; the
    /// segments after the damage are read only for the positions they held (which the cut
    /// loses, and which are never given again).
    private mutating func survey(sealed: [UInt64: LogManifest.Entry], commit: CommitPoint?) throws(LogError) {
        try surveyUntilDamage(sealed: sealed, commit: commit)
        guard let cut else { return }
        for segment in segments[(cut.segment + 1)...] {
            committedEnd = max(committedEnd, segment.firstPosition + 1)
            if let file = try? fileSystem.open(segment.path, writable: false, create: false),
                let tail = try? Self.tail(of: segment, in: file, length: file.size())
            {
                committedEnd = max(committedEnd, tail.position)
            }
        }
    }

    /// Where the good frames of `segment` end, in its `file` of `fileLength` bytes.
    private static func tail(
        of segment: Segment, in file: any LogFile, length fileLength: Int64
    ) throws(LogError) -> SegmentScanner.Tail {
        var whole = segment
        whole.length = fileLength
        return try withLogErrors(path: segment.path) {
            try SegmentScanner(segment: whole, file: file, map: false).scanTail(
                from: 0, position: segment.firstPosition, fileLength: fileLength, { _, _ in })
        }
    }

    private mutating func surveyUntilDamage(
        sealed: [UInt64: LogManifest.Entry], commit: CommitPoint?
    ) throws(LogError) {
        var expected = segments.first?.firstPosition ?? Log.firstPosition
        for index in segments.indices {
            let segment = segments[index]
            // Segments rebuilt from the files may leave gaps: a writer that crashed had
            // reserved positions it never wrote, and the next one started after them. Only
            // segments that overlap are damage.
            if rebuildManifest, segment.firstPosition < expected {
                return found(
                    LogError(
                        .corruptSegment, "the segment starts at \(segment.firstPosition), inside the one before",
                        path: segment.path),
                    at: Cut(segment: index, offset: 0, position: segment.firstPosition))
            }
            guard let file = try? fileSystem.open(segment.path, writable: false, create: false) else {
                return found(
                    LogError(.corruptSegment, "a segment the manifest lists is missing", path: segment.path),
                    at: Cut(segment: index, offset: 0, position: segment.firstPosition))
            }
            let fileLength = try file.size()
            let tail = try Self.tail(of: segment, in: file, length: fileLength)
            segments[index].length = tail.offset
            segments[index].endPosition = tail.position
            committedEnd = max(committedEnd, tail.position)
            expected = tail.position
            let isLast = index == segments.count - 1
            let committedLength: Int64 =
                sealed[segment.firstPosition]?.length
                ?? (commit?.segment == segment.firstPosition ? commit!.segmentLength : 0)
            let cutHere = Cut(segment: index, offset: tail.offset, position: tail.position)
            if tail.offset < committedLength {
                let reason: String
                switch tail.end {
                case .corrupt(let why), .torn(let why): reason = "log corrupted: \(why)"
                case .clean, .preallocated: reason = "committed frames are missing (the file ends early)"
                }
                return found(LogError(.corruptFrame, reason, path: segment.path, offset: tail.offset), at: cutHere)
            }
            if case .corrupt(let why) = tail.end {
                return found(
                    LogError.corruption(why, path: segment.path, offset: tail.offset),
                    at: cutHere)
            }
            if sealed[segment.firstPosition] != nil, fileLength != committedLength {
                return found(
                    LogError(
                        .corruptSegment,
                        "a sealed segment holds \(fileLength) bytes; the manifest says \(committedLength)",
                        path: segment.path, offset: committedLength),
                    at: cutHere)
            }
            if !isLast, tail.end != .clean {
                return found(
                    LogError(
                        .corruptFrame, "a segment before the last ends in a torn frame", path: segment.path,
                        offset: tail.offset),
                    at: cutHere)
            }
            if let badFrame = try Self.firstFrameWithoutItsRecords(of: segments[index], in: file) {
                return found(
                    badFrame.error, at: Cut(segment: index, offset: badFrame.offset, position: badFrame.position))
            }
            // Whole, valid frames that the manifest or the commit record describe otherwise: the
            // frames are kept, and the records rewritten to agree with them.
            if let entry = sealed[segment.firstPosition], entry.endPosition != tail.position {
                disagrees(
                    LogError(
                        .corruptSegment,
                        "the segment's frames end at position \(tail.position); the manifest says \(entry.endPosition)",
                        path: segment.path, offset: tail.offset),
                    // Positions up to the next segment's first are a gap the manifest may hold.
                    missing: nil)
            }
            if let commit, commit.segment == segment.firstPosition {
                let committed = try Self.tail(of: segment, in: file, length: commit.segmentLength)
                if committed.offset != commit.segmentLength || committed.position != commit.endPosition {
                    disagrees(
                        LogError(
                            .corruptManifest,
                            "the commit record says the segment's first \(commit.segmentLength) bytes hold positions up to "
                                + "\(commit.endPosition); its frames there end at byte \(committed.offset), position "
                                + "\(committed.position)", path: directory + "/" + CommitPoint.fileName),
                        missing: nil)
                }
            }
        }
    }

    /// The first frame of `segment`'s good extent whose payload does not decompress or split
    /// into its records (the writer's open checks checksums only), with its offset and position.
    private static func firstFrameWithoutItsRecords(
        of segment: Segment, in file: any LogFile
    ) throws(LogError) -> (error: LogError, offset: Int64, position: UInt64)? {
        var raw: [UInt8] = []
        var bad: (error: LogError, offset: Int64, position: UInt64)?
        try withLogErrors(path: segment.path) {
            try SegmentScanner(segment: segment, file: file, map: false).scan { offset, header, stored in
                do {
                    try FramePayload.forEachRecord(
                        of: header, stored: stored, into: &raw, path: segment.path, offset: offset
                    ) { _, _ in }
                    return true
                } catch let error as LogError {
                    bad = (error, offset, header.firstPosition)
                    return false
                }
            }
        }
        return bad
    }

    /// Notes damage that cutting nothing repairs: the manifest and commit record are rewritten
    /// from the frames, and the `missing` positions are never given again.
    private mutating func disagrees(_ error: LogError, missing positions: Range<UInt64>?) {
        if damage == nil { damage = error }
        if let positions { noteMissing(positions) }
    }

    /// Notes positions lost without a cut.
    private mutating func noteMissing(_ positions: Range<UInt64>) {
        guard !positions.isEmpty else { return }
        missing =
            missing.map { min($0.lowerBound, positions.lowerBound)..<max($0.upperBound, positions.upperBound) }
            ?? positions
        committedEnd = max(committedEnd, positions.upperBound)
    }

    private mutating func found(_ error: LogError, at cut: Cut) {
        if damage == nil { damage = error }
        self.cut = cut
    }

    /// Moves the damaged bytes and every later segment aside; returns where they went.
    mutating func removeDamage(at cut: Cut) throws(LogError) -> [String] {
        var saved: [String] = []
        for index in cut.segment..<segments.count {
            let segment = segments[index]
            try? fileSystem.remove(segment.indexPath)
            guard let file = try? fileSystem.open(segment.path, writable: false, create: false) else { continue }
            if index == cut.segment && cut.offset > 0 {
                guard try file.size() > cut.offset else {
                    // Nothing past the cut: a repair killed after it cut the segment (before its
                    // manifest) removed those bytes, and kept them; it named an empty new copy.
                    saved += LogCut.copies(of: segment.path, from: cut.offset)
                    continue
                }
                saved.append(try LogCut.save(segment.path, file: file, from: cut.offset, fileSystem: fileSystem))
                // A new file renamed over the old: readers that mapped the old one never fault.
                try fileSystem.replace(segment.path, with: try file.read(Int(cut.offset), at: 0))
            } else {
                var target = segment.path + ".removed"
                var copy = 1
                while (try? fileSystem.open(target, writable: false, create: false)) != nil {
                    target = segment.path + ".removed.\(copy)"
                    copy += 1
                }
                try fileSystem.rename(segment.path, to: target)
                saved.append(target)
            }
        }
        try fileSystem.syncDirectory(directory)
        var kept = Array(segments[..<cut.segment])
        if cut.offset > 0 {
            var last = segments[cut.segment]
            last.length = cut.offset
            last.endPosition = cut.position
            kept.append(last)
        }
        segments = kept
        return saved
    }

    /// Writes a manifest of the surveyed segments, all sealed, and a commit record whose end
    /// is the highest position the log had handed out.
    func writeManifestAndCommit() throws(LogError) {
        let end = max(committedEnd, segments.last?.endPosition ?? Log.firstPosition)
        let commit = CommitPoint(
            sequence: commitSequence + 1, endPosition: end, segment: nil, segmentLength: 0, reservedEnd: end)
        var slots = [UInt8](repeating: 0, count: Int(CommitPoint.slotStride) + CommitPoint.slotSize)
        let at = Int(commit.sequence % 2) * Int(CommitPoint.slotStride)
        slots.replaceSubrange(at..<(at + CommitPoint.slotSize), with: commit.encoded())
        try fileSystem.replace(directory + "/" + CommitPoint.fileName, with: slots)
        let manifest = LogManifest(
            entries: segments.map {
                LogManifest.Entry(
                    firstPosition: $0.firstPosition, endPosition: $0.endPosition, length: $0.length, sealed: true)
            })
        try manifest.write(directory: directory, fileSystem: fileSystem)
    }
}
