internal import CXXHash

/// XXH3-64 from libxxhash, the checksum of every frame, and the only door to that library.
package enum Checksum {
    /// The XXH3-64 hash of `bytes` with `seed`.
    @inlinable
    package static func xxh3(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, seed)
    }

    /// XXH3-64 of bytes that come in parts: `digest` is `xxh3` of the parts joined, so a file
    /// written as it is made is checksummed without holding it whole.
    package final class Streaming {
        private let state: OpaquePointer

        package init() {
            guard let state = XXH3_createState() else { fatalError("out of memory for an XXH3 state") }
            XXH3_64bits_reset(state)
            self.state = state
        }

        deinit { XXH3_freeState(state) }

        /// Adds the next part.
        package func update(_ bytes: UnsafeRawBufferPointer) {
            XXH3_64bits_update(state, bytes.baseAddress, bytes.count)
        }

        /// The hash of every part so far.
        package var digest: UInt64 { XXH3_64bits_digest(state) }
    }
}
