internal import RecountLog

/// A sample's id exactly as its provider wrote it.
///
/// HealthKit and Health Connect ids are UUIDs, so a canonical UUID (`8-4-4-4-12` hex digits, one
/// letter case) is held as its 16 bytes and its case: no allocation, cheap to hash and compare,
/// and written to the log as 16 bytes. Any other text is held as it is. Two ids are equal exactly
/// when their texts have the same bytes.
package struct SampleID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Storage {
        /// The UUID's bytes as two big-endian halves, and whether its letters are lowercase.
        case uuid(UInt64, UInt64, lowercase: Bool)
        /// Any id that is not a canonical UUID.
        case text(String)
    }

    private let storage: Storage

    /// The id whose text is `text`.
    package init(_ text: String) {
        let uuid = text.utf8.count == 36 ? text.withRawUTF8 { Self.parseUUID($0) } : nil
        storage = uuid.map { .uuid($0.high, $0.low, lowercase: $0.lowercase) } ?? .text(text)
    }

    /// The id whose text is the UTF-8 `bytes`, which must be valid UTF-8.
    package init(utf8 bytes: UnsafeRawBufferPointer) {
        if bytes.count == 36, let uuid = Self.parseUUID(bytes) {
            storage = .uuid(uuid.high, uuid.low, lowercase: uuid.lowercase)
        } else {
            storage = .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The UUID with these 16 bytes (big-endian halves), written in the given letter case.
    package init(uuid high: UInt64, _ low: UInt64, lowercase: Bool) {
        storage = .uuid(high, low, lowercase: lowercase)
    }

    package init(stringLiteral text: String) { self.init(text) }

    /// The UUID's bytes and letter case, when the id is a canonical UUID.
    package var uuid: (high: UInt64, low: UInt64, lowercase: Bool)? {
        guard case .uuid(let high, let low, let lowercase) = storage else { return nil }
        return (high, low, lowercase)
    }

    /// The id's text.
    package var text: String {
        switch storage {
        case .text(let text): return text
        case .uuid(let high, let low, let lowercase):
            return String(unsafeUninitializedCapacity: 36) { output in
                Self.writeUUIDText(high, low, lowercase: lowercase, to: output.baseAddress!)
                return 36
            }
        }
    }

    package var description: String { text }

    /// Writes the 36 bytes of a UUID's text, hyphens at the canonical places, to `output`.
    package static func writeUUIDText(
        _ high: UInt64, _ low: UInt64, lowercase: Bool, to output: UnsafeMutablePointer<UInt8>
    ) {
        let digits: StaticString = lowercase ? "0123456789abcdef" : "0123456789ABCDEF"
        let hex = digits.utf8Start
        /// Writes the hex digits of `word`'s bytes `first..<first + count` (0 the highest).
        func writeBytes(_ word: UInt64, _ first: Int, _ count: Int, at position: Int) {
            for index in 0..<count {
                let byte = Int(truncatingIfNeeded: word >> (56 - 8 * UInt64(first + index))) & 0xFF
                output[position + 2 * index] = hex[byte >> 4]
                output[position + 2 * index + 1] = hex[byte & 0xF]
            }
        }
        // 8-4-4-4-12 digits: bytes 0–3, 4–5, 6–7 of the high half, 0–1, 2–7 of the low one.
        writeBytes(high, 0, 4, at: 0)
        output[8] = UInt8(ascii: "-")
        writeBytes(high, 4, 2, at: 9)
        output[13] = UInt8(ascii: "-")
        writeBytes(high, 6, 2, at: 14)
        output[18] = UInt8(ascii: "-")
        writeBytes(low, 0, 2, at: 19)
        output[23] = UInt8(ascii: "-")
        writeBytes(low, 2, 6, at: 24)
    }

    /// Whether this id's text orders before `other`'s (`text < other.text`). Two UUIDs in the
    /// same letter case compare by their bytes, which order as their hex digits do, without
    /// building either text.
    package func textPrecedes(_ other: SampleID) -> Bool {
        if case .uuid(let a, let b, let lower) = storage, case .uuid(let c, let d, let otherLower) = other.storage,
            lower == otherLower
        {
            return a != c ? a < c : b < d
        }
        return text < other.text
    }

    /// Same bytes, same id (`String`'s `==` would equate canonically equivalent texts).
    package static func == (lhs: SampleID, rhs: SampleID) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.uuid(let a, let b, let lower), .uuid(let c, let d, let otherLower)):
            return a == c && b == d && lower == otherLower
        case (.text(let left), .text(let right)): return left.hasSameUTF8(as: right)
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

    /// A 64-bit fingerprint: equal ids have equal fingerprints (used by `IdSet`, never stored).
    var fingerprint: UInt64 {
        switch storage {
        case .uuid(let high, let low, _):
            var mixed = high &* 0x9E37_79B9_7F4A_7C15 ^ low
            mixed = (mixed ^ mixed >> 32) &* 0xBF58_476D_1CE4_E5B9
            return mixed ^ mixed >> 29
        case .text(let text): return text.withRawUTF8 { Checksum.xxh3($0) }
        }
    }

    /// The 16 bytes and letter case of a canonical UUID text, or `nil` when `utf8` is not one.
    private static func parseUUID(_ utf8: UnsafeRawBufferPointer) -> (high: UInt64, low: UInt64, lowercase: Bool)? {
        let dash = UInt8(ascii: "-")
        guard utf8.count == 36, utf8[8] == dash, utf8[13] == dash, utf8[18] == dash, utf8[23] == dash else {
            return nil
        }
        // Eight digits at a time in one word (SWAR): a loop over the digits cost about 30
        // instructions each, a thousand per id, more than the rest of reading a sample's fields.
        var digits = HexDigits()
        let high =
            digits.value(utf8, at: 0, count: 8) << 32 | digits.value(utf8, at: 9, count: 4) << 16
            | digits.value(utf8, at: 14, count: 4)
        let low =
            digits.value(utf8, at: 19, count: 4) << 48 | digits.value(utf8, at: 24, count: 8) << 16
            | digits.value(utf8, at: 32, count: 4)
        // Letters of one case only.
        guard digits.valid, digits.lowerLetters == 0 || digits.upperLetters == 0 else { return nil }
        return (high, low, digits.upperLetters == 0)
    }
}

