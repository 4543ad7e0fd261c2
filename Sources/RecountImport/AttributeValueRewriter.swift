internal import Glibc

/// Rewrites the attribute values libxml2 would decode slowly into ASCII it reads in place, and
/// keeps what libxml2 would have decoded for `XMLStreamParser` to hand out instead.
///
/// libxml2 2.9 reads a plain ASCII attribute value in place, but a value with an entity reference
/// (`&lt;`) or a non-ASCII character is decoded character by character, at about 110
/// instructions a character: half of an Apple Health import, whose `device` and `sourceName`
/// values are written so. On their way to libxml2 the bytes are lexed, and in a start tag's
/// value that is plain text (the five predefined entities, well-formed UTF-8 of XML characters,
/// no control character) each entity reference becomes as many `x`s as it has bytes and each
/// non-ASCII character one `x`. The value keeps its number of characters, so libxml2's lines
/// and columns stay the same, and becomes ASCII, so libxml2 reads it in place. Its decoded bytes
/// are kept under the value's offset in the rewritten stream, where the parser finds them.
///
/// Cautious: only a document that opens with an XML 1.0 declaration of UTF-8 is rewritten, and
/// only values of unprefixed attributes other than `xmlns`. Anything the lexer does not expect (a
/// DOCTYPE, a malformed tag, a construct longer than `constructLimit`) stops the rewriting for
/// the rest of the document: libxml2 then reads the bytes as they are and reports what is wrong.
struct AttributeValueRewriter {
    /// A rewritten value: its offset in the rewritten stream and its decoded bytes in `decoded`.
    private struct Rewritten {
        var offset: Int
        var decoded: Range<Int>
    }

    /// What the lexer is reading.
    private enum State {
        /// The document's first bytes, which must be its XML declaration.
        case declaration
        /// Content and markup.
        case markup
        /// Nothing is rewritten any more.
        case off
    }

    /// The longest construct (tag, comment, …) lexed: one that starts within this many bytes of
    /// the end of the bytes given is left for the next call.
    static let constructLimit = 64 << 10

    /// The longest value rewritten, in bytes once rewritten. libxml2 2.9 reads a value in place
    /// only when it ends within the 250 bytes (`INPUT_CHUNK`) it has made sure to hold after the
    /// opening quote; a longer one may cross the end of its input buffer and be decoded into a
    /// copy after all, whose decoded bytes the parser could not find.
    static let longestRewrittenValue = 240

    /// What the lexer is reading at the start of the next bytes.
    private var state = State.declaration
    /// The values rewritten and not yet taken, by increasing offset, from `next` on.
    private var rewritten: [Rewritten] = []
    /// The first value of `rewritten` not taken.
    private var next = 0
    /// The decoded bytes of the values in `rewritten`, in its first `decodedCount` bytes (the
    /// others are room for the next values).
    fileprivate(set) var decoded: [UInt8] = []
    /// How many bytes of `decoded` are used.
    fileprivate var decodedCount = 0
    /// The attributes of the start tag being restored, five pointers each, as libxml2's.
    private var restoredAttributes: [UnsafePointer<UInt8>?] = []
    /// Its values restored: attribute index and decoded bytes.
    private var restoredValues: [(index: Int, decoded: Range<Int>)] = []

    /// Creates a rewriter for a document, from its first byte.
    /// - Parameter enabled: `false` to pass every byte through unchanged.
    init(enabled: Bool = true) {
        if !enabled { state = .off }
    }

    /// Whether the rewriter's assumptions hold for a libxml2 version (`xmlParserVersion` as a
    /// number, 20914 for 2.9.14): those of 2.9, which reads a short ASCII value in place.
    static func supports(libxml2Version version: Int) -> Bool {
        (20900..<21000).contains(version)
    }

    /// Whether values rewritten are waiting to be taken.
    var hasRewrittenValues: Bool { next < rewritten.count }

