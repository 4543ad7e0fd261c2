import Foundation
package import RecountLog

/// The durable copy of the projections: `DIR/projections/checkpoint`, the whole state at one
/// log position, replaced atomically (temporary file, fsync, rename, fsync of the directory).
///
/// Layout: magic `RCPJ`, version (`UInt32`, 2), payload length (`UInt64`), stored length
/// (`UInt64`), XXH3-64 of the stored bytes, then the payload (`Projections.checkpoint()`, which
/// starts with the log position it covers and the tz data version) as one LZ4 block (about a
/// quarter of its size: ids, names and times repeat). A checkpoint that is missing, damaged, from other zone data
/// or ahead of the log is ignored, and the projections are rebuilt from the log.
package struct CheckpointFile {
    package let path: String
    private let fileSystem = PosixFileSystem()
    private static let magic: UInt32 = 0x4A50_4352  // "RCPJ" read little-endian
    private static let headerSize = 32

    /// The checkpoint of the data directory `directory`.
    package init(dataDirectory directory: String) {
        path = directory + "/projections/checkpoint"
    }

    /// Loads the projections, or says why the checkpoint cannot be used.
    package func load() -> Result<Projections, Unusable> {
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(.missing) }
        let bytes = [UInt8](data)
        func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        }
        guard bytes.count >= Self.headerSize, field(0, UInt32.self) == Self.magic, field(4, UInt32.self) == 2 else {
            return .failure(.damaged)
        }
        let rawLength = field(8, UInt64.self)
        guard field(16, UInt64.self) == UInt64(bytes.count - Self.headerSize),
            rawLength <= UInt64(LZ4Block.maximumInputSize),
            bytes.withUnsafeBytes({ Checksum.xxh3(UnsafeRawBufferPointer(rebasing: $0[Self.headerSize...])) })
                == field(24, UInt64.self)
        else { return .failure(.damaged) }
        var payload = [UInt8](repeating: 0, count: Int(rawLength))
        let whole = bytes.withUnsafeBytes { stored in
            payload.withUnsafeMutableBytes {
                LZ4Block.decompress(UnsafeRawBufferPointer(rebasing: stored[Self.headerSize...]), into: $0)
            }
        }
        guard whole, let projections = try? Projections(checkpoint: payload) else { return .failure(.damaged) }
        return .success(projections)
    }

    /// Why a checkpoint was not used.
    package enum Unusable: Error, Equatable {
        case missing
        case damaged
    }

    /// Writes `projections` as the checkpoint, atomically and durably.
    /// - Throws: `.tooLarge` when the state is past what one LZ4 block holds (2 GB).
    package func save(_ projections: Projections) throws(LogError) {
        let payload = projections.checkpoint()
        guard payload.count <= LZ4Block.maximumInputSize else {
            throw LogError(.tooLarge, "the projections' checkpoint holds \(payload.count) bytes", path: path)
        }
        var bytes = [UInt8](repeating: 0, count: Self.headerSize + LZ4Block.compressBound(payload.count))
        let stored = bytes.withUnsafeMutableBytes { out in
            payload.withUnsafeBytes {
                LZ4Block.compress($0, into: UnsafeMutableRawBufferPointer(rebasing: out[Self.headerSize...]))
            }
        }
        guard stored > 0 else { throw LogError(.io, "the projections' checkpoint did not compress", path: path) }
        bytes.removeSubrange((Self.headerSize + stored)...)
        let check = bytes.withUnsafeBytes { Checksum.xxh3(UnsafeRawBufferPointer(rebasing: $0[Self.headerSize...])) }
        bytes.withUnsafeMutableBytes { header in
            header.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
            header.storeBytes(of: UInt32(2).littleEndian, toByteOffset: 4, as: UInt32.self)
            header.storeBytes(of: UInt64(payload.count).littleEndian, toByteOffset: 8, as: UInt64.self)
            header.storeBytes(of: UInt64(stored).littleEndian, toByteOffset: 16, as: UInt64.self)
            header.storeBytes(of: check.littleEndian, toByteOffset: 24, as: UInt64.self)
        }
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
