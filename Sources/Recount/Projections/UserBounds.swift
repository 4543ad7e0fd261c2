import RecountLog

/// The users a checkpoint was written for: those from `lower` (included) up to `upper`
/// (excluded; `nil`: every user after `lower`), in `String` order, as a range of an engine
/// that split its projections holds them.
package struct UserBounds: Equatable, Sendable {
    package var lower: String
    package var upper: String?

    package init(from lower: String, to upper: String?) { (self.lower, self.upper) = (lower, upper) }

    /// Every user: an engine's projections before they split.
    package static let everyone = UserBounds(from: "", to: nil)

    /// Whether `user` is one of them.
    package func contains(_ user: String) -> Bool { user >= lower && upper.map { user < $0 } ?? true }

    /// The XXH3-64 of the bounds, which a checkpoint's header keeps.
    var fingerprint: UInt64 {
        var out = CanonicalBytes()
        out.append(lower)
        out.append(upper) { $0.append($1) }
        return out.bytes.withUnsafeBytes { Checksum.xxh3($0) }
    }
}
