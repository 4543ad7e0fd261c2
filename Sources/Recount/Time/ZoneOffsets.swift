import Foundation

/// Resolves an IANA zone's UTC offset at an instant, caching per zone the intervals between
/// transitions so that Foundation is called only when an instant falls outside every cached one.
///
/// A zone name is accepted when it looks like a tz database name and Foundation's `TimeZone` knows
/// it: names with a `/` (`America/New_York`, `Etc/GMT+5`, `Asia/Calcutta`) and the tz database's
/// few root-level names (`UTC`, `GMT`, `EST5EDT`, `Japan`, ...). Foundation's other spellings
/// (`PST`, `GMT+5`, `GMT+0530`) are rejected: they are not IANA names and differ between
/// Foundation versions. Names are case-sensitive. The offsets themselves come from the tz data
/// Foundation ships (ICU); the server's own zone (`TZ`, `TimeZone.current`) is never consulted.
///
/// Not thread-safe: use one instance per thread (or per fold); instances are cheap.
package final class ZoneOffsets {
    /// A span of instants `[start, end)` over which a zone's offset is constant.
    private struct Interval {
        var start: Int64
        var end: Int64
        var offset: Int32
    }

    /// The cache of one known zone.
    private final class Zone {
        let timeZone: TimeZone
        /// Disjoint intervals sorted by `start`.
        var intervals: [Interval] = []
        /// Index of the interval that answered last, tried first.
        var lastHit = 0

        init(timeZone: TimeZone) {
            self.timeZone = timeZone
        }
    }

    /// Known zones by name, and `nil` for names already found unknown.
    private var zones: [String: Zone?] = [:]
    /// The zone of the previous call, compared before hashing the name.
    private var lastName = ""
    private var lastZone: Zone?
    /// How many unknown names to remember before answering them uncached.
    private static let unknownNameCacheLimit = 4096
    private var unknownNames = 0

    /// How far before an instant the search for the transition that began its interval looks.
    private static let lookbackMillis: Int64 = 400 * Timestamp.millisPerDay

    /// Creates an empty cache.
    package init() {}

    /// The version of the tz data the offsets come from (`2025b`): recorded with the
    /// projections, since another version may place a sample on another day.
    package var dataVersion: String { TimeZone.timeZoneDataVersion }

    /// The UTC offset of `zone` at an instant.
    /// - Parameters:
    ///   - zone: an IANA zone name.
    ///   - atMillis: the instant in epoch milliseconds.
    /// - Returns: seconds east of UTC, or `nil` when the zone is unknown.
    package func offsetSeconds(zone: String, atMillis: Int64) -> Int32? {
        offsetInterval(zone: zone, atMillis: atMillis)?.offsetSeconds
    }

    /// The UTC offset of `zone` at an instant, and the first instant after it when the offset may
    /// change (the next transition; `Int64.max` when there is none).
    /// - Parameters:
    ///   - zone: an IANA zone name.
    ///   - atMillis: the instant in epoch milliseconds.
    /// - Returns: the offset in seconds east of UTC and the exclusive end of the interval it holds
    ///   over, or `nil` when the zone is unknown.
    package func offsetInterval(zone: String, atMillis millis: Int64) -> (
        offsetSeconds: Int32, untilMillis: Int64
    )? {
        guard let cache = lookUp(zone) else { return nil }
        if cache.lastHit < cache.intervals.count {
            let interval = cache.intervals[cache.lastHit]
            if interval.start <= millis, millis < interval.end {
                return (interval.offset, interval.end)
            }
        }
        // Binary search: the last interval starting at or before `millis`.
        var low = 0
        var high = cache.intervals.count
        while low < high {
            let mid = (low &+ high) >> 1
            if cache.intervals[mid].start <= millis { low = mid &+ 1 } else { high = mid }
        }
        if low > 0, millis < cache.intervals[low &- 1].end {
            cache.lastHit = low &- 1
            let interval = cache.intervals[low &- 1]
            return (interval.offset, interval.end)
        }
        var interval = ZoneOffsets.computeInterval(cache.timeZone, at: millis)
        // The new interval lies in the gap between cached neighbours; trim it to stay disjoint.
        if low > 0 { interval.start = max(interval.start, cache.intervals[low &- 1].end) }
        if low < cache.intervals.count {
            interval.end = min(interval.end, cache.intervals[low].start)
        }
        cache.intervals.insert(interval, at: low)
        cache.lastHit = low
        return (interval.offset, interval.end)
    }

    /// How many offset intervals the cache holds, over all zones (for tests and diagnostics).
    package var cachedIntervalCount: Int {
        zones.values.reduce(0) { $0 + ($1?.intervals.count ?? 0) }
    }

    /// Whether `name` is a zone this instance resolves (cached `isKnownZone(_:)`).
    /// - Parameter name: a candidate IANA zone name.
    package func isKnown(zone name: String) -> Bool {
        lookUp(name) != nil
    }

    /// Whether `name` is an accepted IANA zone name (see the type's documentation).
    /// - Parameter name: a candidate IANA zone name, such as `America/New_York`.
    package static func isKnownZone(_ name: String) -> Bool {
        timeZone(named: name) != nil
    }

    /// The cache for a zone name, creating it on first use; `nil` for unknown names.
    private func lookUp(_ name: String) -> Zone? {
        if let zone = lastZone, name == lastName { return zone }
        let zone: Zone?
        if let cached = zones[name] {
            zone = cached
        } else {
            zone = ZoneOffsets.timeZone(named: name).map(Zone.init(timeZone:))
            if zone != nil || unknownNames < ZoneOffsets.unknownNameCacheLimit {
                zones[name] = .some(zone)
                if zone == nil { unknownNames += 1 }
            }
        }
        if let zone {
            lastName = name
            lastZone = zone
        }
        return zone
    }

    /// The offset at `millis` and the interval around it, asking Foundation.
    private static func computeInterval(_ timeZone: TimeZone, at millis: Int64) -> Interval {
        let offset = Int32(clamping: timeZone.secondsFromGMT(for: date(millis)))
        let end =
            timeZone.nextDaylightSavingTimeTransition(after: date(millis)).map(
                ZoneOffsets.millis(of:))
            ?? Int64.max
        var start =
            millis.subtractingReportingOverflow(lookbackMillis).overflow
            ? Int64.min : millis - lookbackMillis
        var cursor = date(start)
        var steps = 0
        while steps < 64, let transition = timeZone.nextDaylightSavingTimeTransition(after: cursor) {
            let transitionMillis = ZoneOffsets.millis(of: transition)
            guard transitionMillis <= millis, transitionMillis > start else { break }
            start = transitionMillis
            cursor = transition
            steps += 1
        }
        // Trust the interval only if Foundation agrees at both ends; else cache just the instant.
        guard end > millis, start <= millis,
            timeZone.secondsFromGMT(for: date(start)) == Int(offset),
            end == Int64.max || timeZone.secondsFromGMT(for: date(end - 1)) == Int(offset)
        else {
            return Interval(
                start: millis, end: millis == Int64.max ? millis : millis + 1, offset: offset)
        }
        return Interval(start: start, end: end, offset: offset)
    }

    /// Foundation's zone for an accepted name, or `nil`.
    private static func timeZone(named name: String) -> TimeZone? {
        guard isWellFormedName(name) else { return nil }
        return TimeZone(identifier: name)
    }

    /// Whether `name` has the shape of a tz database name: 1–64 bytes of `[A-Za-z0-9/_+-]`, no
    /// empty or dot component, and either a `/` or one of the database's root-level names.
    private static func isWellFormedName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= 64, utf8.first != UInt8(ascii: "/"),
            utf8.last != UInt8(ascii: "/")
        else { return false }
        var hasSlash = false
        var previous: UInt8 = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "+"),
                UInt8(ascii: "-"):
                break
            case UInt8(ascii: "/"):
                if previous == UInt8(ascii: "/") { return false }
                hasSlash = true
            default:
                return false
            }
            previous = byte
        }
        return hasSlash || rootNames.contains(name)
    }

    /// The tz database's zone and link names that have no `/` (tzdata 2024).
    private static let rootNames: Set<String> = [
        "CET", "CST6CDT", "Cuba", "EET", "EST", "EST5EDT", "Egypt", "Eire", "GB", "GB-Eire", "GMT",
        "GMT+0", "GMT-0", "GMT0", "Greenwich", "HST", "Hongkong", "Iceland", "Iran", "Israel",
        "Jamaica", "Japan", "Kwajalein", "Libya", "MET", "MST", "MST7MDT", "NZ", "NZ-CHAT",
        "Navajo", "PRC", "PST8PDT", "Poland", "Portugal", "ROC", "ROK", "Singapore", "Turkey",
        "UCT", "UTC", "Universal", "W-SU", "WET", "Zulu",
    ]

    /// The `Date` of an instant in epoch milliseconds.
    private static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// The epoch milliseconds of a `Date`, rounded and clamped to `Int64`.
    private static func millis(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value > -9.2e18 else { return Int64.min }
        guard value < 9.2e18 else { return Int64.max }
        return Int64(value)
    }
}
