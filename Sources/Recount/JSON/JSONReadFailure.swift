/// A rejection inside `JSONReader`: where and why. `JSONReader.parseDocument()` adds the JSON
/// path, read from its stacks, to make the public `JSONParseError`.
struct JSONReadFailure: Error {
    /// The byte offset of the problem.
    var offset: Int
    /// The short reason.
    var reason: String
}
