import Foundation
import Recount

/// Offsets of IANA time zones at instants, with each zone looked up once.
///
/// Only samples carrying `HKTimeZone` metadata (mostly sleep and workouts) come here, so asking
/// Foundation per instant is cheap enough; the `TimeZone` values are cached per name. Results
/// depend only on the toolchain's time-zone database, never on the machine's zone or clock.
final class TimeZoneCache {
    /// Known zones by the name written in the export; `nil` for a name ingest does not accept.
    private var zones: [String: TimeZone?] = [:]

    /// Creates an empty cache.
    init() {}

    /// The offset of a zone at an instant, in whole minutes expressed as seconds.
    ///
    /// - Parameters:
    ///   - zoneName: IANA name such as `Europe/Amsterdam`.
    ///   - epochSeconds: the instant.
    /// - Returns: seconds east of UTC, or `nil` when the zone is unknown (to ingest) or its offset is not a
    ///   whole number of minutes (historic local mean time, which RFC 3339 cannot write).
    func offset(zoneName: String, at epochSeconds: Int64) -> Int32? {
        let zone: TimeZone?
        if let cached = zones[zoneName] {
            zone = cached
        } else {
            // Only names ingest accepts: Foundation also knows spellings such as `GMT+0100`,
            // and a sample carrying one was refused by ingest, where an unknown name keeps the
            // sample at its written offset (an attack run).
            zone = ZoneOffsets.isKnownZone(zoneName) ? TimeZone(identifier: zoneName) : nil
            zones[zoneName] = .some(zone)
        }
        guard let zone else { return nil }
        let seconds = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(epochSeconds)))
        guard seconds % 60 == 0 else { return nil }
        return Int32(seconds)
    }
}
