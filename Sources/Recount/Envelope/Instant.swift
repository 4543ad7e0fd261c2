/// An instant as a client wrote it: epoch milliseconds and the UTC offset it was written with.
///
/// The offset is kept so the envelope can be written back as it came, and because a sample's
/// own offset decides its civil day. RFC 3339's `-00:00` (the UTC instant is known, the local
/// offset is not) is offset 0 with `offsetIsUnknown` set: it counts as UTC for civil days and is
/// written back as `-00:00`, so it is a different `Instant` from `Z`.
package struct Instant: Equatable, Hashable, Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    package var millis: Int64
    /// The offset from UTC the time was written with, in seconds.
    package var offsetSeconds: Int32
    /// Whether the time was written with `-00:00` (then `offsetSeconds` is 0).
    package var offsetIsUnknown: Bool

    /// - Parameters:
    ///   - millis: milliseconds since the epoch.
    ///   - offsetSeconds: the written offset, seconds east of UTC.
    ///   - offsetIsUnknown: the time was written `-00:00`; only meaningful with offset 0.
    package init(millis: Int64, offsetSeconds: Int32, offsetIsUnknown: Bool = false) {
        self.millis = millis
        self.offsetSeconds = offsetSeconds
        self.offsetIsUnknown = offsetIsUnknown && offsetSeconds == 0
    }

    /// Parses an RFC 3339 date-time with an explicit offset.
    package init?(rfc3339 text: String) {
        guard let parsed = RFC3339.parse(text) else { return nil }
        self.init(millis: parsed.millis, offsetSeconds: parsed.offsetSeconds, offsetIsUnknown: parsed.offsetIsUnknown)
    }

    /// The RFC 3339 text of this instant, in its own offset (`-00:00` when that is unknown).
    package var rfc3339: String {
        RFC3339.format(millis: millis, offsetSeconds: offsetSeconds, offsetIsUnknown: offsetIsUnknown)
    }
}
