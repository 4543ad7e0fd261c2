import Recount

/// Stable sample ids for records of an Apple Health export, which carries no UUIDs.
///
/// The id is derived from the record's identity, not from its position in the file or the
/// export's offsets: SHA-256 over, each followed by a NUL byte (XML cannot contain NUL, so the
/// encoding is unambiguous),
///
///     "recount.apple-health.v1", type, origin, start, end, value, unit, creation
///
/// where `origin` is the normalised source name, `start`/`end`/`creation` are decimal epoch
/// seconds (`creation` empty when the record has no `creationDate`), and `value`/`unit` are the
/// attributes exactly as written (empty for workouts, `unit` empty for sleep). The first 16 bytes
/// of the digest become a UUID with version 8 and the RFC 9562 variant, in lowercase.
///
/// Consequences: importing the same export twice, or a later export that contains the same record
/// written with another export-time offset, gives the same id; renaming the source app or device
/// gives a new id.
enum RecordID {
    /// The domain-separation prefix, which versions the derivation.
    private static let domain = "recount.apple-health.v1"

    /// The id of a record.
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
        var message = [UInt8]()
        message.reserveCapacity(
            domain.utf8.count + type.utf8.count + origin.utf8.count + value.utf8.count
                + unit.utf8.count + 3 * 21 + 8)
        func field(_ text: String) {
            message.append(contentsOf: text.utf8)
            message.append(0)
        }
        func field(_ number: Int64?) {
            if let number { appendDecimal(number, to: &message) }
            message.append(0)
        }
        field(domain)
        field(type)
        field(origin)
        field(start)
        field(end)
        field(value)
        field(unit)
        field(creation)
        let digest = SHA256.hash(message)
        return uuid(digest)
    }

    /// Appends the decimal digits of a number (with `-` when negative).
    private static func appendDecimal(_ number: Int64, to bytes: inout [UInt8]) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = number.magnitude
        var divisor: UInt64 = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / divisor % 10))
            divisor /= 10
        }
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
