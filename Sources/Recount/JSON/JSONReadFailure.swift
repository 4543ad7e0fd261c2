/// A rejection inside `JSONReader`: where and why. `JSONReader.parseDocument()` adds the JSON
/// path, read from its stacks, to make the public `JSONParseError`.
struct JSONReadFailure: Error {
    /// What kind of fault it is.
    var code: JSONParseError.Code
    /// The byte offset of the problem.
    var offset: Int
    /// The short reason.
    var reason: String

    init(_ code: JSONParseError.Code, offset: Int, reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }
}
