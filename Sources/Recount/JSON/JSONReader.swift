/// The cursor behind `JSONParser`: raw bytes, an index, and an explicit stack of open
/// containers.
///
/// Parsing is a loop, not a recursion, so no input can exhaust the thread's stack. Open arrays
/// and objects are `frames`; their finished children wait on `values` (and, for objects, their
/// keys on `keys`) and are moved out into one exact-size array at the closing bracket. A failure
/// leaves the stacks as they were, so its JSON path is read straight from them. Every read is
/// bounds-checked by hand against `count` before it happens.
struct JSONReader: ~Copyable {
    /// An object key with its fingerprint, so duplicate checks compare integers and only look
    /// at a key's bytes when fingerprints match.
    struct Key {
        /// The key, unescaped.
        var text: String
        /// `JSONReader.fingerprint(_:)` of its bytes.
        var print: UInt64
    }

    /// An open array or object.
    struct Frame {
        /// Whether this is an object (else an array).
        var isObject: Bool
        /// Where this container's children start in `values`.
        var valueStart: Int
        /// Where this object's keys start in `keys`.
        var keyStart: Int
    }

    /// The first byte of the input.
    let base: UnsafeRawPointer
    /// The number of bytes in the input.
    let count: Int
    /// The deepest container nesting accepted.
    let maxDepth: Int
    /// The next byte to read.
    var index = 0
    /// Whether a failure now is inside the value being read in the innermost open container
    /// (its path then ends with that member's key or that element's index), rather than in the
    /// container's own syntax.
    var inValue = true
    /// Bytes of the string being unescaped.
    var scratch: [UInt8] = []
    /// The open containers, outermost first.
    var frames = JSONMoveStack<Frame>()
    /// Finished children of the open containers, innermost last.
    var values = JSONMoveStack<JSONValue>()
    /// Keys of the open objects, innermost last; an object's current key is its last one.
    var keys = JSONMoveStack<Key>()
    /// The key sets of open objects too large for a linear duplicate scan, by frame position.
    var keySets: [Int: Set<ScalarKey>] = [:]

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
    }

    /// The byte at `offset`, which must be below `count`.
    @inline(__always)
    func byte(_ offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// Parses the whole input as one value surrounded by optional whitespace.
    /// - Returns: the value.
    /// - Throws: `JSONParseError` for anything but exactly one valid value.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        do throws(JSONReadFailure) {
            if count >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF {
                throw JSONReadFailure(.syntax, offset: 0, reason: "byte order mark")
            }
            skipWhitespace()
            guard index < count else {
                throw JSONReadFailure(.syntax, offset: index, reason: "empty input")
            }
            let value = try parseTree()
            skipWhitespace()
            guard index == count else {
                throw JSONReadFailure(.syntax, offset: index, reason: "trailing data after the value")
            }
            return value
        } catch {
            throw JSONParseError(error.code, offset: error.offset, path: path(), reason: error.reason)
        }
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

    /// Parses one value with everything nested in it, starting at the next non-whitespace byte.
    ///
    /// Each turn of the outer loop reads one value: a scalar or empty container completes it, an
    /// opening bracket pushes a frame and goes on to the first child. The inner loop then hands
    /// the completed value to its container and reads what follows: a comma leads to the next
    /// child, a closing bracket completes the container as a value in turn.
    /// - Returns: the value; `index` is just past it.
    /// - Throws: `JSONReadFailure` at the first byte that breaks the grammar; the stacks are left
    ///   as they were, for `path()`.
    mutating func parseTree() throws(JSONReadFailure) -> JSONValue {
        while true {
            inValue = true
            skipWhitespace()
            guard index < count else { throw unexpected(at: index, expected: "expected a value") }
            var value: JSONValue
            switch byte(index) {
            case 0x22:  // "
                value = .string(try parseString())
            case 0x7B:  // {
                guard frames.count < maxDepth else { throw tooDeep(at: index) }
                index &+= 1
                skipWhitespace()
                if index < count, byte(index) == 0x7D {  // }
                    index &+= 1
                    value = .object(JSONObject())
                } else {
                    frames.push(
                        Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    inValue = false
                    try parseMemberKey()
                    continue
                }
            case 0x5B:  // [
                guard frames.count < maxDepth else { throw tooDeep(at: index) }
                index &+= 1
                skipWhitespace()
                if index < count, byte(index) == 0x5D {  // ]
                    index &+= 1
                    value = .array([])
                } else {
                    frames.push(
                        Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue
                }
            case 0x2D, 0x30...0x39:  // - 0-9
                value = .number(try parseNumber())
            case 0x74:
                try parseLiteral("true")
                value = .bool(true)
            case 0x66:
                try parseLiteral("false")
                value = .bool(false)
            case 0x6E:
                try parseLiteral("null")
                value = .null
            case 0x2B, 0x2E, 0x4E, 0x49:  // + . N(aN) I(nfinity)
                throw JSONReadFailure(.syntax, offset: index, reason: "number is not valid JSON")
            case 0x27:  // '
                throw JSONReadFailure(.syntax, offset: index, reason: "strings must use double quotes")
            default:
                throw unexpected(at: index, expected: "expected a value")
            }

            completing: while true {
                guard frames.count > 0 else { return value }
                inValue = false
                values.push(value)
                let frame = frames[frames.count &- 1]
                let close: UInt8 = frame.isObject ? 0x7D : 0x5D  // } ]
                skipWhitespace()
                guard index < count else {
                    throw unexpected(at: index, expected: JSONReader.expectation(frame))
                }
                let b = byte(index)
                if b == 0x2C {  // ,
                    let comma = index
                    index &+= 1
                    skipWhitespace()
                    if index < count, byte(index) == close {
                        throw JSONReadFailure(.syntax, offset: comma, reason: "trailing comma")
                    }
                    if frame.isObject { try parseMemberKey() }
                    break completing
                } else if b == close {
                    index &+= 1
                    value =
                        frame.isObject
                        ? .object(popMembers(of: frame))
                        : .array(values.pop(from: frame.valueStart))
                    frames.truncate(to: frames.count &- 1)
                } else {
                    throw unexpected(at: index, expected: JSONReader.expectation(frame))
                }
            }
        }
    }

    /// What may follow a child of `frame`, for failures.
    static func expectation(_ frame: Frame) -> String {
        frame.isObject ? "expected ',' or '}'" : "expected ',' or ']'"
    }

    /// Reads a member's key and colon in the innermost (object) frame and pushes the key.
    /// - Throws: `JSONReadFailure` for a missing or malformed key, a repeated key (then with the
    ///   repeat's path), or a missing colon.
    mutating func parseMemberKey() throws(JSONReadFailure) {
        guard index < count, byte(index) == 0x22 else {
            if index < count, byte(index) == 0x27 {
                throw JSONReadFailure(.syntax, offset: index, reason: "strings must use double quotes")
            }
            throw unexpected(at: index, expected: "expected a string key")
        }
        let keyOffset = index
        let (key, print) = try parseKey()
        let duplicate = isDuplicate(key, print: print)
        keys.push(Key(text: key, print: print))
        if duplicate {
            inValue = true
            throw JSONReader.duplicateKey(key, at: keyOffset)
        }
        skipWhitespace()
        guard index < count, byte(index) == 0x3A else {  // :
            throw unexpected(at: index, expected: "expected ':'")
        }
        index &+= 1
    }

    /// Moves the innermost object's keys and values out into its member array.
    /// - Parameter frame: the innermost frame, an object with at least one member.
    /// - Returns: the members in input order.
    mutating func popMembers(of frame: Frame) -> JSONObject {
        let memberCount = keys.count &- frame.keyStart
        if !keySets.isEmpty { keySets[frames.count &- 1] = nil }
        guard memberCount > 0, values.count &- frame.valueStart == memberCount else {
            return JSONObject()
        }
        let keyBase = keys.address(of: frame.keyStart)
        let valueBase = values.address(of: frame.valueStart)
        let members = [JSONObject.Member](unsafeUninitializedCapacity: memberCount) {
            buffer, initialized in
            guard let target = buffer.baseAddress else { return }
            for k in 0..<memberCount {
                let key = (keyBase + k).move()
                (target + k).initialize(to: JSONObject.Member(key: key.text, value: (valueBase + k).move()))
            }
            initialized = memberCount
        }
        keys.forget(from: frame.keyStart)
        values.forget(from: frame.valueStart)
        return JSONObject(members: members)
    }

    /// Whether `key` is already a key of the innermost object.
    ///
    /// Small objects scan their key fingerprints; past `linearKeyCheckLimit` members a set of
    /// byte-exact keys takes over, so a hostile line with thousands of keys stays linear.
    /// - Parameters:
    ///   - key: the new key, unescaped.
    ///   - print: the key's fingerprint (`JSONReader.fingerprint(_:)`).
    /// - Returns: `true` when the key repeats.
    mutating func isDuplicate(_ key: String, print: UInt64) -> Bool {
        let position = frames.count &- 1
        let start = frames[position].keyStart
        let existing = keys.count &- start
        if existing <= JSONReader.linearKeyCheckLimit {
            for k in start..<keys.count where keys.address(of: k).pointee.print == print {
                if JSONObject.sameScalars(keys[k].text, key) { return true }
            }
            return false
        }
        if keySets[position] == nil {
            var set = Set<ScalarKey>(minimumCapacity: existing &* 2)
            for k in start..<keys.count { set.insert(ScalarKey(keys[k].text)) }
            keySets[position] = set
        }
        return keySets[position]?.insert(ScalarKey(key)).inserted == false
    }

    /// The JSON path of the value being read, from the open frames (`$` at the root).
    ///
    /// An enclosing container contributes the step to the child that is still open inside it;
    /// the innermost one contributes its current step only when the failure is `inValue`.
    /// Plain keys (ASCII letters, digits, `_`, `-`) are written bare (`window.from`), others as
    /// JSON strings in brackets (`metadata["com.apple.x"]`, `$[""]`).
    func path() -> String {
        var path: [UInt8] = []
        let depth = frames.count
        for position in 0..<depth {
            let innermost = position == depth &- 1
            if innermost && !inValue { break }
            let frame = frames[position]
            if frame.isObject {
                let keyIndex = (innermost ? keys.count : frames[position &+ 1].keyStart) &- 1
                guard keyIndex >= frame.keyStart else { break }
                let key = keys[keyIndex].text
                if JSONReader.isPlainName(key) {
                    if !path.isEmpty { path.append(0x2E) }  // .
                    path.append(contentsOf: key.utf8)
                } else {
                    if path.isEmpty { path.append(0x24) }  // $
                    path.append(0x5B)
                    JSONWriter.writeString(key, into: &path)
                    path.append(0x5D)
                }
            } else {
                let element =
                    (innermost ? values.count : frames[position &+ 1].valueStart)
                    &- frame.valueStart
                if path.isEmpty { path.append(0x24) }
                path.append(contentsOf: "[\(element)]".utf8)
            }
        }
        return path.isEmpty ? "$" : String(decoding: path, as: UTF8.self)
    }

    /// Whether a key can stand in a path unquoted: non-empty ASCII letters, digits, `_` and `-`.
    /// - Parameter key: an object key.
    static func isPlainName(_ key: String) -> Bool {
        !key.isEmpty
            && key.utf8.allSatisfy { b in
                switch b {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2D: true
                default: false
                }
            }
    }

    /// The failure for a container nested deeper than `maxDepth`.
    /// - Parameter offset: the container's opening bracket.
    @inline(never)
    func tooDeep(at offset: Int) -> JSONReadFailure {
        JSONReadFailure(.tooDeep, offset: offset, reason: "nesting deeper than \(maxDepth)")
    }

    /// The failure for a key that repeats within one object.
    /// - Parameters:
    ///   - key: the key, unescaped.
    ///   - offset: the repeated key's opening quote.
    @inline(never)
    static func duplicateKey(_ key: String, at offset: Int) -> JSONReadFailure {
        var reason: [UInt8] = Array("duplicate key ".utf8)
        JSONWriter.writeString(key, into: &reason)
        return JSONReadFailure(.duplicateKey, offset: offset, reason: String(decoding: reason, as: UTF8.self))
    }

    /// Parses `true`, `false` or `null`, which must not run on into further letters or digits.
    /// - Parameter word: the literal expected at `index`.
    /// - Throws: `JSONReadFailure` ("invalid literal") when the bytes differ.
    @inline(never)
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

    /// The failure for an unexpected byte at `offset`, or for the end of the input.
    ///
    /// Gives a sharper reason than `expected` when the byte explains itself: a `/` starts a
    /// comment, a byte above 0x7F that is not valid UTF-8 is reported as such.
    /// - Parameters:
    ///   - offset: where the unexpected byte is (or `count`).
    ///   - expected: the reason to give otherwise, such as `expected ',' or '}'`.
    /// - Returns: the failure.
    @inline(never)
    func unexpected(at offset: Int, expected: String) -> JSONReadFailure {
        guard offset < count else {
            return JSONReadFailure(.syntax, offset: offset, reason: "unexpected end of input")
        }
        let b = byte(offset)
        if b == 0x2F {  // /
            return JSONReadFailure(.syntax, offset: offset, reason: "comments are not JSON")
        }
        if b >= 0x80, utf8SequenceEnd(at: offset) == nil {
            return JSONReadFailure(.invalidUTF8, offset: offset, reason: "invalid UTF-8")
        }
        return JSONReadFailure(.syntax, offset: offset, reason: expected)
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
