internal import CLZ4

/// LZ4 block compression, the only door to liblz4.
///
/// Decompression always goes through the bounds-checked `LZ4_decompress_safe`.
package enum LZ4Block {
    /// The largest input one block may hold.
    package static let maximumInputSize = Int(LZ4_MAX_INPUT_SIZE)

    /// The worst-case compressed size of `count` input bytes.
    package static func compressBound(_ count: Int) -> Int {
        Int(LZ4_compressBound(Int32(clamping: count)))
    }

    /// Compresses `source` into `destination`; returns the compressed length, or 0 when it does not fit.
    /// - Parameter acceleration: LZ4's trade of ratio for speed (1, the default, searches
    ///   hardest); any setting decompresses the same way.
    package static func compress(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, acceleration: Int32 = 1
    ) -> Int {
        guard source.count <= maximumInputSize, let src = source.baseAddress,
            let dst = destination.baseAddress
        else { return 0 }
        return Int(
            LZ4_compress_fast(
                src.assumingMemoryBound(to: CChar.self), dst.assumingMemoryBound(to: CChar.self),
                Int32(source.count), Int32(clamping: destination.count), acceleration))
    }

    /// Decompresses `source`, which must expand to exactly `destination.count` bytes.
    ///
    /// - Returns: `true` when the block was well formed and filled `destination` exactly.
    package static func decompress(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard source.count <= maximumInputSize, destination.count <= maximumInputSize,
            let src = source.baseAddress, let dst = destination.baseAddress
        else { return destination.isEmpty && source.isEmpty }
        let produced = LZ4_decompress_safe(
            src.assumingMemoryBound(to: CChar.self), dst.assumingMemoryBound(to: CChar.self),
            Int32(source.count), Int32(destination.count))
        return produced == Int32(destination.count)
    }
}
