import Foundation
import Recount

/// A time zone that turns wall-clock times written without an offset (Fitbit) into instants, and
/// gives the offset in force at an instant, following the zone's daylight-saving rules as
/// Foundation's `TimeZone` (the toolchain's tz database) knows them.
///
/// A wall-clock time that occurs twice (the hour repeated when clocks go back) is the earlier
/// instant unless the later one is asked for; one that does not occur (the hour skipped when
/// clocks go forward) is read with the offset in force before the change, so `02:30` on a
/// spring-forward night in New York is `03:30-04:00`. Never reads the machine's zone or clock.
struct LocalTimeZone {
    /// The IANA name, or `nil` for a fixed offset.
    let identifier: String?
    /// Foundation's zone.
    private let zone: TimeZone

    /// An IANA zone such as `America/New_York`; `nil` for a name ingest would refuse: one the
    /// toolchain does not know, or one of Foundation's other spellings (`PST`, `GMT+5`).
    init?(identifier: String) {
        guard ZoneOffsets.isKnownZone(identifier), let zone = TimeZone(identifier: identifier) else { return nil }
        self.identifier = identifier
        self.zone = zone
    }

    /// A fixed offset, seconds east of UTC (whole minutes); `nil` when out of range.
    init?(secondsFromGMT seconds: Int) {
        guard seconds % 60 == 0, let zone = TimeZone(secondsFromGMT: seconds) else { return nil }
        self.identifier = nil
        self.zone = zone
    }

    /// The offset in force at an instant, seconds east of UTC.
    func offset(atMillis millis: Int64) -> Int32 {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        return Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
    }

    /// An instant shown at the offset in force there.
    func instant(millis: Int64) -> Instant {
        Instant(millis: millis, offsetSeconds: offset(atMillis: millis))
    }

    /// The instant of a wall-clock time (the earlier one of a time that occurs twice).
    /// - Parameter localMillis: the wall-clock time as milliseconds since 1970-01-01T00:00 *local*.
    /// - Returns: the instant, at its offset.
    func instant(localMillis: Int64) -> Instant { instants(localMillis: localMillis).earlier }

    /// The instants of a wall-clock time: `later` is the second one of a time that occurs
    /// twice (the hour repeated when clocks go back), else `nil`. A time that does not exist
    /// (the hour skipped when they go forward) is read with the offset before the change.
    func instants(localMillis: Int64) -> (earlier: Instant, later: Instant?) {
        let day: Int64 = 86_400_000
        let before = offset(atMillis: localMillis - day)
        let after = offset(atMillis: localMillis + day)
        var matches: [Int64] = []
        for candidate in Set([before, after]).sorted() {
            let millis = localMillis - Int64(candidate) * 1000
            if offset(atMillis: millis) == candidate { matches.append(millis) }
        }
        matches.sort()
        let earlier = matches.first ?? (localMillis - Int64(before) * 1000)
        return (instant(millis: earlier), matches.count > 1 ? instant(millis: matches[matches.count - 1]) : nil)
    }
}
