import Testing

@testable import Recount

/// A replay's user filter reads each record's user as bytes; it must still answer as comparing
/// strings does, and let a record it cannot read through to the decoder.
@Suite struct UserFilterTests {
    /// The record of a check-in envelope of `user`.
    static func record(of user: String) -> [UInt8] {
        let envelope = Envelope(
            user: user, receivedAt: Instant(millis: 0, offsetSeconds: 0),
            body: .checkin(
                provider: "fitbit", metrics: [MetricName("steps")!], at: Instant(millis: 0, offsetSeconds: 0)))
        var record: [UInt8] = []
        _ = EnvelopeCodec.encode(envelope, into: &record)
        return record
    }

    static func concerns(_ filter: UserFilter, _ record: [UInt8]) -> Bool {
        record.withUnsafeBytes { filter.concerns($0) }
    }

    @Test func itMatchesUsersAsStringsDo() {
        let filter = UserFilter(["alice", "Emile", "zo\u{E9}"])
        #expect(Self.concerns(filter, Self.record(of: "alice")))
        #expect(Self.concerns(filter, Self.record(of: "Emile")))
        #expect(!Self.concerns(filter, Self.record(of: "emile")), "user names are case-sensitive")
        #expect(!Self.concerns(filter, Self.record(of: "alic")))
        #expect(Self.concerns(filter, Self.record(of: "*")), "the config defaults bear on every user")
        // Canonically equivalent spellings are one user, as strings compare.
        #expect(Self.concerns(filter, Self.record(of: "zoe\u{301}")))
        #expect(Self.concerns(UserFilter(["\u{212A}"]), Self.record(of: "K")), "the Kelvin sign is K")
        #expect(!Self.concerns(UserFilter([]), Self.record(of: "alice")))
        // `holds` is the users' own envelopes, byte for byte as the projections intern users:
        // neither the defaults nor another spelling.
        #expect(Self.record(of: "zo\u{E9}").withUnsafeBytes { filter.holds($0) })
        #expect(!Self.record(of: "zoe\u{301}").withUnsafeBytes { filter.holds($0) })
        #expect(!Self.record(of: "*").withUnsafeBytes { filter.holds($0) })
        #expect(!Self.record(of: "alic").withUnsafeBytes { filter.holds($0) })
    }

    /// A record whose user is not UTF-8, or that ends inside its user, is let through, so that
    /// decoding it reports the damage.
    @Test func aDamagedRecordIsLetThrough() {
        let filter = UserFilter(["alice"])
        var record = Self.record(of: "bobby")
        let user = record.firstRange(of: Array("bobby".utf8))!
        record[user.lowerBound] = 0xFF
        #expect(Self.concerns(filter, record))
        let cut = Array(Self.record(of: "bobby").prefix(user.lowerBound + 2))
        #expect(Self.concerns(filter, cut))
        #expect(!Self.concerns(filter, Self.record(of: "bobby")))
    }
}
