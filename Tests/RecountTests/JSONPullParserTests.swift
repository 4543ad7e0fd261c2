import Recount
import Testing

/// `JSONPullParser`: walking a document a member or element at a time gives the values
/// `JSONParser` gives, and its rejections carry the path walked.
@Suite struct JSONPullParserTests {
    /// Runs `body` on a parser over `text`.
    static func pull<T>(_ text: String, _ body: (inout JSONPullParser) throws -> T) throws -> T {
        var text = text
        return try text.withUTF8 { utf8 in
            var parser = try JSONPullParser(UnsafeRawBufferPointer(utf8))
            return try body(&parser)
        }
    }

    /// The members of the top-level object, each array member walked element by element.
    static func walk(_ text: String) throws -> [(key: String, values: [JSONValue])] {
        try pull(text) { parser in
            var members: [(key: String, values: [JSONValue])] = []
            try parser.enterObject()
            while let key = try parser.nextKey() {
                var values: [JSONValue] = []
                if parser.atArray() {
                    try parser.enterArray()
                    while try parser.nextElement() { values.append(try parser.value()) }
                } else {
                    values.append(try parser.value())
                }
                members.append((key, values))
            }
            try parser.finish()
            return members
        }
    }

    @Test func walkingGivesWhatTheParserGives() throws {
        let text = #" { "a" : [ {"x": 1.50}, [], "s\u00e9" , null ] , "b": {"c": [true]}, "e": [] } "#
        let members = try Self.walk(text)
        guard case .object(let whole) = try JSONParser.parse(text) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["a", "b", "e"])
        #expect(whole["a"] == .array(members[0].values))
        #expect(whole["b"] == members[1].values.first)
        #expect(members[2].values.isEmpty)
    }

    @Test func skippingReadsPastAValueAndChecksIt() throws {
        let last = try Self.pull(#"{"big": [[1, {"k": [2]}], {}], "last": 3}"#) { parser -> JSONValue? in
            try parser.enterObject()
            _ = try parser.nextKey()
            try parser.skipValue()
            _ = try parser.nextKey()
            let value = try parser.value()
            #expect(try parser.nextKey() == nil)
            try parser.finish()
            return value
        }
        #expect(last == .number(JSONNumber(3)))
        #expect(throws: JSONParseError.self) {
            try Self.pull(#"{"big": [1, [2,]]}"#) { parser in
                try parser.enterObject()
                _ = try parser.nextKey()
                try parser.skipValue()
            }
        }
    }

    @Test(arguments: [
        (#"{"a": [1, 2,]}"#, "trailing comma", "$.a[1]"),
        (#"{"a": [1 2]}"#, "expected ',' or ']'", "$.a[0]"),
        (#"{"a": [{"x": tru}]}"#, "invalid literal", "$.a[0].x"),
        (#"{"a": [1]} x"#, "trailing data after the value", "$"),
        (#"{"a" 1}"#, "expected ':'", "$.a"),
    ])
    func rejectionsNameThePath(text: String, reason: String, path: String) throws {
        do {
            _ = try Self.walk(text)
            Issue.record("accepted \(text)")
        } catch let error as JSONParseError {
            #expect(error.reason == reason)
            #expect(error.path == path)
        }
    }

    @Test func emptyInputAndByteOrderMarkAreRejected() {
        #expect(throws: JSONParseError.self) { try Self.pull("") { _ in } }
        #expect(throws: JSONParseError.self) { try Self.pull("\u{FEFF}[]") { _ in } }
    }
}