    /// Lends `body` a start tag's attributes with the values rewritten replaced by their decoded
    /// bytes (the values are taken).
    /// - Parameters:
    ///   - attributes: the tag's attributes as libxml2 hands them over, five pointers each (local
    ///     name, prefix, URI, value start, value end).
    ///   - count: how many attributes.
    ///   - offset: the offset in the rewritten stream of a pointer into libxml2's input, or -1
    ///     when it points elsewhere (a value libxml2 decoded into a copy).
    ///   - tagEnd: the offset of the tag's end in the rewritten stream.
    ///   - body: reads the attributes, valid only during the call.
    /// - Returns: what `body` returned; `nil`, without calling it, when a value rewritten before
    ///   the tag's end is not one of its values or an earlier tag's: libxml2 handed it over as a
    ///   copy, and the `x`s it read would be reported.
    mutating func restoringValues<Result>(
        of attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>, count: Int,
        offset: (UnsafePointer<UInt8>?) -> Int, tagEnd: () -> Int,
        _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>) -> Result
    ) -> Result? {
        // Most tags (a record's metadata) have no value rewritten.
        let end = tagEnd()
        guard hasRewrittenValues, rewritten[next].offset < end else { return body(attributes) }
        if !restoredValues.isEmpty { restoredValues.removeAll(keepingCapacity: true) }
        for index in 0..<count {
            let start = offset(attributes[5 &* index &+ 3])
            guard start >= 0 else { continue }
            // A value rewritten before this one and not taken was handed over as a copy.
            if hasRewrittenValues, rewritten[next].offset < start { return nil }
            if let decoded = takeValue(at: start) { restoredValues.append((index, decoded)) }
        }
        if hasRewrittenValues, rewritten[next].offset < end { return nil }
        if restoredAttributes.count < 5 &* count {
            restoredAttributes.append(contentsOf: repeatElement(nil, count: 5 &* count - restoredAttributes.count))
        }
        restoredAttributes.withUnsafeMutableBufferPointer {
            $0.baseAddress!.update(from: attributes, count: 5 &* count)
        }
        return decoded.withUnsafeBufferPointer { decoded in
            for (index, range) in restoredValues {
                restoredAttributes[5 &* index &+ 3] = decoded.baseAddress! + range.lowerBound
                restoredAttributes[5 &* index &+ 4] = decoded.baseAddress! + range.upperBound
            }
            return restoredAttributes.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
        }
    }

    /// Takes the decoded bytes of the value at an offset in the rewritten stream, if it is the
    /// next value rewritten.
    /// - Parameter offset: where the value starts in the rewritten stream.
    /// - Returns: its decoded bytes' range in `decoded`, or `nil` when it is not the next value
    ///   rewritten.
    mutating func takeValue(at offset: Int) -> Range<Int>? {
        guard hasRewrittenValues, rewritten[next].offset == offset else { return nil }
        next += 1
        return rewritten[next - 1].decoded
    }

    /// Forgets the values taken, so their decoded bytes need no room (between two reads of libxml2).
    private mutating func dropTakenValues() {
        guard next > 0 else { return }
        if next == rewritten.count {
            rewritten.removeAll(keepingCapacity: true)
            decodedCount = 0
        } else {
            let shift = rewritten[next].decoded.lowerBound
            rewritten.removeSubrange(0..<next)
            decoded.withUnsafeMutableBufferPointer { decoded in
                _ = memmove(decoded.baseAddress!, decoded.baseAddress! + shift, decodedCount - shift)
            }
            decodedCount -= shift
            for index in rewritten.indices {
                let range = rewritten[index].decoded
                rewritten[index].decoded = (range.lowerBound - shift)..<(range.upperBound - shift)
            }
        }
        next = 0
    }

    /// Rewrites the document's next bytes in place.
    /// - Parameters:
    ///   - bytes: the bytes after those lexed so far.
    ///   - atEnd: whether they are the document's last bytes.
    ///   - offset: where the rewritten bytes will start in the rewritten stream.
    /// - Returns: how many of `bytes` were lexed (the others, a construct that may be unfinished,
    ///   are to be given again with more bytes after them; none when `atEnd`), and how many
    ///   rewritten bytes they became, at the start of `bytes`.
    mutating func rewrite(
        _ bytes: UnsafeMutableBufferPointer<UInt8>, atEnd: Bool, offset: Int
    ) -> (lexed: Int, written: Int) {
        dropTakenValues()
        guard let base = bytes.baseAddress else { return (0, 0) }
        var lexer = Lexer(base: base, count: bytes.count, streamOffset: offset)
        while lexer.read < lexer.count {
            switch state {
            case .off:
                lexer.copy(upTo: lexer.count)
            case .declaration:
                let available = lexer.count - lexer.read
                guard atEnd || available >= Self.constructLimit else { return (lexer.read, lexer.written) }
                state = lexer.acceptDeclaration() ? .markup : .off
            case .markup:
                guard let open = lexer.find(UInt8(ascii: "<")) else {
                    lexer.copy(upTo: lexer.count)
                    continue
                }
                lexer.copy(upTo: open)
                guard atEnd || lexer.count - open >= Self.constructLimit else { return (open, lexer.written) }
                if !lexer.construct(into: &self) { state = .off }
            }
        }
        return (lexer.read, lexer.written)
    }

    /// Makes room in `decoded` for `count` more bytes.
    fileprivate mutating func reserveDecoded(_ count: Int) {
        guard decodedCount + count > decoded.count else { return }
        decoded.append(contentsOf: repeatElement(0, count: max(count, decoded.count, 4096)))
    }

    /// Keeps a value rewritten at an offset of the rewritten stream, whose decoded bytes were
    /// written to `decoded` from `decodedCount` to `end`.
    fileprivate mutating func keep(offset: Int, decodedUpTo end: Int) {
        rewritten.append(Rewritten(offset: offset, decoded: decodedCount..<end))
        decodedCount = end
    }
}

