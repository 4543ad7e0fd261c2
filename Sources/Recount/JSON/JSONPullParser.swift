/// Reads one JSON text a piece at a time, for documents far larger than any one of their records
/// (a Takeout file's array of a million data points): the caller steps into the outer objects and
/// arrays itself and takes each member or element as a `JSONValue` of its own, so only one record
/// is ever built as a tree.
///
/// The grammar is `JSONParser`'s, with two differences at the levels the caller walks: keys are
/// not checked for duplicates there, and `maxDepth` bounds each value taken rather than the whole
/// document. Values taken with `value()` are checked exactly as `JSONParser` checks a document.
///
///     var parser = try JSONPullParser(bytes)
///     try parser.enterArray()
///     while try parser.nextElement() { use(try parser.value()) }
///     try parser.finish()
package struct JSONPullParser: ~Copyable {
    /// One container the caller stepped into.
    private struct Level {
        /// Whether it is an object (else an array).
        var isObject: Bool
        /// Members or elements begun so far.
        var count = 0
        /// The current member's key.
        var key = ""
    }

    /// The cursor; its own stacks only ever hold the value being taken.
    private var reader: JSONReader
    /// The containers stepped into, outermost first.
    private var levels: [Level] = []

    /// Starts reading a JSON text.
    /// - Parameters:
    ///   - bytes: the text; it must outlive the parser.
    ///   - maxDepth: the deepest nesting of each value taken with `value()`.
    /// - Throws: `JSONParseError` for empty input or a byte order mark.
    package init(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws(JSONParseError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(.syntax, offset: 0, path: "$", reason: "empty input")
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONParseError(.syntax, offset: 0, path: "$", reason: "byte order mark")
        }
        reader = JSONReader(base: base, count: bytes.count, maxDepth: min(maxDepth, JSONParser.depthCeiling))
    }

    /// Whether the next value is an array (a `[`, after whitespace).
    package mutating func atArray() -> Bool {
        reader.skipWhitespace()
        return reader.index < reader.count && reader.byte(reader.index) == 0x5B
    }

    /// Steps into the object that is the next value; read its members with `nextKey()`.
    /// - Throws: `JSONParseError` when the next value is not an object.
    package mutating func enterObject() throws(JSONParseError) {
        try enter(open: 0x7B, isObject: true, expected: "expected an object")
    }

    /// Steps into the array that is the next value; read its elements with `nextElement()`.
    /// - Throws: `JSONParseError` when the next value is not an array.
    package mutating func enterArray() throws(JSONParseError) {
        try enter(open: 0x5B, isObject: false, expected: "expected an array")
    }

    /// Moves to the next member of the object stepped into last: its key, with the reader at its
    /// value (which must then be taken, skipped or stepped into); `nil` past the closing `}`.
    /// - Throws: `JSONParseError` for anything but a member or the end of the object.
    package mutating func nextKey() throws(JSONParseError) -> String? {
        guard try advance(isObject: true) else { return nil }
        do throws(JSONReadFailure) {
            reader.skipWhitespace()
            guard reader.index < reader.count, reader.byte(reader.index) == 0x22 else {
                throw reader.unexpected(at: reader.index, expected: "expected a string key")
            }
            let key = try reader.parseString()
            levels[levels.count - 1].key = key
            reader.skipWhitespace()
            guard reader.next(is: 0x3A) else { throw reader.unexpected(at: reader.index, expected: "expected ':'") }
            return key
        } catch {
            throw failure(error)
        }
    }

    /// Moves to the next element of the array stepped into last: `true` with the reader at it
    /// (which must then be taken, skipped or stepped into), `false` past the closing `]`.
    /// - Throws: `JSONParseError` for anything but an element or the end of the array.
    package mutating func nextElement() throws(JSONParseError) -> Bool {
        try advance(isObject: false)
    }

    /// Takes the next value whole.
    /// - Throws: `JSONParseError` when it is not valid JSON.
    package mutating func value() throws(JSONParseError) -> JSONValue {
        do throws(JSONReadFailure) {
            return try reader.parseTree()
        } catch {
            throw failure(error)
        }
    }

    /// Reads past the next value, checking it; an array or object is read a child at a time, so
    /// skipping a huge one builds no tree of it.
    /// - Throws: `JSONParseError` when it is not valid JSON.
    package mutating func skipValue() throws(JSONParseError) {
        reader.skipWhitespace()
        guard reader.index < reader.count else {
            _ = try value()
            return
        }
        switch reader.byte(reader.index) {
        case 0x5B:  // [
            try enterArray()
            while try nextElement() { try skipValue() }
        case 0x7B:  // {
            try enterObject()
            while try nextKey() != nil { try skipValue() }
        default:
            _ = try value()
        }
    }

    /// Checks that nothing but whitespace follows the value read.
    /// - Throws: `JSONParseError` for trailing data or containers left open.
    package mutating func finish() throws(JSONParseError) {
        reader.skipWhitespace()
        guard levels.isEmpty, reader.index == reader.count else {
            throw JSONParseError(
                .syntax, offset: reader.index, path: path(),
                reason: levels.isEmpty ? "trailing data after the value" : "containers left open")
        }
    }

    /// Steps into a container opened by `open`.
    private mutating func enter(open: UInt8, isObject: Bool, expected: String) throws(JSONParseError) {
        reader.skipWhitespace()
        guard levels.count < reader.maxDepth else {
            throw failure(reader.tooDeep(at: reader.index))
        }
        guard reader.next(is: open) else {
            throw failure(reader.unexpected(at: reader.index, expected: expected))
        }
        levels.append(Level(isObject: isObject))
    }

    /// Reads the separator before the next child of the innermost container, or its end (then
    /// steps out and returns `false`).
    private mutating func advance(isObject: Bool) throws(JSONParseError) -> Bool {
        guard let level = levels.last, level.isObject == isObject else {
            throw JSONParseError(
                .syntax, offset: reader.index, path: path(),
                reason: isObject ? "not inside an object" : "not inside an array")
        }
        let close: UInt8 = isObject ? 0x7D : 0x5D  // } ]
        reader.skipWhitespace()
        if level.count == 0 {
            if reader.next(is: close) {
                levels.removeLast()
                return false
            }
        } else {
            do throws(JSONReadFailure) {
                guard try reader.nextSeparator(close: close) else {
                    levels.removeLast()
                    return false
                }
            } catch {
                throw failure(
                    error.reason == "expected a separator"
                        ? reader.unexpected(
                            at: reader.index, expected: isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                        : error)
            }
        }
        levels[levels.count - 1].count += 1
        return true
    }

    /// A reader failure as a `JSONParseError`, its path the walked levels' then the value's.
    private func failure(_ failure: JSONReadFailure) -> JSONParseError {
        // The value's own path: `$`, `$[0]…`, or `x…` when it starts with a plain key.
        let inner = reader.path()
        let steps = inner == "$" ? "" : inner.hasPrefix("$") ? String(inner.dropFirst()) : "." + inner
        return JSONParseError(failure.code, offset: failure.offset, path: path() + steps, reason: failure.reason)
    }

    /// The JSON path of the child being read in the walked levels, such as `$["Data Points"][3]`.
    private func path() -> String {
        var path = "$"
        for level in levels where level.count > 0 {
            if level.isObject {
                path += JSONReader.isPlainName(level.key) ? ".\(level.key)" : "[\"\(level.key)\"]"
            } else {
                path += "[\(level.count - 1)]"
            }
        }
        return path
    }
}
