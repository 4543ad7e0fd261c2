internal import CXXHash

/// XXH3-64 from libxxhash, the checksum of every frame, and the only door to that library.
package enum Checksum {
    /// The XXH3-64 hash of `bytes` with `seed`.
    @inlinable
    package static func xxh3(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, seed)
    }
}
