import Recount

/// Stable sample ids for records of exports that carry no usable id of their own (Apple Health's
/// `export.xml`, Fitbit and Google Fit Takeouts).
///
/// An id is SHA-256 over a domain string and a record's identity fields, each followed by a NUL
/// byte (the fields come from XML attributes, JSON numbers or names that contain no NUL, so the
/// encoding is unambiguous); the first 16 bytes of the digest become a UUID with version 8 and the
/// RFC 9562 variant, in lowercase. The domain names the importer and versions the derivation, so
/// two importers never share an id. Nothing user-specific goes in: the same record in two exports
/// (or in an overlapping later export) gets the same id, and re-importing upserts it.
///
/// Apple Health (`derive(type:origin:start:end:value:unit:creation:)`), domain
/// `recount.apple-health.v1`, fields
///
///     type, origin, start, end, value, unit, creation
///
/// where `origin` is the normalised source name, `start`/`end`/`creation` are decimal epoch
/// seconds (`creation` empty when the record has no `creationDate`), and `value`/`unit` are the
/// attributes exactly as written (empty for workouts, `unit` empty for sleep). Importing the same
/// export twice, or a later export that contains the same record written with another export-time
/// offset, gives the same id; renaming the source app or device gives a new id. The Takeout
/// importers document their own fields (`docs/import.md`).
enum RecordID {
    /// The Apple Health domain, which versions that derivation.
    private static let appleHealthDomain = "recount.apple-health.v1"

    /// The id of an Apple Health record.
    ///
    /// - Parameters:
    ///   - type: HealthKit type identifier (`HKWorkoutTypeIdentifier` for workouts).
    ///   - origin: normalised source name.
    ///   - start: start instant, epoch seconds.
    ///   - end: end instant, epoch seconds.
    ///   - value: value attribute as written, or empty.
    ///   - unit: unit attribute as written, or empty.
    ///   - creation: creation instant, epoch seconds, when present.
    /// - Returns: a lowercase UUID such as `1b4e28ba-2fa1-81d2-883f-0016d3cca427`.
    static func derive(
        type: String, origin: String, start: Int64, end: Int64, value: String, unit: String,
        creation: Int64?
    ) -> SampleID {
        derive(
            domain: appleHealthDomain,
            fields: [type, origin, String(start), String(end), value, unit, creation.map { String($0) } ?? ""])
    }

    /// The id of a record given its identity fields.
    /// - Parameters:
    ///   - domain: the importer's domain, such as `recount.fitbit.v1`.
    ///   - fields: the identity fields, in a fixed order; none may contain a NUL character.
    /// - Returns: a lowercase version-8 UUID.
    static func derive(domain: String, fields: [String]) -> SampleID {
        var message = [UInt8]()
        message.reserveCapacity(fields.reduce(domain.utf8.count + 1) { $0 + $1.utf8.count + 1 })
        message.append(contentsOf: domain.utf8)
        message.append(0)
        for field in fields {
            message.append(contentsOf: field.utf8)
            message.append(0)
        }
        return uuid(SHA256.hash(message))
    }

    /// The first 16 bytes of a digest as a version-8, RFC 9562-variant UUID.
    private static func uuid(_ digest: [UInt8]) -> SampleID {
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return SampleID(uuid: high, low, lowercase: true)
    }
}
