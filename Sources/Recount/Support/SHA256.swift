internal import CCrypto

/// SHA-256 (FIPS 180-4) from OpenSSL's libcrypto, incremental; the only door to that library.
///
/// A hasher is a value: copying one and updating the copy leaves the original as it was (the
/// OpenSSL context is copied on the first write to a shared one).
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

    private var context = Context()

    /// Creates a hasher for an empty message.
    package init() {}

    /// Appends raw bytes to the message.
    ///
    /// - Parameter bytes: the bytes to hash; may be empty.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        Context.check(EVP_DigestUpdate(context.pointer, base, bytes.count))
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
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        let digest = [UInt8](unsafeUninitializedCapacity: Self.byteCount) { output, count in
            var written: UInt32 = 0
            Context.check(EVP_DigestFinal_ex(context.pointer, output.baseAddress, &written))
            count = Int(written)
        }
        Context.check(EVP_DigestInit_ex(context.pointer, Algorithm.sha256.pointer, nil))
        return digest
    }

    /// Writes the digest of the message so far followed by `bytes` to `digest`, leaving the
    /// message as it was: messages that start alike are hashed from a hasher that absorbed their
    /// common start once (a copy of its context finishes each), which saves a compression per
    /// 64-byte block of that start and the set-up of a context per message.
    ///
    /// - Parameters:
    ///   - bytes: the rest of the message; may be empty.
    ///   - digest: room for `byteCount` bytes.
    package mutating func digest(appending bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer) {
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        let scratch = context.scratch()
        Context.check(EVP_MD_CTX_copy_ex(scratch, context.pointer))
        if let base = bytes.baseAddress, !bytes.isEmpty { Context.check(EVP_DigestUpdate(scratch, base, bytes.count)) }
        var written: UInt32 = 0
        Context.check(EVP_DigestFinal_ex(scratch, digest.assumingMemoryBound(to: UInt8.self), &written))
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

    /// The digest of bytes in memory, in one call (no context to allocate and set up).
    private static func hash(raw bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, count in
            hash(bytes, into: UnsafeMutableRawPointer(output.baseAddress!))
            count = byteCount
        }
    }

    /// Writes the digest of bytes in memory to `digest`, in one call and without allocating.
    ///
    /// - Parameters:
    ///   - bytes: the message.
    ///   - digest: room for `byteCount` bytes.
    package static func hash(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer) {
        // An empty buffer may have no address; libcrypto reads none of it either way.
        withUnsafeBytes(of: UInt8(0)) { empty in
            var written: UInt32 = 0
            Context.check(
                EVP_Digest(
                    bytes.baseAddress ?? empty.baseAddress, bytes.count, digest.assumingMemoryBound(to: UInt8.self),
                    &written, Algorithm.sha256.pointer, nil))
        }
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

    /// SHA-256's implementation, fetched from libcrypto once: an init with `EVP_sha256()`
    /// fetches it again each time, which cost more than hashing a short message.
    private final class Algorithm: @unchecked Sendable {
        static let sha256 = Algorithm()
        /// Immutable once fetched, and never freed (it lives as long as the process).
        let pointer: OpaquePointer

        private init() {
            guard let pointer = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("SHA256: libcrypto has no SHA-256") }
            self.pointer = pointer
        }
    }

    /// An OpenSSL digest context set up for SHA-256, and the context `digest(appending:into:)`
    /// finishes copies of it in, both freed with their owner.
    ///
    /// Mutated only while uniquely referenced (see `update`), so sharing it is safe.
    private final class Context: @unchecked Sendable {
        let pointer: OpaquePointer
        /// Made on first use, then reused for every copy.
        private var scratchPointer: OpaquePointer?

        init() {
            pointer = Self.newContext()
            Self.check(EVP_DigestInit_ex(pointer, Algorithm.sha256.pointer, nil))
        }

        init(copying other: Context) {
            pointer = Self.newContext()
            Self.check(EVP_MD_CTX_copy_ex(pointer, other.pointer))
        }

        deinit {
            EVP_MD_CTX_free(pointer)
            EVP_MD_CTX_free(scratchPointer)
        }

        /// The scratch context, made the first time.
        func scratch() -> OpaquePointer {
            if let scratchPointer { return scratchPointer }
            let made = Self.newContext()
            scratchPointer = made
            return made
        }

        private static func newContext() -> OpaquePointer {
            guard let pointer = EVP_MD_CTX_new() else { fatalError("SHA256: out of memory") }
            return pointer
        }

        /// Traps when libcrypto reports a failure, which SHA-256 over memory has no cause for
        /// but a failed allocation.
        static func check(_ result: Int32) {
            guard result == 1 else { fatalError("SHA256: libcrypto failed") }
        }
    }
}
