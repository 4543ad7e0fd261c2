/// The ranking of sources the overlap merge uses for one (user, metric): which source counts where
/// samples of several sources overlap (contract §3.5).
///
/// Built from the origin list of `config.sources` that applies (the user's own, else the `*`
/// default, else none; the fold resolves which) and the origin and device of every source:
///
/// 1. Sources whose origin is in the configured list come first, in list order (origins match
///    exactly, byte for byte; a repeated origin keeps its first place).
/// 2. The rest follow, and so do sources that share one listed origin among themselves, by the
///    default rule: class 0 watches (origin or device contains `watch`), class 1 everything else
///    (other wearables and apps), class 2 phones (origin or device contains `phone` or `android`),
///    all matched ignoring ASCII case.
/// 3. Ties break by origin bytes, then device bytes (no device first), then the source id.
///
/// A source the ranking was not built with ranks after all others, by id. The ranking never
/// depends on hash-table order: every key is compared explicitly.
package struct SourcePriority: Sendable {
    /// A source's place: lower ranks first. Dense from 0 over the sources given at init.
    private var ranks: [SourceID: UInt32]

    /// The default class of a source: 0 watch, 1 other, 2 phone.
    package enum DefaultClass: UInt8, Comparable, Sendable {
        case watch = 0
        case other = 1
        case phone = 2

        /// Orders the classes as they rank: watch, other, phone.
        package static func < (a: DefaultClass, b: DefaultClass) -> Bool { a.rawValue < b.rawValue }

        /// The class of a source by the default rule.
        /// - Parameter source: the source's origin and device.
        package init(_ source: Source) {
            let texts = [source.origin, source.device ?? ""]
            if texts.contains(where: { $0.containsIgnoringASCIICase("watch") }) {
                self = .watch
            } else if texts.contains(where: {
                $0.containsIgnoringASCIICase("phone") || $0.containsIgnoringASCIICase("android")
            }) {
                self = .phone
            } else {
                self = .other
            }
        }
    }

    /// Ranks the given sources.
    /// - Parameters:
    ///   - configured: the origins of `config.sources` that apply, highest first; empty for none.
    ///   - sources: the origin and device of each source to rank.
    package init(configured: [String], sources: [SourceID: Source]) {
        var listed: [String: Int] = [:]
        for (place, origin) in configured.enumerated() where listed[origin] == nil {
            listed[origin] = place
        }
        let unlisted = configured.count
        let keyed = sources.map { id, source in
            (
                id: id, source: source, tier: listed[source.origin] ?? unlisted,
                defaultClass: DefaultClass(source)
            )
        }
        let ordered = keyed.sorted { a, b in
            if a.tier != b.tier { return a.tier < b.tier }
            if a.defaultClass != b.defaultClass { return a.defaultClass < b.defaultClass }
            if a.source.namePrecedes(b.source) { return true }
            if b.source.namePrecedes(a.source) { return false }
            return a.id < b.id
        }
        var ranks: [SourceID: UInt32] = [:]
        ranks.reserveCapacity(ordered.count)
        for (rank, entry) in ordered.enumerated() { ranks[entry.id] = UInt32(rank) }
        self.ranks = ranks
    }

    /// A key that orders sources by this ranking: smaller keys win. Unknown sources get keys after
    /// every known one, ordered by id.
    /// - Parameter source: the source.
    package func key(of source: SourceID) -> UInt64 {
        let rank = ranks[source] ?? UInt32.max
        return UInt64(rank) << 32 | UInt64(source.rawValue)
    }

    /// Whether `a` outranks `b`: its samples count where both overlap.
    /// - Parameters:
    ///   - a: a source.
    ///   - b: another source.
    package func ranks(_ a: SourceID, above b: SourceID) -> Bool {
        key(of: a) < key(of: b)
    }
}

extension String {
    /// Whether `needle` (lowercase ASCII) occurs in this string, ignoring ASCII case.
    fileprivate func containsIgnoringASCIICase(_ needle: StaticString) -> Bool {
        needle.withUTF8Buffer { pattern in
            let haystack = Array(utf8)
            guard pattern.count <= haystack.count else { return false }
            for start in 0...(haystack.count - pattern.count) {
                var matched = true
                for k in 0..<pattern.count {
                    var byte = haystack[start + k]
                    if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
                    if byte != pattern[k] {
                        matched = false
                        break
                    }
                }
                if matched { return true }
            }
            return false
        }
    }
}
