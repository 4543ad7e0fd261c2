import Foundation
import Recount

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the importer chooses the offset of samples without `HKTimeZone` metadata.
///
/// Apple writes every timestamp at the exporting phone's offset *at export time*: the instant is
/// right, the offset often is not (a summer sample exported in winter is an hour off, and may land
/// on the wrong day). Samples with `HKTimeZone` are always shown in that zone; this policy is
/// about the others.
package enum LocalTimePolicy: Sendable, Equatable {
    /// Infer the zone: when every `HKTimeZone` in the file names one zone and the export's
    /// written offset is that zone's offset at export time, samples written at the export offset
    /// are re-expressed in that zone. Otherwise the written offsets are kept.
    case infer
    /// Re-express every sample without `HKTimeZone` in this IANA zone at its own instant.
    case zone(String)
    /// Keep the offsets as written.
    case asWritten

    /// Parses the `--time-zone` argument: an IANA zone name, or `as-written`.
    /// - Returns: `nil` for a name the time-zone database does not know.
    package init?(argument: String) {
        if argument == "as-written" {
            self = .asWritten
        } else if ZoneOffsets().offsetSeconds(zone: argument, atMillis: 0) != nil {
            self = .zone(argument)
        } else {
            return nil
        }
    }
}

/// `HKTimeZone` values found by a quick byte scan of a whole export, before importing it.
///
/// Looks for `key="HKTimeZone" value="…"` (the form Apple writes `<MetadataEntry>` in) at any
/// depth; nothing is parsed as XML, so it reads at the speed of the input.
struct ZoneCensus: Equatable {
    /// Entries per zone name.
    var zones: [String: Int] = [:]
    /// Whether the file is in an encoding the byte scan cannot read: its first bytes hold a NUL
    /// or a UTF-16 byte order mark (UTF-16 or UTF-32, which libxml2 parses). Such a file's zones
    /// are not counted: it was reported as having none, and imported at other offsets than
    /// its UTF-8 copy (an oracle run).
    var isUnscannable = false

    /// The pattern before a zone name.
    private static let pattern = Array(#"key="HKTimeZone" value=""#.utf8)
    /// Where the pattern's `Z` is: the byte searched for.
    private static let anchorOffset = pattern.firstIndex(of: UInt8(ascii: "Z"))!

    /// Scans a stream (opened and closed here).
    /// - Returns: the census of what could be read: a damaged zip or file counts the zones
    ///   before the damage (the import then prints the samples before it, and stops there).
    static func scan(_ stream: InputStream) -> ZoneCensus {
        stream.open()
        defer { stream.close() }
        var census = ZoneCensus()
        let chunk = 1 << 20
        let keep = 256
        var buffer = [UInt8](repeating: 0, count: chunk + keep)
        var carried = 0
        var isFirst = true
        while true {
            let count = buffer.withUnsafeMutableBufferPointer {
                stream.read($0.baseAddress! + carried, maxLength: chunk)
            }
            if count < 0 { return census }
            let filled = carried + count
            if isFirst {
                isFirst = false
                let head = buffer.prefix(min(count, 4))
                census.isUnscannable =
                    head.contains(0) || head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE])
                if census.isUnscannable { return census }
            }
            let consumed = buffer.withUnsafeBufferPointer {
                census.count(UnsafeBufferPointer(rebasing: $0[0..<filled]), atEnd: count == 0)
            }
            if count == 0 { return census }
            // Keep the unscanned tail (a pattern cut by the chunk's end) for the next round.
            carried = filled - consumed
            buffer.withUnsafeMutableBufferPointer {
                $0.baseAddress!.update(from: $0.baseAddress! + consumed, count: carried)
            }
        }
    }

    /// Counts the zone names in `bytes`. Unless `atEnd`, matches starting in the last 256 bytes
    /// are left for the next call (a zone name is at most 200 bytes).
    /// - Returns: how many bytes were scanned.
    private mutating func count(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var index = 0
        let limit = atEnd ? bytes.count : max(0, bytes.count - 256)
        let pattern = Self.pattern
        // memchr finds the pattern's rare `Z` at GB/s; a Swift loop over every byte ran ~200 MB/s.
        let anchor = Self.anchorOffset
        let end = min(limit + anchor, bytes.count)
        var next = anchor
        while next < end {
            guard let found = memchr(base + next, Int32(UInt8(ascii: "Z")), end - next) else { break }
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) - anchor
            next = position + anchor + 1
            guard position + pattern.count <= bytes.count,
                (0..<pattern.count).allSatisfy({ bytes[position + $0] == pattern[$0] })
            else { continue }
            let start = position + pattern.count
            guard let close = bytes[start..<min(bytes.count, start + 200)].firstIndex(of: UInt8(ascii: "\"")) else {
                continue
            }
            zones[String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<close]), as: UTF8.self), default: 0] += 1
            next = close + 1 + anchor
            index = close + 1
        }
        return max(index, limit)
    }
}

/// What the importer did to the offsets of samples without `HKTimeZone`, for the report.
package struct Rezoning: Sendable, Equatable {
    /// How the zone was chosen: `given` (`--time-zone`), `inferred`, or `none`.
    package var how: String
    /// The zone applied, if any.
    package var zone: String?
    /// Why no zone was inferred, or what it was inferred from.
    package var reason: String
    /// Samples imported without `HKTimeZone`.
    package var samplesWithoutZone = 0
    /// Of those, samples whose start or end offset changed.
    package var rezoned = 0
    /// Of those, samples whose start moved to another civil date.
    package var movedDay = 0
    /// Samples kept as written because their offset is not the export's (inferred zone only).
    package var keptOtherOffset = 0

    /// Creates a record of no re-zoning.
    package init(how: String, zone: String?, reason: String) {
        self.how = how
        self.zone = zone
        self.reason = reason
    }
}
