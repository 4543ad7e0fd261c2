/// A rejection on its way out of `JSONReader`: offset and reason, plus the path collected while
/// the recursion unwinds.
///
/// Collecting the path only on failure keeps the success path free of bookkeeping: each
/// container adds its step when an error passes through it.
struct JSONReadFailure: Error {
    /// One step of a JSON path.
    enum Step {
        /// An object member.
        case key(String)
        /// An array element.
        case index(Int)
    }

    /// The byte offset of the problem.
    var offset: Int
    /// The short reason.
    var reason: String
    /// The path steps, innermost first.
    var trail: [Step] = []

    /// Creates a failure at the root of whatever is being parsed.
    /// - Parameters:
    ///   - offset: the byte offset of the problem.
    ///   - reason: the short reason.
    init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// The same failure, seen from the container holding the failed value.
    /// - Parameter step: the member or element the failed value sits at.
    /// - Returns: the failure with `step` added to its path.
    consuming func inside(_ step: Step) -> JSONReadFailure {
        trail.append(step)
        return self
    }

    /// The public error, with the path written out: `changes[2].upsertion.start`, `$` for the
    /// root, `$[1]` inside a root array. A key that is not a plain name (ASCII letters, digits,
    /// `_`, `-`) is written in brackets as a JSON string: `metadata["com.apple.x"]`, `$[""]`.
    var parseError: JSONParseError {
        var path: [UInt8] = []
        for step in trail.reversed() {
            switch step {
            case .key(let key) where JSONReadFailure.isPlainName(key):
                if !path.isEmpty { path.append(0x2E) }  // .
                path.append(contentsOf: key.utf8)
            case .key(let key):
                if path.isEmpty { path.append(0x24) }  // $
                path.append(0x5B)
                JSONWriter.writeString(key, into: &path)
                path.append(0x5D)
            case .index(let index):
                if path.isEmpty { path.append(0x24) }
                path.append(contentsOf: "[\(index)]".utf8)
            }
        }
        return JSONParseError(
            offset: offset, path: path.isEmpty ? "$" : String(decoding: path, as: UTF8.self),
            reason: reason)
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
}
