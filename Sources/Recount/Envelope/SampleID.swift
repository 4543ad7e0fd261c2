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
        // Branch-free per digit: random hex digits defeat a branch predictor, and a branch per
        // digit cost more than the rest of decoding a sample's id.
        var lowerLetters: UInt8 = 0
        var upperLetters: UInt8 = 0
        var invalid: UInt8 = 0
        /// Folds the hex digits at `range` into `word`, noting letters and bytes that are no digit.
        func fold(_ range: Range<Int>, into word: inout UInt64) {
            for index in range {
                let byte = utf8[index]
                let digit = byte &- UInt8(ascii: "0")
                let letter = (byte | 0x20) &- UInt8(ascii: "a")
                let isDigit: UInt8 = digit < 10 ? 1 : 0
                let isLetter: UInt8 = letter < 6 ? 1 : 0
                invalid |= ~(isDigit | isLetter) & 1
                // Bit 5 tells a lowercase ASCII letter from an uppercase one.
                lowerLetters |= isLetter & (byte >> 5)
                upperLetters |= isLetter & (~byte >> 5)
                let nibble = isDigit &* digit | isLetter &* (letter &+ 10)
                word = word &<< 4 | UInt64(nibble)
            }
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        fold(0..<8, into: &high)
        fold(9..<13, into: &high)
        fold(14..<18, into: &high)
        fold(19..<23, into: &low)
        fold(24..<36, into: &low)
        // Letters of one case only.
        guard invalid == 0, lowerLetters & upperLetters == 0 else { return nil }
        return (high, low, upperLetters == 0)
    }
}
