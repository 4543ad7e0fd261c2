/// Why one input line was rejected: the line, the JSON path of the field, and the reason.
public struct IngestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line number in its input.
    public var line: Int
    /// The JSON path of the offending field: `kind`, `added[3].end`, `$` for the whole line.
    public var path: String
    /// Why the line was rejected.
    public var reason: String

    package init(line: Int, path: String, reason: String) {
        self.line = line
        self.path = path
        self.reason = reason
    }

    /// `line 12: added[3].end is before start`.
    public var description: String { "line \(line): \(path) \(reason)" }
}

/// A rejection found while decoding one envelope, before the line number is known.
struct FieldError: Error {
    var path: String
    var reason: String
}
