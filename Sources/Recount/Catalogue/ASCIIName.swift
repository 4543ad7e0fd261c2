/// A compile-time ASCII name compared against raw input bytes without allocating.
///
/// The catalogue matches type names and unit symbols straight from the bytes of an envelope, so the
/// ingest path never builds a `String` just to look a name up.
struct ASCIIName: Sendable {
    /// The name's text.
    let text: StaticString

    /// Creates a name from a string literal.
    init(_ text: StaticString) {
        self.text = text
    }

    /// The name's length in bytes.
    var count: Int { text.utf8CodeUnitCount }

    /// The name as a `String`.
    var string: String { text.description }

    /// Whether `bytes` holds exactly this name (case-sensitive).
    /// - Parameter bytes: the candidate bytes, without quotes.
    /// - Returns: `true` when lengths and every byte match.
    @inline(__always)
    func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { name in
            var i = 0
            while i < name.count {
                if bytes[i] != name[i] { return false }
                i &+= 1
            }
            return true
        }
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes, copying only when the string is not contiguous.
    @inline(__always)
    func withRawUTF8<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var copy = self
        return try copy.withUTF8 { utf8 in Result { () throws(E) in try body(UnsafeRawBufferPointer(utf8)) } }.get()
    }
}
