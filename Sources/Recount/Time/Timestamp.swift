/// Constants and integer helpers for times, which Recount keeps as `Int64` epoch milliseconds.
///
/// An instant is milliseconds since 1970-01-01T00:00:00Z, leap seconds ignored (POSIX time). A
/// *local* time is an instant plus a UTC offset, in the same unit; its civil day is
/// `CivilDay.of(localMillis:)`. Offsets are `Int32` seconds east of UTC (`-07:00` is `-25_200`).
package enum Timestamp {
    /// Milliseconds in a second.
    package static let millisPerSecond: Int64 = 1000
    /// Milliseconds in a minute.
    package static let millisPerMinute: Int64 = 60_000
    /// Milliseconds in an hour.
    package static let millisPerHour: Int64 = 3_600_000
    /// Milliseconds in a civil day of local time (always 24 h: local time has no DST).
    package static let millisPerDay: Int64 = 86_400_000

    /// The local time of an instant: `millis + offsetSeconds * 1000`.
    ///
    /// Wraps instead of trapping for instants within an offset of `Int64`'s limits, which no parsed
    /// time comes near (years 0000–9999 are about ±2.5 × 10^14 ms).
    /// - Parameters:
    ///   - millis: the instant.
    ///   - offsetSeconds: the UTC offset in force, seconds east of UTC.
    @inline(__always)
    package static func local(_ millis: Int64, offsetSeconds: Int32) -> Int64 {
        millis &+ Int64(offsetSeconds) &* millisPerSecond
    }

    /// Division rounding toward negative infinity (`-1 / 1000 == -1`).
    /// - Parameters:
    ///   - a: the dividend.
    ///   - b: a positive divisor.
    @inline(__always)
    package static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b < 0) ? q - 1 : q
    }

    /// The remainder matching `floorDivide`: always in `0..<b` for positive `b`.
    /// - Parameters:
    ///   - a: the dividend.
    ///   - b: a positive divisor.
    @inline(__always)
    package static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        let r = a % b
        return r < 0 ? r + b : r
    }
}
