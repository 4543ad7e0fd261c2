internal import Glibc

/// The strings that records repeat (users, type names, a block's origins, devices, zones and
/// unit symbols), kept across the records of one replay so that each is decoded once rather
/// than once per record: a string whose bytes were seen is returned as it was made then, with
/// no validation, no allocation and, later, no deallocation. Other strings (anchors, ids) are
/// not offered, so they do not evict these.
///
/// A string is found by its bytes alone, so what a decode returns does not depend on the cache.
package final class RepeatedStrings {
    /// Strings by a hash of their bytes (one per slot: a newer string replaces an older one).
    private var slots = [String?](repeating: nil, count: 512)

    package init() {}

    /// The string of the UTF-8 `bytes`, when it is held.
    func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard !bytes.isEmpty, var held = slots[Self.slot(of: bytes)], held.utf8.count == bytes.count else {
            return nil
        }
        return held.withUTF8 { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 } ? held : nil
    }

    /// Holds `string`, whose UTF-8 bytes are `bytes`.
    func hold(_ string: String, bytes: UnsafeRawBufferPointer) { slots[Self.slot(of: bytes)] = string }

    /// The slot of `bytes`: their length and first and last eight bytes, mixed.
    private static func slot(of bytes: UnsafeRawBufferPointer) -> Int {
        var first: UInt64 = 0
        var last: UInt64 = 0
        if bytes.count >= 8 {
            first = bytes.loadUnaligned(as: UInt64.self)
            last = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            for byte in bytes { first = first << 8 | UInt64(byte) }
        }
        return Int(truncatingIfNeeded: FlatHash.mix(first ^ UInt64(bytes.count), last)) & 511
    }
}
