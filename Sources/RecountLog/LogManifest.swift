import Glibc

/// The segments a log holds, so that a missing, extra or shortened segment file is noticed
/// instead of read as a shorter log.
///
/// `MANIFEST` is replaced atomically (temporary file, fsync, rename, fsync of the directory)
/// whenever the set of segments changes: when the log is created, when a segment is rolled,
/// and by `repair`. A sealed segment's entry records its exact length and end position; the
/// last entry may be the active segment, whose committed extent is in `CommitPoint`.
///
/// Little-endian: magic `RCMF`, version (`UInt32`, 1), entry count (`UInt32`), then per entry
/// first position, end position, length and flags (four `UInt64`; flag bit 0 = sealed; an
/// active entry has end and length 0), then XXH3-64 of everything before it.
package struct LogManifest: Equatable, Sendable {
    /// The file name inside the log directory.
    package static let fileName = "MANIFEST"
    private static let magic: UInt32 = 0x464D_4352  // "RCMF" read little-endian

    /// One segment file.
    package struct Entry: Equatable, Sendable {
        /// The segment's first position (its file name).
        package var firstPosition: UInt64
        /// For a sealed segment, the position after its last record.
        package var endPosition: UInt64
        /// For a sealed segment, its exact length in bytes.
        package var length: Int64
        /// Sealed: no frame will be appended to it again.
        package var sealed: Bool
    }

    /// The segments in position order; only the last may be unsealed.
    package var entries: [Entry]

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + entries.count * 32 + 8)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        append(Self.magic)
        append(UInt32(1))
        append(UInt32(entries.count))
        for entry in entries {
            append(entry.firstPosition)
            append(entry.endPosition)
            append(UInt64(entry.length))
            append(UInt64(entry.sealed ? 1 : 0))
        }
        append(bytes.withUnsafeBytes { Checksum.xxh3($0) })
        return bytes
    }

    /// Decodes a manifest, or `nil` when the bytes are not a whole, checked, ordered one.
    static func decode(_ bytes: [UInt8]) -> LogManifest? {
        bytes.withUnsafeBytes { raw -> LogManifest? in
            guard raw.count >= 20, raw.load(at: 0) as UInt32 == magic, raw.load(at: 4) as UInt32 == 1 else {
                return nil
            }
            let count = Int(raw.load(at: 8) as UInt32)
            guard raw.count == 12 + count * 32 + 8,
                raw.load(at: raw.count - 8) as UInt64
                    == Checksum.xxh3(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 8)]))
            else { return nil }
            var entries: [Entry] = []
            for index in 0..<count {
                let at = 12 + index * 32
                let flags: UInt64 = raw.load(at: at + 24)
                let entry = Entry(
                    firstPosition: raw.load(at: at), endPosition: raw.load(at: at + 8),
                    length: Int64(bitPattern: raw.load(at: at + 16)), sealed: flags & 1 != 0)
                guard entry.firstPosition >= Log.firstPosition, entry.length >= 0, flags & ~1 == 0,
                    !entry.sealed || entry.endPosition >= entry.firstPosition,
                    entry.sealed || index == count - 1,
                    entries.last.map({ $0.endPosition <= entry.firstPosition }) ?? true
                else { return nil }
                entries.append(entry)
            }
            return LogManifest(entries: entries)
        }
    }

    /// Reads `directory/MANIFEST`.
    ///
    /// - Returns: `nil` when the file does not exist.
    /// - Throws: `.corruptManifest` when it exists but is damaged.
    static func load(directory: String, fileSystem: any LogFileSystem) throws(LogError) -> LogManifest? {
        let path = directory + "/" + fileName
        let file: any LogFile
        do { file = try fileSystem.open(path, writable: false, create: false) } catch  where error.errno == ENOENT {
            return nil
        }
        let size = try file.size()
        guard size <= 1 << 30, let manifest = decode(try file.read(Int(size), at: 0)) else {
            throw LogError(
                .corruptManifest, "the manifest is damaged; `recount log repair` rebuilds it", path: path)
        }
        return manifest
    }

    /// Replaces `directory/MANIFEST` with this manifest, atomically and durably.
    func write(directory: String, fileSystem: any LogFileSystem) throws(LogError) {
        try fileSystem.replace(directory + "/" + Self.fileName, with: encoded())
    }
}
