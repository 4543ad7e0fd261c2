import Recount
import Testing

/// FIPS 180-4 / NIST example vectors and incremental-update behaviour of `SHA256`.
@Suite struct SHA256Tests {
    /// NIST CSRC "SHA-256" examples and the FIPS 180-2 appendix messages.
    static let vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test func nistVectors() {
        for (message, digest) in Self.vectors {
            #expect(SHA256.hex(message) == digest, "message \(message.utf8.count) bytes")
            #expect(SHA256.hex(Array(message.utf8)) == digest)
            #expect(SHA256.hash(message).count == SHA256.byteCount)
        }
    }

    @Test func oneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.hex(message)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func oneMillionAInOddChunks() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
        var remaining = 1_000_000
        while remaining > 0 {
            let take = min(remaining, chunk.count)
            chunk[0..<take].withUnsafeBytes { hasher.update($0) }
            remaining -= take
        }
        #expect(
            SHA256.hexEncoded(hasher.finalize())
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [1, 3, 7, 55, 56, 63, 64, 65, 127, 129])
    func incrementalEqualsOneShot(chunkSize: Int) {
        // Lengths around the padding boundaries (55/56/64 bytes) matter most.
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 300] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var hasher = SHA256()
            var start = 0
            while start < message.count {
                let end = min(start + chunkSize, message.count)
                hasher.update(message[start..<end])
                start = end
            }
            #expect(hasher.finalize() == SHA256.hash(message), "length \(length)")
        }
    }

    @Test func nonContiguousSequenceAndStringUpdate() {
        var hasher = SHA256()
        hasher.update("ab")
        hasher.update(AnySequence([UInt8(ascii: "c")]))
        #expect(SHA256.hexEncoded(hasher.finalize()) == Self.vectors[1].digest)
    }

    @Test func finalizeResetsToEmptyMessage() {
        var hasher = SHA256()
        hasher.update("abc")
        _ = hasher.finalize()
        #expect(SHA256.hexEncoded(hasher.finalize()) == Self.vectors[0].digest)
    }
}

extension SHA256Tests {
    /// The hasher is a value: a copy taken mid-message and updated on its own leaves the
    /// original's state alone (the libcrypto context is copied on write).
    @Test func copiesAreIndependent() {
        var original = SHA256()
        original.update("ab")
        var copy = original
        copy.update("c")
        original.update("d")
        #expect(SHA256.hexEncoded(copy.finalize()) == Self.vectors[1].digest)
        #expect(original.finalize() == SHA256.hash("abd"))
        #expect(SHA256.hexEncoded(copy.finalize()) == Self.vectors[0].digest)
    }

    /// `digest(appending:into:)` gives the digest of the message so far and more, again and
    /// again, and leaves the message (and a copy sharing its context) as it was.
    @Test(arguments: [0, 1, 55, 63, 64, 65, 128, 300])
    func digestAppendingLeavesTheMessage(split: Int) {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        hasher.update(message[..<split])
        var copy = hasher
        for _ in 0..<2 {
            var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
            message[split...].withUnsafeBytes { rest in
                digest.withUnsafeMutableBytes { hasher.digest(appending: rest, into: $0.baseAddress!) }
            }
            #expect(digest == SHA256.hash(message))
        }
        #expect(hasher.finalize() == SHA256.hash(message[..<split]))
        #expect(copy.finalize() == SHA256.hash(message[..<split]))
    }
}
