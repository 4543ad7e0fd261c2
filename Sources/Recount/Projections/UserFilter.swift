import RecountLog

/// The users a replay folds (or `log dump --user` prints), matched against each record's user
/// as bytes: a skipped record costs a hash of its user's bytes and no string. (Building a
/// `String` and looking it up in a `Set` was about half of a one-user replay's scan of a large
/// log.)
package struct UserFilter: Sendable {
    /// A user's XXH3, as a table key.
    private struct Hashed: FlatKey {
        var hash: UInt64
        var flatHash: UInt64 { hash }
    }

    private var table = FlatTable<Hashed>()
    /// The UTF-8 of the users of each hash, by its number in `table`.
    private var names: [[[UInt8]]] = []
    /// The users as strings, for a user that is not ASCII (compared as strings compare).
    private let strings: Set<String>
    /// Whether every user is ASCII: only then is comparing bytes comparing strings.
    private let isASCII: Bool

    package init(_ users: Set<String>) {
        strings = users
        isASCII = users.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
        for user in users {
            let utf8 = Array(user.utf8)
            let (number, inserted) = table.insert(Hashed(hash: utf8.withUnsafeBytes { Checksum.xxh3($0) }))
            if inserted { names.append([]) }
            names[number].append(utf8)
        }
    }

    /// Whether a record bears on the projections of any of the users: one of their envelopes,
    /// or a `*` config default. Other users' records are told apart without being decoded; a
    /// record too damaged to tell counts, so decoding it reports the damage.
    package func concerns(_ record: UnsafeRawBufferPointer) -> Bool {
        guard let user = EnvelopeCodec.userBytes(ofRecord: record) else { return true }
        return (user.count == 1 && user[0] == UInt8(ascii: "*")) || (contains(user) ?? true)
    }

    /// Whether a record is an envelope of one of the users themselves, byte for byte as the
    /// projections tell users apart (a `*` default is not one, nor a canonically equivalent
    /// spelling): what `recount log dump --user` prints. A record too damaged to tell counts.
    package func holds(_ record: UnsafeRawBufferPointer) -> Bool {
        guard let user = EnvelopeCodec.userBytes(ofRecord: record) else { return true }
        return isOne(user)
    }

    /// Whether `user` (an envelope's user as its UTF-8 bytes) is one of the users; `nil` when
    /// the bytes are not UTF-8 (a damaged record).
    func contains(_ user: UnsafeRawBufferPointer) -> Bool? {
        guard isASCII, RecordReader.isASCII(user) else {
            return String(validating: user, as: UTF8.self).map(strings.contains)
        }
        return isOne(user)
    }

    /// Whether `user` is the UTF-8 of one of the users, byte for byte.
    private func isOne(_ user: UnsafeRawBufferPointer) -> Bool {
        guard let number = table.number(of: Hashed(hash: Checksum.xxh3(user))) else { return false }
        return names[number].contains { $0.elementsEqual(user) }
    }
}
