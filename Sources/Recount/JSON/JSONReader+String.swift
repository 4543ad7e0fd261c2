extension JSONReader {
    /// Parses a string literal; `index` is at its opening quote.
    /// - Returns: the unescaped string; `index` is just past the closing quote.
    /// - Throws: `JSONReadFailure` for an unterminated string, a raw control character, invalid
    ///   UTF-8 or a bad escape.
    @inline(__always)
    mutating func parseString() throws(JSONReadFailure) -> String {
        let start = index &+ 1
        if let end = try scanString() {
            return String(
                decoding: UnsafeRawBufferPointer(start: base + start, count: end &- start),
                as: UTF8.self)
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Parses an object key; `index` is at its opening quote.
    /// - Returns: the unescaped key and its fingerprint; `index` is just past the closing quote.
    /// - Throws: `JSONReadFailure` as `parseString()` does.
    @inline(__always)
    mutating func parseKey() throws(JSONReadFailure) -> (key: String, print: UInt64) {
        let start = index &+ 1
        if let end = try scanString() {
            let bytes = UnsafeRawBufferPointer(start: base + start, count: end &- start)
            return (String(decoding: bytes, as: UTF8.self), JSONReader.fingerprint(bytes))
        }
        return scratch.withUnsafeBytes { bytes in
            (String(decoding: bytes, as: UTF8.self), JSONReader.fingerprint(bytes))
        }
    }

    /// Checks a string literal and finds its content; `index` is at its opening quote.
    ///
    /// The fast path scans 8 bytes at a time for a quote, a backslash, a control character or a
    /// non-ASCII byte, and validates any multi-byte UTF-8 sequence it meets. The first backslash
    /// switches to `scanEscapedString`, which unescapes into `scratch`.
    /// - Returns: the offset of the closing quote when the content is the plain input bytes
    ///   after the opening quote, or `nil` when it had escapes and is in `scratch`. `index` is
    ///   just past the closing quote.
    /// - Throws: `JSONReadFailure` for an unterminated string, a raw control character, invalid
    ///   UTF-8 or a bad escape.
    @inline(__always)
    mutating func scanString() throws(JSONReadFailure) -> Int? {
        let quote = index
        var i = quote &+ 1
        while true {
            while i &+ 8 <= count {
                let word = UInt64(
                    littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let special = JSONReader.specialBytes(word)
                if special == 0 {
                    i &+= 8
                } else {
                    i &+= special.trailingZeroBitCount &>> 3
                    break
                }
            }
            guard i < count else {
                throw JSONReadFailure(.syntax, offset: quote, reason: "unterminated string")
            }
            let b = byte(i)
            if b == 0x22 {  // "
                index = i &+ 1
                return i
            } else if b == 0x5C {  // backslash
                try scanEscapedString(quote: quote, firstEscape: i)
                return nil
            } else if b < 0x20 {
                throw JSONReadFailure(.syntax, offset: i, reason: "control character in string")
            } else if b >= 0x80 {
                guard let next = utf8SequenceEnd(at: i) else {
                    throw JSONReadFailure(.invalidUTF8, offset: i, reason: "invalid UTF-8")
                }
                i = next
            } else {
                i &+= 1
            }
        }
    }

    /// A 64-bit fingerprint of a key's bytes: equal keys have equal fingerprints, and different
    /// keys almost never do (keys up to 7 bytes never collide with another key of their length).
    /// - Parameter bytes: the unescaped key.
    @inline(__always)
    static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let length = bytes.count
        var print = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        if length >= 8 {
            print ^= bytes.loadUnaligned(as: UInt64.self)
            print = (print ^ print &>> 29) &* 0xBF58_476D_1CE4_E5B9
            print ^= bytes.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
        } else {
            var word: UInt64 = 0
            for k in 0..<length { word |= UInt64(bytes[k]) &<< (k &* 8) }
            print ^= word
        }
        return print
    }

    /// Finishes a string that contains escapes, building its unescaped bytes in `scratch`.
    /// - Parameters:
    ///   - quote: the offset of the opening quote.
    ///   - firstEscape: the offset of the first backslash; the bytes before it are plain.
    /// - Throws: `JSONReadFailure` as `scanString()` does; `index` ends just past the closing quote.
    @inline(never)
    mutating func scanEscapedString(quote: Int, firstEscape: Int) throws(JSONReadFailure) {
        scratch.removeAll(keepingCapacity: true)
        let start = quote &+ 1
        scratch.append(
            contentsOf: UnsafeRawBufferPointer(start: base + start, count: firstEscape &- start))
        var i = firstEscape
        while true {
            guard i < count else {
                throw JSONReadFailure(.syntax, offset: quote, reason: "unterminated string")
            }
            let b = byte(i)
            if b == 0x22 {
                index = i &+ 1
                return
            } else if b == 0x5C {
                i = try appendEscape(at: i, quote: quote)
            } else if b < 0x20 {
                throw JSONReadFailure(.syntax, offset: i, reason: "control character in string")
            } else if b >= 0x80 {
                guard let next = utf8SequenceEnd(at: i) else {
                    throw JSONReadFailure(.invalidUTF8, offset: i, reason: "invalid UTF-8")
                }
                scratch.append(
                    contentsOf: UnsafeRawBufferPointer(start: base + i, count: next &- i))
                i = next
            } else {
                scratch.append(b)
                i &+= 1
            }
        }
    }

    /// Decodes the escape at `offset` (a backslash) and appends its UTF-8 to `scratch`.
    /// - Parameters:
    ///   - offset: the backslash.
    ///   - quote: the string's opening quote, for an input that ends inside the escape.
    /// - Returns: the offset just past the escape (past both halves of a surrogate pair).
    /// - Throws: `JSONReadFailure` for an unknown escape, a malformed `\u`, or a lone surrogate.
    mutating func appendEscape(at offset: Int, quote: Int) throws(JSONReadFailure) -> Int {
        guard offset &+ 1 < count else {
            throw JSONReadFailure(.syntax, offset: quote, reason: "unterminated string")
        }
        let decoded: UInt8
        switch byte(offset &+ 1) {
        case 0x22: decoded = 0x22  // \"
        case 0x5C: decoded = 0x5C  // \\
        case 0x2F: decoded = 0x2F  // \/
        case 0x62: decoded = 0x08  // \b
        case 0x66: decoded = 0x0C  // \f
        case 0x6E: decoded = 0x0A  // \n
        case 0x72: decoded = 0x0D  // \r
        case 0x74: decoded = 0x09  // \t
        case 0x75:  // \u
            guard let unit = hex4(at: offset &+ 2) else {
                throw JSONReadFailure(.syntax, offset: offset, reason: "invalid \\u escape")
            }
            var scalar = unit
            var end = offset &+ 6
            if unit >= 0xD800, unit <= 0xDBFF {
                guard end &+ 1 < count, byte(end) == 0x5C, byte(end &+ 1) == 0x75 else {
                    throw JSONReadFailure(.loneSurrogate, offset: offset, reason: "lone surrogate escape")
                }
                guard let low = hex4(at: end &+ 2) else {
                    throw JSONReadFailure(.syntax, offset: end, reason: "invalid \\u escape")
                }
                guard low >= 0xDC00, low <= 0xDFFF else {
                    throw JSONReadFailure(.loneSurrogate, offset: offset, reason: "lone surrogate escape")
                }
                scalar = 0x1_0000 &+ ((unit &- 0xD800) &<< 10) &+ (low &- 0xDC00)
                end &+= 6
            } else if unit >= 0xDC00, unit <= 0xDFFF {
                throw JSONReadFailure(.loneSurrogate, offset: offset, reason: "lone surrogate escape")
            }
            appendUTF8(scalar)
            return end
        default:
            throw JSONReadFailure(.syntax, offset: offset, reason: "invalid escape")
        }
        scratch.append(decoded)
        return offset &+ 2
    }

    /// The value of the four hex digits at `offset`, or `nil` when they are not all there.
    /// - Parameter offset: the first digit.
    func hex4(at offset: Int) -> UInt32? {
        guard offset &+ 4 <= count else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            let b = byte(offset &+ k)
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b &- 0x30
            case 0x41...0x46: digit = b &- 0x37
            case 0x61...0x66: digit = b &- 0x57
            default: return nil
            }
            value = value &<< 4 | UInt32(digit)
        }
        return value
    }

    /// Appends the UTF-8 encoding of a scalar value (never a surrogate) to `scratch`.
    /// - Parameter scalar: a code point up to U+10FFFF.
    mutating func appendUTF8(_ scalar: UInt32) {
        if scalar < 0x80 {
            scratch.append(UInt8(truncatingIfNeeded: scalar))
        } else if scalar < 0x800 {
            scratch.append(UInt8(truncatingIfNeeded: 0xC0 | scalar &>> 6))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        } else if scalar < 0x1_0000 {
            scratch.append(UInt8(truncatingIfNeeded: 0xE0 | scalar &>> 12))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar &>> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        } else {
            scratch.append(UInt8(truncatingIfNeeded: 0xF0 | scalar &>> 18))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar &>> 12 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar &>> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    /// The end of the well-formed UTF-8 sequence starting at `offset` (a byte above 0x7F), or
    /// `nil` when it is not well formed (RFC 3629 table: no overlongs, no surrogates, nothing
    /// above U+10FFFF, no truncation).
    /// - Parameter offset: the sequence's first byte.
    func utf8SequenceEnd(at offset: Int) -> Int? {
        let lead = byte(offset)
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return nil
        }
        guard offset &+ length <= count else { return nil }
        let second = byte(offset &+ 1)
        guard second >= low, second <= high else { return nil }
        for k in 2..<length where byte(offset &+ k) & 0xC0 != 0x80 {
            return nil
        }
        return offset &+ length
    }

    /// A mask with the high bit set in (at least) the lowest byte of `word` that is a quote, a
    /// backslash, below 0x20 or above 0x7F; zero when there is none.
    ///
    /// Bytes above the lowest hit may be flagged falsely (borrows), never missed below it.
    /// - Parameter word: eight input bytes, first byte in the low bits.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quoteHit = (quote &- ones) & ~quote
        let backslashHit = (backslash &- ones) & ~backslash
        let controlHit = (word &- ones &* 0x20) & ~word
        return (quoteHit | backslashHit | controlHit | word) & (ones &* 0x80)
    }
}
