internal import Glibc

/// Where one JSON value lies in the bytes it was read from, and what kind it is.
struct JSONSpan {
    enum Kind: UInt8 {
        /// No value (a field left out).
        case absent
        /// A string without escapes; the span is its content, without the quotes.
        case string
        /// Any other value (a string with escapes, a number, a literal, an array or an object);
        /// the span is its whole JSON text.
        case other
    }

    var kind = Kind.absent
    var start: Int32 = 0
    var end: Int32 = 0

    /// The span's bytes in `bytes`.
    func text(in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[Int(start)..<Int(end)])
    }

    /// The value the span holds, parsed again from `bytes` (which it was read from, so it is
    /// valid JSON).
    func value(in bytes: UnsafeRawBufferPointer) -> JSONValue {
        let text = text(in: bytes)
        if kind == .string { return .string(String(decoding: text, as: UTF8.self)) }
        guard let base = text.baseAddress else { return .null }
        var reader = JSONReader(base: base, count: text.count, maxDepth: EnvelopeLimits.depth)
        if JSONReader.startsNumber(text[0]) { return (try? reader.parseNumber()).map { .number($0) } ?? .null }
        return (try? reader.parseTree()) ?? .null
    }
}

extension JSONReader {
    /// The reader's input.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Consumes `byte` when it is next.
    mutating func next(is byte: UInt8) -> Bool {
        guard index < count, self.byte(index) == byte else { return false }
        index &+= 1
        return true
    }

    /// Consumes a `,` (returns `true`) or the closing `close` (returns `false`); anything else,
    /// or a trailing comma, fails.
    @inline(__always)
    mutating func nextSeparator(close: UInt8) throws(JSONReadFailure) -> Bool {
        if next(is: 0x2C) {
            skipWhitespace()
            guard index < count, byte(index) != close else {
                throw JSONReadFailure(.syntax, offset: index, reason: "trailing comma")
            }
            return true
        }
        guard next(is: close) else { throw JSONReadFailure(.syntax, offset: index, reason: "expected a separator") }
        return false
    }

    /// The span of the key at the reader when its bytes are exactly `name` in quotes (so it has
    /// no escapes), consumed; else `nil`, with nothing consumed.
    @inline(__always)
    mutating func quotedName(_ name: StaticString) -> JSONSpan? {
        let length = name.utf8CodeUnitCount
        let end = index &+ 1 &+ length
        guard end < count, byte(index) == 0x22, byte(end) == 0x22,
            memcmp(base + (index &+ 1), name.utf8Start, length) == 0
        else { return nil }
        defer { index = end &+ 1 }
        return JSONSpan(kind: .string, start: Int32(index &+ 1), end: Int32(end))
    }

    /// Checks the value at the reader and returns its span; only nested values build a tree.
    /// - Parameter openLevels: containers open around the value that this reader has not
    ///   counted, so a nested value gets only the depth the whole document has left.
    mutating func span(openLevels: Int) throws(JSONReadFailure) -> JSONSpan {
        guard index < count else { throw JSONReadFailure(.syntax, offset: index, reason: "expected a value") }
        let start = index
        switch byte(index) {
        case 0x22:
            if let end = try scanString() {
                return JSONSpan(kind: .string, start: Int32(start &+ 1), end: Int32(end))
            }
        case let byte where JSONReader.startsNumber(byte): _ = try scanNumber()
        case 0x7B, 0x5B:  // { [
            var nested = JSONReader(base: base, count: count, maxDepth: maxDepth - openLevels)
            nested.index = index
            _ = try nested.parseTree()
            index = nested.index
        default: _ = try parseTree()
        }
        return JSONSpan(kind: .other, start: Int32(start), end: Int32(index))
    }
}
