/// An instant as a client wrote it: epoch milliseconds and the UTC offset it was written with.
///
/// The offset is kept so the envelope can be written back as it came, and because a sample's
/// own offset decides its civil day.
package struct Instant: Equatable, Hashable, Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    package var millis: Int64
    /// The offset from UTC the time was written with, in seconds.
    package var offsetSeconds: Int32

    package init(millis: Int64, offsetSeconds: Int32) {
        self.millis = millis
        self.offsetSeconds = offsetSeconds
    }

    /// Parses an RFC 3339 date-time with an explicit offset.
    package init?(rfc3339 text: String) {
        guard let parsed = RFC3339.parse(text) else { return nil }
        self.init(millis: parsed.millis, offsetSeconds: parsed.offsetSeconds)
    }

    /// The RFC 3339 text of this instant, in its own offset.
    package var rfc3339: String { RFC3339.format(millis: millis, offsetSeconds: offsetSeconds) }
}
