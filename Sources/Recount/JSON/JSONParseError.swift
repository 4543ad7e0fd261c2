/// Why a JSON text was rejected, and where.
package struct JSONParseError: Error, Equatable, Sendable {
    /// What kind of fault a text has, for callers that treat some differently.
    package enum Code: Equatable, Sendable {
        /// Not JSON's grammar: a stray byte, a missing separator, trailing data, an empty input.
        case syntax
        /// Bytes that are not UTF-8.
        case invalidUTF8
        /// A `\u` escape of half a surrogate pair.
        case loneSurrogate
        /// An object that names the same member twice.
        case duplicateKey
        /// Nesting deeper than the parser's limit.
        case tooDeep
    }

    /// What kind of fault it is.
    package var code: Code
    /// The byte offset in the input where the problem is (the offending byte, or the input's length
    /// when the input ends too early; an unterminated string points at its opening quote).
    package var offset: Int
    /// The JSON path of the value being parsed: `$` for the root, `kind` for a root member,
    /// `window.from`, `added[3].id`, `changes[0].upsertion`; an element of a root array is
    /// `$[2]`. Keys other than plain names (ASCII letters, digits, `_`, `-`) are written as JSON
    /// strings in brackets: `metadata["com.apple.x"]`, `$[""]`.
    package var path: String
    /// A short human-readable reason, such as `duplicate key "id"` or `unterminated string`.
    package var reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of fault it is.
    ///   - offset: the byte offset of the problem.
    ///   - path: the JSON path of the value being parsed.
    ///   - reason: a short description.
    package init(_ code: Code, offset: Int, path: String, reason: String) {
        self.code = code
        self.offset = offset
        self.path = path
        self.reason = reason
    }
}
