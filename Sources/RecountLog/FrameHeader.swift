/// The fixed 40-byte header in front of every frame (one appended batch), little-endian.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `RCLG` |
/// | 4 | 1 | format version (1) |
/// | 5 | 1 | flags (bit 0: payload is LZ4-compressed) |
/// | 6 | 2 | reserved, zero |
/// | 8 | 8 | position of the first record |
/// | 16 | 4 | record count (≥ 1) |
/// | 20 | 4 | raw (uncompressed) payload length |
/// | 24 | 4 | stored payload length |
/// | 28 | 4 | header check: low 32 bits of XXH3-64 over bytes 0..<28 |
/// | 32 | 8 | frame checksum: XXH3-64 of the stored payload, seeded with XXH3-64 of bytes 0..<32 |
///
/// The header check lets recovery tell a damaged header from a torn payload before trusting
/// any length; the frame checksum covers header and payload before anything is decompressed.
package struct FrameHeader: Equatable, Sendable {
    package static let size = 40
    package static let magic: UInt32 = 0x474C_4352  // "RCLG" read little-endian
    package static let version: UInt8 = 1
    /// The largest raw payload one frame may carry (64 MiB).
    package static let maximumPayload = 64 << 20

    package var compressed: Bool
    package var firstPosition: UInt64
    package var recordCount: UInt32
    package var rawLength: UInt32
    package var storedLength: UInt32
    package var checksum: UInt64

    /// The whole frame's length on disk.
    package var frameLength: Int { Self.size + Int(storedLength) }
    /// The position after this frame's last record.
    package var endPosition: UInt64 { firstPosition + UInt64(recordCount) }

    /// Why a header was refused.
    package enum Defect: Error, Equatable, Sendable {
        /// The header check failed: the bytes are not a header written by this log.
        case damaged
        /// The header is intact but describes a frame this version cannot hold.
        case unsupported(String)
    }

    /// Decodes and checks a header from the first `size` bytes of `bytes`.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<FrameHeader, Defect> {
        guard bytes.count >= size else { return .failure(.damaged) }
        let check = UInt32(truncatingIfNeeded: Checksum.xxh3(UnsafeRawBufferPointer(rebasing: bytes[0..<28])))
        guard bytes.load(at: 0) as UInt32 == magic, bytes.load(at: 28) as UInt32 == check else {
            return .failure(.damaged)
        }
        let version: UInt8 = bytes.load(at: 4)
        let flags: UInt8 = bytes.load(at: 5)
        let header = FrameHeader(
            compressed: flags & 1 != 0, firstPosition: bytes.load(at: 8),
            recordCount: bytes.load(at: 16), rawLength: bytes.load(at: 20),
            storedLength: bytes.load(at: 24), checksum: bytes.load(at: 32))
        guard version == Self.version else { return .failure(.unsupported("format version \(version)")) }
        guard flags & ~1 == 0, bytes.load(at: 6) as UInt16 == 0 else {
            return .failure(.unsupported("flags \(flags)"))
        }
        guard header.recordCount >= 1, header.recordCount <= header.rawLength,
            Int(header.rawLength) <= maximumPayload,
            header.compressed
                ? Int(header.storedLength) < Int(header.rawLength)
                    && Int(header.storedLength) <= LZ4Block.compressBound(Int(header.rawLength))
                : header.storedLength == header.rawLength,
            header.firstPosition <= UInt64.max - UInt64(header.recordCount)
        else { return .failure(.unsupported("inconsistent lengths")) }
        return .success(header)
    }

    /// Writes the header, with its header check and the frame checksum over `payload`, into `bytes`.
    package mutating func encode(into bytes: UnsafeMutableRawBufferPointer, payload: UnsafeRawBufferPointer) {
        bytes.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
        bytes.storeBytes(of: Self.version, toByteOffset: 4, as: UInt8.self)
        bytes.storeBytes(of: compressed ? 1 : 0, toByteOffset: 5, as: UInt8.self)
        bytes.storeBytes(of: 0, toByteOffset: 6, as: UInt16.self)
        bytes.storeBytes(of: firstPosition.littleEndian, toByteOffset: 8, as: UInt64.self)
        bytes.storeBytes(of: recordCount.littleEndian, toByteOffset: 16, as: UInt32.self)
        bytes.storeBytes(of: rawLength.littleEndian, toByteOffset: 20, as: UInt32.self)
        bytes.storeBytes(of: storedLength.littleEndian, toByteOffset: 24, as: UInt32.self)
        let check = UInt32(truncatingIfNeeded: Checksum.xxh3(UnsafeRawBufferPointer(rebasing: bytes[0..<28])))
        bytes.storeBytes(of: check.littleEndian, toByteOffset: 28, as: UInt32.self)
        checksum = Self.checksum(header: UnsafeRawBufferPointer(bytes), payload: payload)
        bytes.storeBytes(of: checksum.littleEndian, toByteOffset: 32, as: UInt64.self)
    }

    /// The frame checksum for header bytes `0..<32` and the stored payload.
    package static func checksum(header: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) -> UInt64 {
        Checksum.xxh3(payload, seed: Checksum.xxh3(UnsafeRawBufferPointer(rebasing: header[0..<32])))
    }
}

extension UnsafeRawBufferPointer {
    /// Loads a little-endian integer at `offset` (no alignment needed).
    @inline(__always)
    func load<T: FixedWidthInteger>(at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
