internal import Glibc

/// The strings that records repeat (users, type names, a block's origins, devices, zones and
/// unit symbols), kept across the records of one replay so that each is decoded once rather
/// than once per record: a string whose bytes were seen is returned as it was made then, with
/// no validation, no allocation and, later, no deallocation. Other strings (anchors, ids) are
/// not offered, so they do not evict these.
///
/// A string is found by its bytes alone, so what a decode returns does not depend on the cache.
/// Each slot keeps a copy of its string's bytes beside it, so a lookup compares bytes without
/// touching (retaining, unwrapping) a held string it does not return.
package final class RepeatedStrings {
    /// The longest string held, in bytes; longer ones (rare among these) are made each time.
    static let longest = 56
    private static let slotCount = 512
    /// The bytes a slot takes in `keys`: the held string's length, then its bytes.
    private static let keyStride = 8 + longest

    /// Each slot's key: the length of its string's UTF-8 (0: empty slot), then those bytes.
    private let keys: UnsafeMutableRawPointer
    /// Strings by a hash of their bytes (one per slot: a newer string replaces an older one).
    /// Unchecked: the class is used from one thread, and the runtime's exclusivity check cost as
    /// much as the lookup.
    @exclusivity(unchecked) private var slots = [String?](repeating: nil, count: slotCount)

    package init() {
        keys = .allocate(byteCount: Self.slotCount * Self.keyStride, alignment: 8)
        keys.initializeMemory(as: UInt8.self, repeating: 0, count: Self.slotCount * Self.keyStride)
    }

    deinit { keys.deallocate() }

    /// The string of the UTF-8 `bytes`, when it is held.
    func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard !bytes.isEmpty, bytes.count <= Self.longest else { return nil }
        let slot = Self.slot(of: bytes)
        let key = keys + slot * Self.keyStride
        guard key.load(as: Int.self) == bytes.count, memcmp(key + 8, bytes.baseAddress!, bytes.count) == 0 else {
            return nil
        }
        return slots[slot]
    }

    /// Holds `string`, whose UTF-8 bytes are `bytes` (not when they are longer than `longest`).
    func hold(_ string: String, bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count <= Self.longest else { return }
        let slot = Self.slot(of: bytes)
        let key = keys + slot * Self.keyStride
        key.storeBytes(of: bytes.count, as: Int.self)
        (key + 8).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        slots[slot] = string
    }

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
        return Int(truncatingIfNeeded: FlatHash.mix(first ^ UInt64(bytes.count), last)) & (slotCount - 1)
    }
}
