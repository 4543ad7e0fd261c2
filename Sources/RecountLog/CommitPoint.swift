import Glibc

/// Where the log's durable records end: written after every sync, never below what an
/// `append` acknowledged, so recovery can tell a batch that was committed from a torn one.
///
/// It also reserves positions: before handing out a position past `reservedEnd`, the writer
/// records a higher one, and on a clean close it releases the reservation. A writer that
/// opens a log whose reservation was not released (a crash) continues after it, so positions
/// of batches that were appended but lost before they were synced are never given again.
///
/// The `COMMIT` file holds two 56-byte slots, at offsets 0 and 4096 (separate disk sectors and
/// pages), written alternately in place and fsynced: a write torn by a crash damages at most
/// the slot being written, and the other still holds the previous commit point. Each slot is
/// little-endian:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `RCCP` |
/// | 4 | 4 | format version, 1 |
/// | 8 | 8 | sequence (the newer valid slot wins) |
/// | 16 | 8 | end position: the position after the last committed record |
/// | 24 | 8 | first position of the segment being appended to (0: none) |
/// | 32 | 8 | committed bytes of that segment |
/// | 40 | 8 | reserved end: no position below it will be given again |
/// | 48 | 8 | XXH3-64 of bytes 0..<48 |
package struct CommitPoint: Equatable, Sendable {
    /// The file name inside the log directory.
    package static let fileName = "COMMIT"
    static let slotSize = 56
    static let slotStride: Int64 = 4096
    private static let magic: UInt32 = 0x5043_4352  // "RCCP" read little-endian

    /// Orders commit points; the slot holding the larger one is current.
    package var sequence: UInt64
    /// The position after the last committed record (the next position to hand out).
    package var endPosition: UInt64
    /// The first position of the segment being appended to, or `nil` when no segment is
    /// active (a new log, or one that `repair` left with its last segment sealed).
    package var segment: UInt64?
    /// How many bytes of that segment hold committed frames.
    package var segmentLength: Int64
    /// Positions below this may have been handed out; equal to `endPosition` after a clean close.
    package var reservedEnd: UInt64

    package init(sequence: UInt64, endPosition: UInt64, segment: UInt64?, segmentLength: Int64, reservedEnd: UInt64) {
        self.sequence = sequence
        self.endPosition = endPosition
        self.segment = segment
        self.segmentLength = segmentLength
        self.reservedEnd = reservedEnd
    }

    /// The bytes of this commit point's slot.
    func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.slotSize)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: endPosition.littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: (segment ?? 0).littleEndian, toByteOffset: 24, as: UInt64.self)
            raw.storeBytes(of: UInt64(segmentLength).littleEndian, toByteOffset: 32, as: UInt64.self)
            raw.storeBytes(of: reservedEnd.littleEndian, toByteOffset: 40, as: UInt64.self)
            let check = Checksum.xxh3(UnsafeRawBufferPointer(rebasing: raw[0..<48]))
            raw.storeBytes(of: check.littleEndian, toByteOffset: 48, as: UInt64.self)
        }
        return bytes
    }

    /// No sequence number or position reaches this (a log appending a billion records a
    /// second would take 146 years): a slot claiming more was not written by a writer, and is
    /// refused before the next commit's arithmetic would overflow.
    package static let limit: UInt64 = 1 << 62

    /// Decodes one slot, or `nil` when it is not a whole, checked slot of plausible values.
    static func decode(_ bytes: [UInt8]) -> CommitPoint? {
        guard bytes.count == slotSize else { return nil }
        return bytes.withUnsafeBytes { raw -> CommitPoint? in
            guard raw.load(at: 0) as UInt32 == magic, raw.load(at: 4) as UInt32 == 1,
                raw.load(at: 48) as UInt64 == Checksum.xxh3(UnsafeRawBufferPointer(rebasing: raw[0..<48]))
            else { return nil }
            let segment: UInt64 = raw.load(at: 24)
            let length = Int64(bitPattern: raw.load(at: 32))
            let point = CommitPoint(
                sequence: raw.load(at: 8), endPosition: raw.load(at: 16), segment: segment == 0 ? nil : segment,
                segmentLength: length, reservedEnd: raw.load(at: 40))
            let plausible = length >= 0 && point.sequence < limit && point.reservedEnd <= limit
            return plausible && point.reservedEnd >= point.endPosition ? point : nil
        }
    }

    /// Reads the newer valid slot of `directory/COMMIT`.
    ///
    /// - Returns: `nil` when the file does not exist.
    /// - Throws: `.corruptManifest` when neither slot holds a valid commit point.
    static func load(directory: String, fileSystem: any LogFileSystem) throws(LogError) -> CommitPoint? {
        let path = directory + "/" + fileName
        let file: any LogFile
        do { file = try fileSystem.open(path, writable: false, create: false) } catch  where error.errno == ENOENT {
            return nil
        }
        let first = decode(try file.read(slotSize, at: 0))
        let second = decode(try file.read(slotSize, at: slotStride))
        guard let newest = [first, second].compactMap({ $0 }).max(by: { $0.sequence < $1.sequence }) else {
            throw LogError(
                .corruptManifest, "neither slot of the commit record is valid; `recount log repair` rebuilds it",
                path: path)
        }
        return newest
    }

    /// Writes this commit point into its slot of the open `COMMIT` file and fsyncs it.
    func write(to file: any LogFile) throws(LogError) {
        try file.write(encoded(), at: Int64(sequence % 2) * Self.slotStride)
        try file.sync()
    }
}
