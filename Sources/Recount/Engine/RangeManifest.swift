import Foundation
import RecountLog

/// `DIR/projections/ranges`: the engine's ranges of users (`ProjectionRanges`) and what it
/// knew of each when it last stored one, replaced atomically (temporary file, fsync, rename).
///
/// Layout: the canonical bytes (`CanonicalBytes`) of `recount ranges v2`, the number of
/// ranges (`UInt32`), then per range its least user, its checkpoint's file name, the log
/// position every record bearing on it is folded through in that checkpoint (or that none
/// after the checkpoint's own bears on it), the XXH3-64 of the log record there, its size
/// (`rangeSize`: ids, rollups and check-ins), its dirty days and its checkpoint's checksum
/// (`UInt64` each); then the XXH3-64 of all that (`v1`, before the checksums, is read with
/// none known). A missing or damaged manifest is read as one range of every user whose
/// checkpoint is `DIR/projections/checkpoint`, folded through position 0 (so the engine folds
/// the log after that checkpoint): the layout of a store that never split. The engine says so
/// when the manifest was damaged, or missing beside range files.
struct RangeManifest: Equatable {
    struct Entry: Equatable {
        var lowerBound: String
        var file: String
        var position: UInt64
        /// The XXH3-64 of the log record at `position` (0: none), which ties the word to its log.
        var record: UInt64
        var size: Int
        /// The dirty days the range's checkpoint holds (an engine that opens it trusts them
        /// when no record after `position` bears on the range).
        var dirtyDays: Int
        /// The checksum of the range's checkpoint file (`CheckpointFile.save`'s; 0: none
        /// stored yet). A file with another is not the one listed: an older copy, or another
        /// range's put back under this name.
        var checksum: UInt64
    }

    var entries: [Entry]
    /// Whether the file was there but could not be read (it was then read as `unsplit`).
    private(set) var isDamaged = false

    /// The manifest of a store that has never split (or whose manifest is lost).
    static let unsplit = RangeManifest(
        entries: [Entry(lowerBound: "", file: "checkpoint", position: 0, record: 0, size: 0, dirtyDays: 0, checksum: 0)]
    )

    /// The most ids or dirty days a manifest may say one range holds, and the most ranges:
    /// far past any store, and small enough that no sum of a manifest's sizes overflows.
    private static let (mostCount, mostRanges) = (1 << 40, 1 << 20)

    private static let magic = "recount ranges v2"
    /// The layout before checkpoints' checksums (2026-12-07): read with none known (each file
    /// is then loaded once as the engine opens), so that a store written before them is not
    /// rebuilt.
    private static let olderMagic = "recount ranges v1"

    init(entries: [Entry]) { self.entries = entries }

    /// The manifest at `path`, or `unsplit` when it is missing or damaged.
    init(path: String) {
        let stored = FileManager.default.contents(atPath: path).map(Array.init)
        guard let stored, let entries = Self.decode(stored) else {
            self = .unsplit
            isDamaged = stored != nil
            return
        }
        self.entries = entries
    }

    /// The entries `stored` holds, or `nil` when its checksum, layout or bounds are wrong.
    private static func decode(_ stored: [UInt8]) -> [Entry]? {
        guard stored.count >= 8 else { return nil }
        let payload = Array(stored[..<(stored.count - 8)])
        let check = stored[(stored.count - 8)...].withUnsafeBytes {
            UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
        }
        guard payload.withUnsafeBytes({ Checksum.xxh3($0) }) == check else { return nil }
        var input = CheckpointReader(payload)
        var entries: [Entry] = []
        do throws(CheckpointReader.Malformed) {
            let withChecksums = (try? input.expect(magic)) != nil
            if !withChecksums {
                input = CheckpointReader(payload)
                try input.expect(olderMagic)
            }
            for _ in 0..<(try input.integer(UInt32.self)) {
                entries.append(
                    Entry(
                        lowerBound: try input.string(), file: try input.string(), position: try input.integer(),
                        record: try input.integer(), size: Int(clamping: try input.integer(UInt64.self)),
                        dirtyDays: Int(clamping: try input.integer(UInt64.self)),
                        checksum: withChecksums ? try input.integer() : 0))
            }
            guard try input.isAtEnd() else { return nil }
        } catch {
            return nil
        }
        // The first range starts at the least string, bounds only grow, files are names in
        // the projections' directory, and sizes and dirty days are counts a store can hold (a
        // size near 2^64 with a valid checksum trapped every command on an overflow as sizes
        // were added; an attack run, 2026-12-07).
        guard entries.first?.lowerBound == "", entries.count <= Self.mostRanges,
            zip(entries, entries.dropFirst()).allSatisfy({ $0.lowerBound < $1.lowerBound }),
            entries.allSatisfy({ !$0.file.isEmpty && !$0.file.contains("/") && $0.file != ".." }),
            entries.allSatisfy({ $0.size <= Self.mostCount && $0.dirtyDays <= Self.mostCount })
        else { return nil }
        return entries
    }

    /// Writes the manifest to `path`, atomically and durably.
    func save(to path: String) throws(LogError) {
        var out = CanonicalBytes()
        out.append(Self.magic)
        out.append(UInt32(entries.count))
        for entry in entries {
            out.append(entry.lowerBound)
            out.append(entry.file)
            out.append(entry.position)
            out.append(entry.record)
            out.append(UInt64(entry.size))
            out.append(UInt64(entry.dirtyDays))
            out.append(entry.checksum)
        }
        var bytes = out.bytes
        withUnsafeBytes(of: bytes.withUnsafeBytes { Checksum.xxh3($0) }.littleEndian) { bytes.append(contentsOf: $0) }
        try PosixFileSystem().createDirectories(parentDirectory(of: path))
        try PosixFileSystem().replace(path, with: bytes)
    }
}
