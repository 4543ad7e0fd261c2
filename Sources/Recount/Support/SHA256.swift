/// SHA-256 (FIPS 180-4), incremental and allocation-light.
///
/// The hasher keeps its state and one 64-byte block inline: `update` never allocates, and full
/// blocks are compressed straight from the caller's memory without copying. Only `finalize()`
/// allocates, for the 32-byte result.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update("ab")
/// hasher.update("c")
/// let digest = hasher.finalize()          // 32 bytes
/// SHA256.hex("abc")                       // "ba7816bf…15ad"
/// ```
package struct SHA256: Sendable {
    /// The size of a digest in bytes.
    package static let byteCount = 32

    /// The size of a message block in bytes.
    private static let blockSize = 64

    // Hash state H0…H7.
    private var h0: UInt32 = 0x6a09_e667
    private var h1: UInt32 = 0xbb67_ae85
    private var h2: UInt32 = 0x3c6e_f372
    private var h3: UInt32 = 0xa54f_f53a
    private var h4: UInt32 = 0x510e_527f
    private var h5: UInt32 = 0x9b05_688c
    private var h6: UInt32 = 0x1f83_d9ab
    private var h7: UInt32 = 0x5be0_cd19

    /// Bytes of a not yet complete block (only the first `pendingCount` are meaningful).
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
    /// How many bytes of `pending` are filled (0..<64).
    private var pendingCount = 0
    /// Total message length in bytes so far.
    private var messageLength: UInt64 = 0

    /// Creates a hasher for an empty message.
    package init() {}

    /// Appends raw bytes to the message.
    ///
    /// - Parameter bytes: the bytes to hash; may be empty.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let count = bytes.count
        messageLength &+= UInt64(count)
        var offset = 0
        if pendingCount > 0 {
            let take = min(Self.blockSize - pendingCount, count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.advanced(by: start).copyMemory(from: base, byteCount: take)
            }
            pendingCount += take
            offset = take
            guard pendingCount == Self.blockSize else { return }
            compressPending()
        }
        while count - offset >= Self.blockSize {
            compress(base.advanced(by: offset))
            offset += Self.blockSize
        }
        if offset < count {
            let rest = count - offset
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.copyMemory(from: base.advanced(by: offset), byteCount: rest)
            }
            pendingCount = rest
        }
    }

    /// Appends the UTF-8 encoding of a string to the message.
    ///
    /// - Parameter string: the text to hash, as UTF-8 without terminator.
    package mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a sequence of bytes to the message.
    ///
    /// Contiguous collections (`[UInt8]`, `Data`, buffer slices) are hashed in place; other
    /// sequences byte by byte.
    ///
    /// - Parameter bytes: the bytes to hash.
    package mutating func update<S: Sequence<UInt8>>(_ bytes: S) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done != nil { return }
        for byte in bytes {
            append(byte)
        }
    }

    /// Pads the message, returns its digest and resets the hasher to the empty message.
    ///
    /// - Returns: the 32-byte digest.
    package mutating func finalize() -> [UInt8] {
        let bitLength = messageLength &* 8
        let used = pendingCount
        withUnsafeMutableBytes(of: &pending) { block in
            block[used] = 0x80
            for index in (used + 1)..<Self.blockSize { block[index] = 0 }
        }
        if used + 1 > Self.blockSize - 8 {
            compressPending()
            withUnsafeMutableBytes(of: &pending) { block in
                for index in 0..<Self.blockSize { block[index] = 0 }
            }
        }
        withUnsafeMutableBytes(of: &pending) { block in
            block.storeBytes(
                of: bitLength.bigEndian, toByteOffset: Self.blockSize - 8, as: UInt64.self)
        }
        compressPending()
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        digest.withUnsafeMutableBytes { output in
            for (index, word) in [h0, h1, h2, h3, h4, h5, h6, h7].enumerated() {
                output.storeBytes(of: word.bigEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        }
        self = SHA256()
        return digest
    }

    /// The digest of a whole message.
    ///
    /// - Parameter bytes: the message.
    /// - Returns: the 32-byte digest.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of the UTF-8 encoding of a string.
    ///
    /// - Parameter string: the message.
    /// - Returns: the 32-byte digest.
    package static func hash(_ string: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(string)
        return hasher.finalize()
    }

    /// The digest of a whole message as 64 lowercase hex digits.
    ///
    /// - Parameter bytes: the message (not a digest: this hashes, then encodes).
    /// - Returns: the hex digest.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        hexEncoded(hash(bytes))
    }

    /// The digest of the UTF-8 encoding of a string as 64 lowercase hex digits.
    ///
    /// - Parameter string: the message.
    /// - Returns: the hex digest.
    package static func hex(_ string: String) -> String {
        hexEncoded(hash(string))
    }

    /// Lowercase hex encoding of bytes, two digits per byte (no hashing).
    ///
    /// - Parameter bytes: the bytes to encode, typically a digest from `finalize()`.
    /// - Returns: the hex string.
    package static func hexEncoded(_ bytes: some Collection<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            digits.withUTF8Buffer { table in
                var index = 0
                for byte in bytes {
                    output[index] = table[Int(byte >> 4)]
                    output[index + 1] = table[Int(byte & 0x0f)]
                    index += 2
                }
            }
            return bytes.count * 2
        }
    }

    /// Appends one byte, compressing when the block fills.
    private mutating func append(_ byte: UInt8) {
        let index = pendingCount
        withUnsafeMutableBytes(of: &pending) { $0[index] = byte }
        pendingCount += 1
        messageLength &+= 1
        if pendingCount == Self.blockSize {
            compressPending()
        }
    }

    /// Compresses the full pending block and empties it.
    private mutating func compressPending() {
        let block = pending
        withUnsafeBytes(of: block) { compress($0.baseAddress!) }
        pendingCount = 0
    }

    /// The SHA-256 compression function over one 64-byte block.
    ///
    /// - Parameter block: 64 readable bytes, any alignment.
    private mutating func compress(_ block: UnsafeRawPointer) {
        // The message schedule W0…W63 lives in a local tuple: no heap, no temporary allocation.
        var schedule: Schedule = (
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
        var a = h0
        var b = h1
        var c = h2
        var d = h3
        var e = h4
        var f = h5
        var g = h6
        var h = h7
        withUnsafeMutableBytes(of: &schedule) { raw in
            let w = raw.bindMemory(to: UInt32.self)
            for t in 0..<16 {
                w[t] = UInt32(
                    bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let x = w[t &- 15]
                let y = w[t &- 2]
                let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
                let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
                w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
            }
            Self.roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let s1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[t] &+ w[t]
                    let s0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ s0 &+ majority
                }
            }
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
        h5 &+= f
        h6 &+= g
        h7 &+= h
    }

    /// 64 32-bit words of message schedule, as 32 `UInt64`s.
    private typealias Schedule = (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    )

    /// The 64 round constants K (FIPS 180-4 §4.2.2).
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
        0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
        0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
        0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
        0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
        0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
        0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
        0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
        0xc671_78f2,
    ]
}