/// One pass of `AttributeValueRewriter` over a buffer: bytes before `read` are lexed, and what
/// they became is before `written` (never after `read`, so the rewrite is in place).
private struct Lexer {
    /// The buffer.
    let base: UnsafeMutablePointer<UInt8>
    /// Its bytes.
    let count: Int
    /// Where `base` will be in the rewritten stream.
    let streamOffset: Int
    /// The first byte not lexed.
    var read = 0
    /// The first byte not written.
    var written = 0

    init(base: UnsafeMutablePointer<UInt8>, count: Int, streamOffset: Int) {
        self.base = base
        self.count = count
        self.streamOffset = streamOffset
    }

    /// Moves the bytes from `read` to `end` to `written`, unchanged.
    mutating func copy(upTo end: Int) {
        if written != read { memmove(base + written, base + read, end - read) }
        written += end - read
        read = end
    }

    /// The index of the next `byte` from `read`, if any.
    func find(_ byte: UInt8, from start: Int? = nil) -> Int? {
        let start = start ?? read
        guard start < count, let found = memchr(base + start, Int32(byte), count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// The index just after the next `literal` from `start`, if any.
    func end(of literal: StaticString, from start: Int) -> Int? {
        let first = literal.utf8Start[0]
        let length = literal.utf8CodeUnitCount
        var index = start
        while let found = find(first, from: index) {
            guard found + length <= count else { return nil }
            if memcmp(base + found, literal.utf8Start, length) == 0 { return found + length }
            index = found + 1
        }
        return nil
    }

    /// Whether the bytes at `index` start with `literal`.
    func has(_ literal: StaticString, at index: Int) -> Bool {
        index + literal.utf8CodeUnitCount <= count
            && memcmp(base + index, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// Passes the document's XML declaration through.
    /// - Returns: whether it declares XML 1.0 in UTF-8 (by name or by default).
    mutating func acceptDeclaration() -> Bool {
        guard has("<?xml", at: read), read + 5 < count, Self.isSpace(base[read + 5]),
            let end = end(of: "?>", from: read + 5)
        else { return false }
        let declaration = UnsafeBufferPointer(start: base + read, count: end - read)
        copy(upTo: end)
        guard let version = Self.pseudoAttribute("version", in: declaration), Self.equal(version, "1.0") else {
            return false
        }
        guard let encoding = Self.pseudoAttribute("encoding", in: declaration) else { return true }
        return Self.equal(encoding, "utf-8", ignoringCase: true)
    }

    /// The value of a pseudo-attribute of an XML declaration (`version="1.0"`).
    static func pseudoAttribute(_ name: StaticString, in declaration: UnsafeBufferPointer<UInt8>)
        -> UnsafeBufferPointer<UInt8>?
    {
        let length = name.utf8CodeUnitCount
        var index = 0
        while index + length < declaration.count {
            defer { index += 1 }
            guard memcmp(declaration.baseAddress! + index, name.utf8Start, length) == 0 else { continue }
            var cursor = index + length
            while cursor < declaration.count, isSpace(declaration[cursor]) { cursor += 1 }
            guard cursor < declaration.count, declaration[cursor] == UInt8(ascii: "=") else { return nil }
            cursor += 1
            while cursor < declaration.count, isSpace(declaration[cursor]) { cursor += 1 }
            guard cursor < declaration.count else { return nil }
            let quote = declaration[cursor]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
                let close = declaration[(cursor + 1)...].firstIndex(of: quote)
            else { return nil }
            return UnsafeBufferPointer(rebasing: declaration[(cursor + 1)..<close])
        }
        return nil
    }

    /// Whether bytes equal a literal (ASCII letters in any case, when asked).
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString, ignoringCase: Bool = false)
        -> Bool
    {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        for index in bytes.indices {
            let byte = ignoringCase && bytes[index] >= 0x41 && bytes[index] <= 0x5A ? bytes[index] | 0x20 : bytes[index]
            if byte != literal.utf8Start[index] { return false }
        }
        return true
    }

    /// Whether a byte is XML white space.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Lexes the construct at `read` (a `<`), rewriting its values if it is a start tag.
    /// - Returns: `false` when it is not what the lexer expects; `read` is then where it stopped.
    mutating func construct(into rewriter: inout AttributeValueRewriter) -> Bool {
        let open = read
        guard open + 1 < count else { return false }
        // The terminator, searched for after the opener.
        let (opener, terminator): (Int, StaticString)
        switch base[open + 1] {
        case UInt8(ascii: "/"): (opener, terminator) = (2, ">")
        case UInt8(ascii: "?"): (opener, terminator) = (2, "?>")
        case UInt8(ascii: "!"):
            if has("<!--", at: open) {
                (opener, terminator) = (4, "-->")
            } else if has("<![CDATA[", at: open) {
                (opener, terminator) = (9, "]]>")
            } else {
                return false
            }
        default: return startTag(into: &rewriter)
        }
        guard let end = end(of: terminator, from: open + opener) else { return false }
        copy(upTo: end)
        return true
    }

    /// Lexes the start tag at `read`, rewriting the values that need it.
    mutating func startTag(into rewriter: inout AttributeValueRewriter) -> Bool {
        var index = read + 1
        var prefixed = false
        guard name(&index, prefixed: &prefixed) else { return false }
        while true {
            let spaced = index
            while index < count, Self.isSpace(base[index]) { index += 1 }
            guard index < count else { return false }
            switch base[index] {
            case UInt8(ascii: ">"):
                copy(upTo: index + 1)
                return true
            case UInt8(ascii: "/"):
                guard index + 1 < count, base[index + 1] == UInt8(ascii: ">") else { return false }
                copy(upTo: index + 2)
                return true
            default:
                guard index > spaced else { return false }
            }
            let nameStart = index
            prefixed = false
            guard name(&index, prefixed: &prefixed) else { return false }
            let rewritable = !prefixed && !(base[nameStart] == UInt8(ascii: "x") && has("xmlns", at: nameStart))
            while index < count, Self.isSpace(base[index]) { index += 1 }
            guard index < count, base[index] == UInt8(ascii: "=") else { return false }
            index += 1
            while index < count, Self.isSpace(base[index]) { index += 1 }
            guard index < count, base[index] == UInt8(ascii: "\"") || base[index] == UInt8(ascii: "'"),
                let close = find(base[index], from: index + 1)
            else { return false }
            guard value(index + 1..<close, rewritable: rewritable, into: &rewriter) else { return false }
            index = close + 1
        }
    }

    /// Steps over a name (of an element or attribute) at `index`.
    /// - Parameter prefixed: set when the name has a colon.
    /// - Returns: `false` when there is none, or the buffer ends in it.
    func name(_ index: inout Int, prefixed: inout Bool) -> Bool {
        let start = index
        // Eight bytes at once while none is below `?`: everything that ends a name is.
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            guard (word &- 0x3F &* ones) & ~word & (0x80 &* ones) == 0 else { break }
            index += 8
        }
        while index < count {
            let byte = base[index]
            // Letters, `_` and non-ASCII bytes; everything that ends a name is below `A`.
            if byte >= UInt8(ascii: "A") {
                index += 1
                continue
            }
            switch byte {
            case 0x20, 0x0A, 0x09, 0x0D, UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "/"):
                return index > start
            case UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "&"):
                return false
            case UInt8(ascii: ":"):
                prefixed = true
                index += 1
            default:
                index += 1
            }
        }
        return false
    }

