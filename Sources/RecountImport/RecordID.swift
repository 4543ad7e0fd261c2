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
/// Apple Health (`AppleHealth.derive(type:origin:start:end:value:unit:creation:)`), domain
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

    /// Derives the ids of Apple Health records, absorbing the first 64 bytes of their messages
    /// (one SHA-256 block: the domain, the type and most of the origin) once per type and origin:
    /// an export repeats a few of each, so each id then costs one compression less, and no
    /// context is set up per id. The ids are the same as hashing each message whole.
    struct AppleHealth {
        /// SHA-256's block size.
        private static let blockBytes = 64
        /// Hashers that absorbed a first block, by that block.
        private var afterFirstBlock = RecentValues<SHA256>(capacity: 16)

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
        mutating func derive(
            type: String, origin: String, start: Int64, end: Int64, value: UnsafeBufferPointer<UInt8>,
            unit: UnsafeBufferPointer<UInt8>, creation: Int64?
        ) -> SampleID {
            let texts = type.utf8.count + origin.utf8.count + value.count + unit.count + 4
            let fieldBytes = texts + 3 * Message.decimalLength
            return RecordID.derive(domain: appleHealthDomain, fieldBytes: fieldBytes) { message in
                message.append(type)
                message.append(origin)
                message.append(start)
                message.append(end)
                message.append(value)
                message.append(unit)
                if let creation { message.append(creation) } else { message.append("") }
            } hash: { message, digest in
                hash(message, into: digest)
            }
        }

        /// Writes a message's digest, from a hasher that absorbed its first block.
        private mutating func hash(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer) {
            guard message.count >= Self.blockBytes else { return SHA256.hash(message, into: digest) }
            let block = UnsafeRawBufferPointer(rebasing: message[..<Self.blockBytes])
            let rest = UnsafeRawBufferPointer(rebasing: message[Self.blockBytes...])
            afterFirstBlock.withValue(for: block.assumingMemoryBound(to: UInt8.self)) {
                var hasher = SHA256()
                hasher.update(block)
                return hasher
            } _: { hasher in
                hasher.digest(appending: rest, into: digest)
            }
        }
    }

    /// The id of a record given its identity fields.
    /// - Parameters:
    ///   - domain: the importer's domain, such as `recount.fitbit.v1`.
    ///   - fields: the identity fields, in a fixed order; none may contain a NUL character.
    /// - Returns: a lowercase version-8 UUID.
    static func derive(domain: String, fields: [String]) -> SampleID {
        derive(domain: domain, fieldBytes: fields.reduce(0) { $0 + $1.utf8.count + 1 }) { message in
            for field in fields { message.append(field) }
        } hash: { message, digest in
            SHA256.hash(message, into: digest)
        }
    }

    /// The id of the message `write` makes of a record's fields, after the domain.
    /// - Parameters:
    ///   - domain: the importer's domain.
    ///   - fieldBytes: at least the bytes `write` appends, terminators included.
    ///   - write: appends the fields.
    ///   - hash: writes the SHA-256 digest of a message to room for `SHA256.byteCount` bytes.
    private static func derive(
        domain: String, fieldBytes: Int, _ write: (inout Message) -> Void,
        hash: (UnsafeRawBufferPointer, UnsafeMutableRawPointer) -> Void
    ) -> SampleID {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: domain.utf8.count + 1 + fieldBytes) { buffer in
            var message = Message(buffer: buffer)
            message.append(domain)
            write(&message)
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256.byteCount) { digest in
                hash(UnsafeRawBufferPointer(start: buffer.baseAddress!, count: message.count), digest.baseAddress!)
                return uuid(UnsafeBufferPointer(digest))
            }
        }
    }

    /// The first 16 bytes of a digest as a version-8, RFC 9562-variant UUID.
    private static func uuid(_ digest: UnsafeBufferPointer<UInt8>) -> SampleID {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(digest[index])
            low = low << 8 | UInt64(digest[8 + index])
        }
        high = (high & ~(0xF << 12)) | (0x8 << 12)
        low = (low & ~(0x3 << 62)) | (0x2 << 62)
        return SampleID(uuid: high, low, lowercase: true)
    }

    /// A message being written into memory: fields, each followed by a NUL byte.
    private struct Message {
        /// The most bytes a decimal `Int64` takes, with its sign and terminator.
        static let decimalLength = 21

        let buffer: UnsafeMutableBufferPointer<UInt8>
        /// Bytes written so far.
        private(set) var count = 0

        init(buffer: UnsafeMutableBufferPointer<UInt8>) {
            self.buffer = buffer
        }

        /// Appends a field's bytes and its terminator.
        mutating func append(_ field: UnsafeBufferPointer<UInt8>) {
            if let base = field.baseAddress {
                (buffer.baseAddress! + count).update(from: base, count: field.count)
                count += field.count
            }
            buffer[count] = 0
            count += 1
        }

        /// Appends a text field (read in place: no copy of the string, no retain).
        mutating func append(_ field: String) {
            if field.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
            var field = field
            field.withUTF8 { append($0) }
        }

        /// Appends a number in decimal, as `String(number)` writes it.
        mutating func append(_ number: Int64) {
            // Written last digits first, two at a time (one division per pair), into the end of
            // the room a decimal can take, then moved to the front of it.
            let room = buffer.baseAddress! + count
            var start = Self.decimalLength - 1
            var rest = number.magnitude
            Self.digitPairs.withUnsafeBufferPointer { pairs in
                while rest >= 100 {
                    let pair = Int(rest % 100) * 2
                    rest /= 100
                    start -= 2
                    room[start] = pairs[pair]
                    room[start + 1] = pairs[pair + 1]
                }
                if rest >= 10 {
                    start -= 2
                    room[start] = pairs[Int(rest) * 2]
                    room[start + 1] = pairs[Int(rest) * 2 + 1]
                } else {
                    start -= 1
                    room[start] = UInt8(truncatingIfNeeded: 0x30 &+ rest)
                }
            }
            if number < 0 {
                start -= 1
                room[start] = UInt8(ascii: "-")
            }
            let length = Self.decimalLength - 1 - start
            UnsafeMutableRawPointer(room).copyMemory(from: room + start, byteCount: length)
            room[length] = 0
            count += length + 1
        }

        /// `00` to `99` in ASCII, two bytes each.
        private static let digitPairs: [UInt8] = (0..<100).flatMap { (pair: Int) -> [UInt8] in
            [UInt8(truncatingIfNeeded: 0x30 + pair / 10), UInt8(truncatingIfNeeded: 0x30 + pair % 10)]
        }
    }
}
