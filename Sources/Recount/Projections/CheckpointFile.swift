import Foundation
package import RecountLog

/// The durable copy of the projections: `DIR/projections/checkpoint`, the whole state at one
/// log position, replaced atomically (temporary file, fsync, rename, fsync of the directory).
///
/// Layout: magic `RCPJ`, version (`UInt32`, 1), payload length (`UInt64`), XXH3-64 of the
/// payload, then the payload (`Projections.checkpoint()`, which starts with the log position it
/// covers and the tz data version). A checkpoint that is missing, damaged, from other zone data
/// or ahead of the log is ignored, and the projections are rebuilt from the log.
package struct CheckpointFile {
    package let path: String
    private let fileSystem = PosixFileSystem()
    private static let magic: UInt32 = 0x4A50_4352  // "RCPJ" read little-endian

    /// The checkpoint of the data directory `directory`.
    package init(dataDirectory directory: String) {
        path = directory + "/projections/checkpoint"
    }

    /// Loads the projections, or says why the checkpoint cannot be used.
    package func load() -> Result<Projections, Unusable> {
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(.missing) }
        let bytes = [UInt8](data)
        guard bytes.count >= 24,
            bytes.withUnsafeBytes({ $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self) }) == Self.magic,
            bytes.withUnsafeBytes({ $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }) == 1
        else { return .failure(.damaged) }
        let length = bytes.withUnsafeBytes {
            UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        let check = bytes.withUnsafeBytes {
            UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        }
        guard length == UInt64(bytes.count - 24),
            bytes.withUnsafeBytes({ Checksum.xxh3(UnsafeRawBufferPointer(rebasing: $0[24...])) }) == check
        else { return .failure(.damaged) }
        do {
            return .success(try Projections(checkpoint: Array(bytes[24...])))
        } catch {
            return .failure(.damaged)
        }
    }

    /// Why a checkpoint was not used.
    package enum Unusable: Error, Equatable {
        case missing
        case damaged
    }

    /// Writes `projections` as the checkpoint, atomically and durably.
    package func save(_ projections: Projections) throws(LogError) {
        let payload = projections.checkpoint()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24 + payload.count)
        withUnsafeBytes(of: Self.magic.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(1).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: payload.withUnsafeBytes { Checksum.xxh3($0) }.littleEndian) { bytes += $0 }
        bytes += payload
        try fileSystem.createDirectories(parentDirectory(of: path))
        try fileSystem.replace(path, with: bytes)
    }

    /// Removes the checkpoint (after the log was repaired, it may hold records the log lost).
    package func remove() throws(LogError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try fileSystem.remove(path)
        try fileSystem.syncDirectory(parentDirectory(of: path))
    }
}