    /// The bytes libxml2 would decode among eight (the first at the lowest address): non-ASCII,
    /// control characters, `&` and `<`. The lowest byte flagged (bit 7 set) is the first such;
    /// bytes after it may be flagged without being one.
    static func decodedBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
        let controls = (word &- 0x20 &* ones) & ~word & highs
        return (word & highs) | controls | zeroBytes(word ^ (0x26 &* ones)) | zeroBytes(word ^ (0x3C &* ones))
    }

    /// The eight bytes at `index`, the first as the lowest.
    func word(at index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
    }

    /// Lexes an attribute value and rewrites it when it is plain text that libxml2 would decode.
    /// - Parameters:
    ///   - range: its bytes, between its quotes.
    ///   - rewritable: whether its attribute may be rewritten.
    ///   - rewriter: keeps the decoded value.
    /// - Returns: `false` when the value holds a `<`.
    mutating func value(_ range: Range<Int>, rewritable: Bool, into rewriter: inout AttributeValueRewriter) -> Bool {
        let base = self.base
        let end = range.upperBound
        var index = range.lowerBound
        var plain = rewritable
        var rewrites = false
        // Bytes the value loses once rewritten: all but one of each non-ASCII character's.
        var shrinkage = 0
        while index < end {
            if index + 8 <= end {
                let decoded = Self.decodedBytes(word(at: index))
                guard decoded != 0 else {
                    index += 8
                    continue
                }
                index += decoded.trailingZeroBitCount >> 3
            }
            let byte = base[index]
            if byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "&") && byte != UInt8(ascii: "<") {
                index += 1
            } else if byte == UInt8(ascii: "<") {
                return false
            } else if byte == UInt8(ascii: "&"), plain,
                let (length, _) = Self.predefinedEntity(base + index, end - index)
            {
                index += length
                rewrites = true
            } else if byte >= 0x80, let length = Self.characterLength(base + index, end - index) {
                index += length
                shrinkage += length - 1
                rewrites = true
            } else {
                plain = false
                index += 1
            }
        }
        if plain && rewrites && range.count - shrinkage <= AttributeValueRewriter.longestRewrittenValue {
            rewrite(range, into: &rewriter)
        }
        return true
    }

    /// Rewrites a plain value that libxml2 would decode, and keeps its decoded bytes: the value's,
    /// with each entity reference replaced by its character.
    mutating func rewrite(_ range: Range<Int>, into rewriter: inout AttributeValueRewriter) {
        copy(upTo: range.lowerBound)
        let offset = streamOffset + written
        rewriter.reserveDecoded(range.count)
        let decodedStart = rewriter.decodedCount
        let base = self.base
        let end = range.upperBound
        var index = range.lowerBound
        var output = written
        let decodedEnd = rewriter.decoded.withUnsafeMutableBufferPointer { decoded in
            let decoded = decoded.baseAddress!
            var decodedEnd = decodedStart
            while index < end {
                if index + 8 <= end {
                    // Eight plain bytes at once (read before either write, which ends at or before
                    // `index + 8`), else the plain ones before the first byte to decode.
                    let word = word(at: index)
                    let plain = Self.decodedBytes(word).trailingZeroBitCount >> 3
                    if plain == 8 {
                        UnsafeMutableRawPointer(base + output).storeBytes(of: word.littleEndian, as: UInt64.self)
                        UnsafeMutableRawPointer(decoded + decodedEnd).storeBytes(of: word.littleEndian, as: UInt64.self)
                    } else {
                        for offset in 0..<plain {
                            decoded[decodedEnd + offset] = base[index + offset]
                            base[output + offset] = base[index + offset]
                        }
                    }
                    index += plain
                    output += plain
                    decodedEnd += plain
                    if plain == 8 { continue }
                }
                let byte = base[index]
                if byte < 0x80 {
                    if byte == UInt8(ascii: "&"),
                        let (length, character) = Self.predefinedEntity(base + index, end - index)
                    {
                        decoded[decodedEnd] = character
                        decodedEnd += 1
                        (base + output).update(repeating: UInt8(ascii: "x"), count: length)
                        output += length
                        index += length
                    } else {
                        decoded[decodedEnd] = byte
                        decodedEnd += 1
                        base[output] = byte
                        output += 1
                        index += 1
                    }
                } else {
                    let length = Self.characterLength(base + index, end - index) ?? 1
                    (decoded + decodedEnd).update(from: base + index, count: length)
                    decodedEnd += length
                    base[output] = UInt8(ascii: "x")
                    output += 1
                    index += length
                }
            }
            return decodedEnd
        }
        read = end
        written = output
        rewriter.keep(offset: offset, decodedUpTo: decodedEnd)
    }

    /// The predefined entity reference at `bytes` (`&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`):
    /// its length and the character it stands for.
    static func predefinedEntity(_ bytes: UnsafePointer<UInt8>, _ available: Int) -> (length: Int, character: UInt8)? {
        func matches(_ literal: StaticString) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard length <= available else { return false }
            for index in 1..<length where bytes[index] != literal.utf8Start[index] { return false }
            return true
        }
        guard available >= 4 else { return nil }
        switch bytes[1] {
        case UInt8(ascii: "l"): return matches("&lt;") ? (4, UInt8(ascii: "<")) : nil
        case UInt8(ascii: "g"): return matches("&gt;") ? (4, UInt8(ascii: ">")) : nil
        case UInt8(ascii: "q"): return matches("&quot;") ? (6, UInt8(ascii: "\"")) : nil
        case UInt8(ascii: "a"):
            if matches("&amp;") { return (5, UInt8(ascii: "&")) }
            return matches("&apos;") ? (6, UInt8(ascii: "'")) : nil
        default: return nil
        }
    }

    /// The length of the well-formed UTF-8 sequence at `bytes` of a non-ASCII XML character
    /// (U+FFFE and U+FFFF are none); `nil` for anything else.
    static func characterLength(_ bytes: UnsafePointer<UInt8>, _ available: Int) -> Int? {
        let lead = bytes[0]
        func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            offset < available && bytes[offset] >= low && bytes[offset] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0...0xEF:
            let (low, high): (UInt8, UInt8) =
                switch lead {
                case 0xE0: (0xA0, 0xBF)
                case 0xED: (0x80, 0x9F)
                default: (0x80, 0xBF)
                }
            guard continuation(1, low, high), continuation(2) else { return nil }
            if lead == 0xEF, bytes[1] == 0xBF, bytes[2] >= 0xBE { return nil }
            return 3
        case 0xF0...0xF4:
            let (low, high): (UInt8, UInt8) =
                switch lead {
                case 0xF0: (0x90, 0xBF)
                case 0xF4: (0x80, 0x8F)
                default: (0x80, 0xBF)
                }
            return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }
}
