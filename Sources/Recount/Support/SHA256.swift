internal import CCrypto

/// SHA-256 (FIPS 180-4) from OpenSSL's libcrypto, incremental; the only door to that library.
///
/// A hasher is a value: its state is libcrypto's plain `SHA256_CTX` struct, so copying a hasher
/// copies the state and updating the copy leaves the original as it was. (The `EVP_MD_CTX`
/// interface allocates, copies and scrubs a context for every copy, which cost more than
/// hashing a record id; the plain functions run the same compression code.)
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

    private var context = SHA256_CTX()

    /// Creates a hasher for an empty message.
    package init() {
        SHA256_Init(&context)
    }

    /// Appends raw bytes to the message.
    ///
    /// - Parameter bytes: the bytes to hash; may be empty.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        SHA256_Update(&context, base, bytes.count)
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
    /// Contiguous collections (`[UInt8]`, buffer slices) are hashed in place; other sequences
    /// through a small buffer.
    ///
    /// - Parameter bytes: the bytes to hash.
    package mutating func update<S: Sequence<UInt8>>(_ bytes: S) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done != nil { return }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(256)
        for byte in bytes {
            chunk.append(byte)
            if chunk.count == 256 {
                chunk.withUnsafeBytes { update($0) }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        chunk.withUnsafeBytes { update($0) }
    }

    /// Returns the message's digest and resets the hasher to the empty message.
    ///
    /// - Returns: the 32-byte digest.
    package mutating func finalize() -> [UInt8] {
        let digest = [UInt8](unsafeUninitializedCapacity: Self.byteCount) { output, count in
            SHA256_Final(output.baseAddress, &context)
            count = Self.byteCount
        }
        SHA256_Init(&context)
        return digest
    }

    /// Writes the digest of the message so far followed by `bytes` to `digest`, leaving the
    /// message as it was: messages that start alike are hashed from a hasher that absorbed their
    /// common start once (a copy of its state finishes each), which saves a compression per
    /// 64-byte block of that start.
    ///
    /// - Parameters:
    ///   - bytes: the rest of the message; may be empty.
    ///   - digest: room for `byteCount` bytes.
    package func digest(appending bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer) {
        var finishing = self
        finishing.update(bytes)
        SHA256_Final(digest.assumingMemoryBound(to: UInt8.self), &finishing.context)
    }

    /// The digest of a whole message.
    ///
    /// - Parameter bytes: the message.
    /// - Returns: the 32-byte digest.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(raw: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of the UTF-8 encoding of a string.
    ///
    /// - Parameter string: the message.
    /// - Returns: the 32-byte digest.
    package static func hash(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { hash(raw: UnsafeRawBufferPointer($0)) }
    }

    /// The digest of bytes in memory.
    private static func hash(raw bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, count in
            hash(bytes, into: UnsafeMutableRawPointer(output.baseAddress!))
            count = byteCount
        }
    }

    /// Writes the digest of bytes in memory to `digest`, without allocating.
    ///
    /// - Parameters:
    ///   - bytes: the message.
    ///   - digest: room for `byteCount` bytes.
    package static func hash(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer) {
        SHA256().digest(appending: bytes, into: digest)
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
}
