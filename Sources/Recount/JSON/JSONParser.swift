/// A strict RFC 8259 JSON parser for one NDJSON line (or any single JSON text).
///
/// Everything RFC 8259 does not allow is rejected, each with a precise `JSONParseError`:
/// - empty or whitespace-only input (`empty input`), a leading UTF-8 BOM (`byte order mark`),
///   anything but whitespace after the value (`trailing data after the value`);
/// - invalid UTF-8 anywhere: overlong forms, UTF-16 surrogates encoded in UTF-8, code points above
///   U+10FFFF, stray continuation bytes, truncated sequences (`invalid UTF-8`);
/// - raw U+0000–U+001F inside strings (`control character in string`), unknown escapes
///   (`invalid escape`), malformed `\u` (`invalid \u escape`), unpaired surrogate escapes
///   (`lone surrogate escape`; a high surrogate followed by a low one combines);
/// - numbers outside the grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: `01`, `+1`,
///   `.5`, `1.`, `1e`, `NaN`, `Infinity`, `0x1F` (`number is not valid JSON`);
/// - trailing commas (`trailing comma`), comments (`comments are not JSON`), single quotes
///   (`strings must use double quotes`), bare words (`invalid literal`);
/// - a key repeated in one object, compared after unescaping (`duplicate key "id"`);
/// - containers nested deeper than `maxDepth` (`nesting deeper than 64`);
/// - anything else out of place: `expected a value`, `expected a string key`, `expected ':'`,
///   `expected ',' or '}'`, `expected ',' or ']'`, `unexpected end of input`.
///
/// Whitespace is space, tab, CR and LF only. Work is done on the raw bytes with an index; strings
/// without escapes become `String`s in one copy, and numbers take an exact fast path when the
/// result is provably correctly rounded.
package enum JSONParser {
    /// The deepest nesting any caller can ask for. The parser, `==` and `JSONWriter` use
    /// explicit stacks, but Swift destroys a nested value recursively (about 200 bytes of stack
    /// per level); this bound keeps that under 256 KB, inside any thread's stack.
    package static let depthCeiling = 1_000

    /// Parses one JSON text from its UTF-8 bytes.
    /// - Parameters:
    ///   - bytes: the text, for example one NDJSON line (a trailing `\n` or `\r\n` is whitespace).
    ///   - maxDepth: the deepest nesting of arrays and objects accepted; the root container is at
    ///     depth 1. Values above `depthCeiling` act as `depthCeiling`.
    /// - Returns: the value.
    /// - Throws: `JSONParseError` when the bytes are not exactly one valid JSON value.
    package static func parse(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64
    ) throws(JSONParseError) -> JSONValue {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(.syntax, offset: 0, path: "$", reason: "empty input")
        }
        var reader = JSONReader(
            base: base, count: bytes.count, maxDepth: min(maxDepth, depthCeiling))
        return try reader.parseDocument()
    }

    /// Parses one JSON text held in a `String` (convenient for tests and literals).
    /// - Parameters:
    ///   - text: the text.
    ///   - maxDepth: the deepest nesting of arrays and objects accepted.
    /// - Returns: the value.
    /// - Throws: `JSONParseError` when the text is not exactly one valid JSON value.
    package static func parse(_ text: String, maxDepth: Int = 64) throws(JSONParseError)
        -> JSONValue
    {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) -> JSONValue in
                try parse(UnsafeRawBufferPointer(utf8), maxDepth: maxDepth)
            }
        }
        return try result.get()
    }
}