/// Hex digits read eight bytes to a word, each byte a lane whose top bit carries its tests.
private struct HexDigits {
    private var invalid: UInt64 = 0
    /// Top bits of the lanes that held a lowercase letter, and of those that held an uppercase one.
    private(set) var lowerLetters: UInt64 = 0
    private(set) var upperLetters: UInt64 = 0

    /// Whether every byte read so far was a hex digit.
    var valid: Bool { invalid == 0 }

    /// The value of the `count` (4 or 8) hex digits at `offset`, the first the most significant.
    @inline(__always)
    mutating func value(_ bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) -> UInt64 {
        var word: UInt64
        if count == 8 {
            word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        } else {
            // Four digits after four zeros, which add nothing to the value.
            let four = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            word = UInt64(four) << 32 | 0x3030_3030
        }
        invalid |= word & ByteLanes.tops
        let digit = ByteLanes.within(word, 0x30, 0x39)
        let letter = ByteLanes.within(word | ByteLanes.ones &* 0x20, 0x61, 0x66)
        invalid |= ~(digit | letter) & ByteLanes.tops
        // Bit 5 tells a lowercase ASCII letter from an uppercase one; shifted to the lane's top.
        lowerLetters |= letter & word << 2
        upperLetters |= letter & ~(word << 2)
        // A digit's low four bits are its value; a letter's are 1–6, and it adds 9.
        var nibbles = (word & (ByteLanes.ones &* 0x0F)) &+ (letter >> 7) &* 9
        // The first byte is the lowest lane: swap so that it is the most significant, then
        // close up pairs of nibbles, pairs of bytes and pairs of halves.
        nibbles = nibbles.byteSwapped
        nibbles = (nibbles >> 4 | nibbles) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles >> 8 | nibbles) & 0x0000_FFFF_0000_FFFF
        return (nibbles >> 16 | nibbles) & 0xFFFF_FFFF
    }
}
