/// The cursor behind `JSONParser`: raw bytes, an index, and the recursive descent.
///
/// Containers collect their children on shared stacks (`elementStack`, `memberStack`) and move
/// them out once at the closing bracket, so each array or object costs one exact-size allocation.
/// Every read is bounds-checked by hand against `count` before it happens.
struct JSONReader: ~Copyable {
    /// The first byte of the input.
    let base: UnsafeRawPointer
    /// The number of bytes in the input.
    let count: Int
    /// The deepest container nesting accepted.
    let maxDepth: Int
    /// The next byte to read.
    var index = 0
    /// Bytes of the string being unescaped.
    var scratch: [UInt8] = []
    /// Elements of the arrays being parsed, innermost last.
    var elementStack = JSONMoveStack<JSONValue>(capacity: 32)
    /// Members of the objects being parsed, innermost last.
    var memberStack = JSONMoveStack<(key: String, value: JSONValue)>(capacity: 32)
    /// A fingerprint of each key in `memberStack`, at the same positions, so duplicate checks
    /// compare integers and only look at a key's bytes when fingerprints match.
    var keyPrints: [UInt64] = []

    /// Objects with more members than this check duplicates with a hash set instead of a scan.
    static let linearKeyCheckLimit = 24

    /// Creates a reader over `count` bytes at `base`.
    /// - Parameters:
    ///   - base: the first byte.
    ///   - count: the number of bytes, at least 1.
    ///   - maxDepth: the deepest nesting accepted.
    init(base: UnsafeRawPointer, count: Int, maxDepth: Int) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
        keyPrints.reserveCapacity(32)
    }

    /// The byte at `offset`, which must be below `count`.
    @inline(__always)
    func byte(_ offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// Parses the whole input as one value surrounded by optional whitespace.
    /// - Returns: the value.
    /// - Throws: `JSONReadFailure` for anything but exactly one valid value.
    mutating func parseDocument() throws(JSONReadFailure) -> JSONValue {
        if count >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF {
            throw JSONReadFailure(offset: 0, reason: "byte order mark")
        }
        skipWhitespace()
        guard index < count else { throw JSONReadFailure(offset: index, reason: "empty input") }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == count else {
            throw JSONReadFailure(offset: index, reason: "trailing data after the value")
        }
        return value
    }

    /// Skips JSON whitespace: space, tab, LF, CR.
    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            let b = byte(index)
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            index &+= 1
        }
    }

    /// Parses the value starting at the next non-whitespace byte.
    /// - Parameter depth: the nesting depth of the container holding this value (0 at the root).
    /// - Returns: the value; `index` is just past it.
    /// - Throws: `JSONReadFailure` when no valid value starts here.
    mutating func parseValue(depth: Int) throws(JSONReadFailure) -> JSONValue {
        skipWhitespace()
        guard index < count else { throw unexpected(at: index, expected: "expected a value") }
        switch byte(index) {
        case 0x22: return .string(try parseString())  // "
        case 0x7B: return try parseObject(depth: depth &+ 1)  // {
        case 0x5B: return try parseArray(depth: depth &+ 1)  // [
        case 0x2D, 0x30...0x39: return .number(try parseNumber())  // - 0-9
        case 0x74: try parseLiteral("true"); return .bool(true)
        case 0x66: try parseLiteral("false"); return .bool(false)
        case 0x6E: try parseLiteral("null"); return .null
        case 0x2B, 0x2E, 0x4E, 0x49:  // + . N(aN) I(nfinity)
            throw JSONReadFailure(offset: index, reason: "number is not valid JSON")
        case 0x27:  // '
            throw JSONReadFailure(offset: index, reason: "strings must use double quotes")
        default:
            throw unexpected(at: index, expected: "expected a value")
        }
    }

    /// Parses `true`, `false` or `null`, which must not run on into further letters or digits.
    /// - Parameter word: the literal expected at `index`.
    /// - Throws: `JSONReadFailure` ("invalid literal") when the bytes differ.
    mutating func parseLiteral(_ word: StaticString) throws(JSONReadFailure) {
        let length = word.utf8CodeUnitCount
        let start = index
        var matches = start &+ length <= count
        if matches {
            let expected = word.utf8Start
            for k in 0..<length where byte(start &+ k) != expected[k] {
                matches = false
                break
            }
        }
        if matches, start &+ length < count, JSONReader.continuesWord(byte(start &+ length)) {
            matches = false
        }
        guard matches else { throw unexpected(at: start, expected: "invalid literal") }
        index = start &+ length
    }

    /// Parses an array; `index` is at its `[`.
    /// - Parameter depth: the array's own nesting depth (1 for a root array).
    /// - Returns: the array.
    /// - Throws: `JSONReadFailure`, with the failing element's index added to the path.
    mutating func parseArray(depth: Int) throws(JSONReadFailure) -> JSONValue {
        guard depth <= maxDepth else {
            throw JSONReadFailure(offset: index, reason: "nesting deeper than \(maxDepth)")
        }
        index &+= 1
        skipWhitespace()
        if index < count, byte(index) == 0x5D {  // ]
            index &+= 1
            return .array([])
        }
        let start = elementStack.count
        var position = 0
        while true {
            let element: JSONValue
            do throws(JSONReadFailure) {
                element = try parseValue(depth: depth)
            } catch {
                throw error.inside(.index(position))
            }
            elementStack.push(element)
            skipWhitespace()
            guard index < count else {
                throw unexpected(at: index, expected: "expected ',' or ']'")
            }
            let b = byte(index)
            if b == 0x2C {  // ,
                let comma = index
                index &+= 1
                skipWhitespace()
                if index < count, byte(index) == 0x5D {
                    throw JSONReadFailure(offset: comma, reason: "trailing comma")
                }
                position &+= 1
            } else if b == 0x5D {  // ]
                index &+= 1
                break
            } else {
                throw unexpected(at: index, expected: "expected ',' or ']'")
            }
        }
        return .array(elementStack.pop(from: start))
    }

    /// Parses an object; `index` is at its `{`.
    /// - Parameter depth: the object's own nesting depth (1 for a root object).
    /// - Returns: the object, members in input order.
    /// - Throws: `JSONReadFailure`, with the failing member's key added to the path.
    mutating func parseObject(depth: Int) throws(JSONReadFailure) -> JSONValue {
        guard depth <= maxDepth else {
            throw JSONReadFailure(offset: index, reason: "nesting deeper than \(maxDepth)")
        }
        index &+= 1
        skipWhitespace()
        if index < count, byte(index) == 0x7D {  // }
            index &+= 1
            return .object(JSONObject())
        }
        let start = memberStack.count
        var seen: Set<ScalarKey>? = nil
        while true {
            guard index < count, byte(index) == 0x22 else {
                if index < count, byte(index) == 0x27 {
                    throw JSONReadFailure(offset: index, reason: "strings must use double quotes")
                }
                throw unexpected(at: index, expected: "expected a string key")
            }
            let keyOffset = index
            let (key, print) = try parseKey()
            if isDuplicate(key, print: print, membersFrom: start, seen: &seen) {
                var reason: [UInt8] = Array("duplicate key ".utf8)
                JSONWriter.writeString(key, into: &reason)
                throw JSONReadFailure(offset: keyOffset, reason: String(decoding: reason, as: UTF8.self))
                    .inside(.key(key))
            }
            skipWhitespace()
            guard index < count, byte(index) == 0x3A else {  // :
                throw unexpected(at: index, expected: "expected ':'")
            }
            index &+= 1
            let value: JSONValue
            do throws(JSONReadFailure) {
                value = try parseValue(depth: depth)
            } catch {
                throw error.inside(.key(key))
            }
            memberStack.push((key: key, value: value))
            keyPrints.append(print)
            skipWhitespace()
            guard index < count else {
                throw unexpected(at: index, expected: "expected ',' or '}'")
            }
            let b = byte(index)
            if b == 0x2C {  // ,
                let comma = index
                index &+= 1
                skipWhitespace()
                if index < count, byte(index) == 0x7D {
                    throw JSONReadFailure(offset: comma, reason: "trailing comma")
                }
            } else if b == 0x7D {  // }
                index &+= 1
                break
            } else {
                throw unexpected(at: index, expected: "expected ',' or '}'")
            }
        }
        keyPrints.removeLast(keyPrints.count &- start)
        return .object(JSONObject(members: memberStack.pop(from: start)))
    }

    /// Whether `key` is already a member of the object whose members start at `start`.
    ///
    /// Small objects scan their key fingerprints; past `linearKeyCheckLimit` members a set of
    /// byte-exact keys takes over, so a hostile line with thousands of keys stays linear.
    /// - Parameters:
    ///   - key: the new key, unescaped.
    ///   - print: the key's fingerprint (`JSONReader.fingerprint(_:)`).
    ///   - start: the object's first member in `memberStack`.
    ///   - seen: the object's key set, created once the object grows large.
    /// - Returns: `true` when the key repeats.
    mutating func isDuplicate(
        _ key: String, print: UInt64, membersFrom start: Int, seen: inout Set<ScalarKey>?
    ) -> Bool {
        let existing = memberStack.count &- start
        if existing <= JSONReader.linearKeyCheckLimit {
            for k in start..<keyPrints.count where keyPrints[k] == print {
                if JSONObject.sameScalars(memberStack[k].key, key) { return true }
            }
            return false
        }
        if seen == nil {
            var keys = Set<ScalarKey>(minimumCapacity: existing &* 2)
            for k in start..<memberStack.count { keys.insert(ScalarKey(memberStack[k].key)) }
            seen = keys
        }
        return seen?.insert(ScalarKey(key)).inserted == false
    }

    /// The failure for an unexpected byte at `offset`, or for the end of the input.
    ///
    /// Gives a sharper reason than `expected` when the byte explains itself: a `/` starts a
    /// comment, a byte above 0x7F that is not valid UTF-8 is reported as such.
    /// - Parameters:
    ///   - offset: where the unexpected byte is (or `count`).
    ///   - expected: the reason to give otherwise, such as `expected ',' or '}'`.
    /// - Returns: the failure.
    func unexpected(at offset: Int, expected: String) -> JSONReadFailure {
        guard offset < count else {
            return JSONReadFailure(offset: offset, reason: "unexpected end of input")
        }
        let b = byte(offset)
        if b == 0x2F {  // /
            return JSONReadFailure(offset: offset, reason: "comments are not JSON")
        }
        if b >= 0x80, utf8SequenceEnd(at: offset) == nil {
            return JSONReadFailure(offset: offset, reason: "invalid UTF-8")
        }
        return JSONReadFailure(offset: offset, reason: expected)
    }

    /// Whether `b` would continue a bare word or number (letters, digits, `_`, `.`, `+`, `-`).
    @inline(__always)
    static func continuesWord(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2E, 0x2B, 0x2D: true
        default: false
        }
    }
}

extension JSONReader {
    /// A key hashed and compared by its UTF-8 bytes, for duplicate checks in large objects.
    struct ScalarKey: Hashable {
        /// The key.
        let text: String

        /// Wraps a key.
        /// - Parameter text: the key, unescaped.
        init(_ text: String) { self.text = text }

        static func == (lhs: ScalarKey, rhs: ScalarKey) -> Bool {
            JSONObject.sameScalars(lhs.text, rhs.text)
        }

        func hash(into hasher: inout Hasher) {
            for b in text.utf8 { hasher.combine(b) }
        }
    }
}
