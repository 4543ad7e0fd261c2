import Foundation
import TestSupport
import Testing

@testable import Recount

/// The strict JSON parser and writer: accepted values, each rejection class with its offset and
/// path, round trips, a seeded mutation fuzz, and a differential check against Foundation.
@Suite struct JSONParserTests {
    // MARK: Helpers

    /// Parses raw bytes, returning the value or the error.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 64) -> Result<JSONValue, JSONParseError> {
        bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(raw, maxDepth: maxDepth)
            }
        }
    }

    /// Parses text that must be valid.
    static func value(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> JSONValue
    {
        do {
            return try JSONParser.parse(text)
        } catch {
            Issue.record("rejected \(text): \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The error for bytes that must be rejected, or `nil` (recording an issue) when accepted.
    static func failure(_ bytes: [UInt8], maxDepth: Int = 64) -> JSONParseError? {
        switch parse(bytes, maxDepth: maxDepth) {
        case .success(let value):
            Issue.record("accepted \(String(decoding: bytes, as: UTF8.self)) as \(value)")
            return nil
        case .failure(let error): return error
        }
    }

    /// The number a text parses to, after checking that `JSONReader.parseDouble` (which builds
    /// no literal) reads the same `Double`, bit for bit.
    static func number(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONNumber {
        guard case .number(let number) = try value(text) else {
            Issue.record("\(text) is not a number")
            throw JSONParseError(.syntax, offset: 0, path: "$", reason: "not a number")
        }
        let double = try Array(text.utf8).withUnsafeBytes { bytes in
            var reader = JSONReader(base: bytes.baseAddress!, count: bytes.count, maxDepth: 1)
            return try reader.parseDouble()
        }
        #expect(double.bitPattern == number.double.bitPattern, "\(text)", sourceLocation: sourceLocation)
        return number
    }

    /// The seed for a randomised test: `RECOUNT_TEST_SEED` when set, else a fixed one per test.
    static func seed(for test: String) -> UInt64 {
        testSeed(test.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }, test)
    }

    // MARK: Accepted input

    @Test func parsesNestedEnvelope() throws {
        let line = """
            {"kind":"healthkit.delivery","user":"u1","anchor":null,"added":[{"id":"A-1",\
            "value":1234,"unit":"count","meta":{"HKWasUserEntered":true,"tags":[1,[2,[]],{}]}}],\
            "deleted":[]}
            """
        guard case .object(let root) = try Self.value(line) else {
            Issue.record("not an object")
            return
        }
        #expect(root.keys == ["kind", "user", "anchor", "added", "deleted"])
        #expect(root["kind"] == .string("healthkit.delivery"))
        #expect(root["anchor"] == .null)
        #expect(root["missing"] == nil)
        #expect(root["deleted"] == .array([]))
        guard case .array(let added)? = root["added"], case .object(let sample)? = added.first,
            case .object(let meta)? = sample["meta"]
        else {
            Issue.record("unexpected shape")
            return
        }
        #expect(sample["value"] == .number(JSONNumber(1234)))
        #expect(meta["HKWasUserEntered"] == .bool(true))
        #expect(
            meta["tags"]
                == .array([
                    .number(JSONNumber(1)), .array([.number(JSONNumber(2)), .array([])]),
                    .object(JSONObject()),
                ]))
    }

    @Test func acceptsWhitespaceAndScalarsAtTheRoot() throws {
        #expect(try Self.value(" \t\r\n{ \"a\" : [ 1 , 2 ] }\r\n") != .null)
        #expect(try Self.value("true") == .bool(true))
        #expect(try Self.value("false") == .bool(false))
        #expect(try Self.value(" null\n") == .null)
        #expect(try Self.value("\"x\"") == .string("x"))
        #expect(try Self.value("7") == .number(JSONNumber(7)))
    }

    @Test func decodesEscapes() throws {
        #expect(
            try Self.value(#""a\"b\\c\/d\be\ff\ng\rh\ti""#)
                == .string("a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti"))
        #expect(try Self.value(#""caf\u00e9""#) == .string("café"))
        #expect(try Self.value(#""\u00E9\u20AC""#) == .string("é€"))
        #expect(try Self.value(#""\uD83D\uDE00!""#) == .string("😀!"))
        #expect(try Self.value(#""\udbff\udfff""#) == .string("\u{10FFFF}"))
        #expect(try Self.value(#""nul\u0000byte""#) == .string("nul\u{0}byte"))
        #expect(try Self.value("\"raw é 日本 😀\"") == .string("raw é 日本 😀"))
        // Long strings cross the 8-byte scanning path at every alignment.
        for length in 0..<40 {
            let plain = String(repeating: "abcdefgh", count: 5).prefix(length)
            #expect(try Self.value("\"\(plain)\"") == .string(String(plain)))
            #expect(try Self.value("\"\(plain)\\n\(plain)\"") == .string("\(plain)\n\(plain)"))
            #expect(try Self.value("\"\(plain)é\(plain)\"") == .string("\(plain)é\(plain)"))
        }
    }

    /// Literal, expected double, isInteger, int64.
    static let numbers: [(String, Double, Bool, Int64?)] = [
        ("0", 0, true, 0),
        ("-0", -0.0, true, 0),
        ("1", 1, true, 1),
        ("-12", -12, true, -12),
        ("1e-7", 1e-7, false, nil),
        ("1.5E+3", 1500, false, nil),
        ("1E2", 100, false, nil),
        ("2.50", 2.5, false, nil),
        ("0.1", 0.1, false, nil),
        ("-0.0", -0.0, false, nil),
        ("0e0", 0, false, nil),
        ("123.456", 123.456, false, nil),
        ("9007199254740993", 9_007_199_254_740_992, true, 9_007_199_254_740_993),
        ("9223372036854775807", 9.223372036854775807e18, true, Int64.max),
        ("-9223372036854775808", -9.223372036854775808e18, true, Int64.min),
        ("9223372036854775808", 9.223372036854775808e18, true, nil),
        ("-9223372036854775809", -9.223372036854775809e18, true, nil),
        ("18446744073709551616", 18_446_744_073_709_551_616, true, nil),
        ("123456789012345678901234567890", 1.2345678901234568e29, true, nil),
        ("0.30000000000000004", 0.30000000000000004, false, nil),
        ("2.2250738585072014e-308", 2.2250738585072014e-308, false, nil),
        ("4.9e-324", .leastNonzeroMagnitude, false, nil),
        ("1.7976931348623157e308", 1.7976931348623157e308, false, nil),
        ("1e400", .infinity, false, nil),
        ("-1e400", -.infinity, false, nil),
        ("1e-400", 0, false, nil),
        ("0.0000000000000000000000000001", 1e-28, false, nil),
        ("1e99999999999999999999", .infinity, false, nil),
    ]

    @Test(arguments: numbers)
    func parsesNumbers(literal: String, double: Double, isInteger: Bool, int64: Int64?) throws {
        let number = try Self.number(literal)
        #expect(number.literal == literal)
        #expect(number.double.bitPattern == double.bitPattern, "\(number.double) vs \(double)")
        #expect(number.isInteger == isInteger)
        #expect(number.int64 == int64)
        #expect(JSONNumber(literal: literal) == number)
    }

    /// The fast paths must agree bit for bit with `Double(String)` (correctly rounded).
    @Test func numberFastPathsAreCorrectlyRounded() throws {
        var random = SplitMix64(seed: Self.seed(for: "numberFastPathsAreCorrectlyRounded"))
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...19, using: &random)
            var text = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &random)) }
                .joined()
            while text.count > 1, text.first == "0" { text.removeFirst() }
            if Bool.random(using: &random), text.count > 1 {
                let point = Int.random(in: 1..<text.count, using: &random)
                text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            } else if Bool.random(using: &random) {
                text =
                    "0." + String(repeating: "0", count: Int.random(in: 0...8, using: &random))
                    + text
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                text += "e\(Int.random(in: -30...30, using: &random))"
            }
            if Bool.random(using: &random) { text = "-" + text }
            let number = try Self.number(text)
            let expected = try #require(Double(text))
            #expect(number.double.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    // MARK: Rejected input

    /// Input, offset, path, code, reason.
    static let rejections: [(String, Int, String, JSONParseError.Code, String)] = [
        ("", 0, "$", .syntax, "empty input"),
        (" \n\t", 3, "$", .syntax, "empty input"),
        ("\u{FEFF}{}", 0, "$", .syntax, "byte order mark"),
        ("{\"a\":1} x", 8, "$", .syntax, "trailing data after the value"),
        ("{}{}", 2, "$", .syntax, "trailing data after the value"),
        ("1 2", 2, "$", .syntax, "trailing data after the value"),
        ("{\"a\":1,}", 6, "$", .syntax, "trailing comma"),
        ("[1,2,]", 4, "$", .syntax, "trailing comma"),
        ("{\"window\":{\"from\":1,}}", 19, "window", .syntax, "trailing comma"),
        ("{\"a\":01}", 6, "a", .syntax, "number is not valid JSON"),
        ("-01", 2, "$", .syntax, "number is not valid JSON"),
        ("+1", 0, "$", .syntax, "number is not valid JSON"),
        (".5", 0, "$", .syntax, "number is not valid JSON"),
        ("1.", 2, "$", .syntax, "number is not valid JSON"),
        ("[1.e5]", 3, "$[0]", .syntax, "number is not valid JSON"),
        ("1e", 2, "$", .syntax, "number is not valid JSON"),
        ("1e+", 3, "$", .syntax, "number is not valid JSON"),
        ("-", 1, "$", .syntax, "number is not valid JSON"),
        ("NaN", 0, "$", .syntax, "number is not valid JSON"),
        ("Infinity", 0, "$", .syntax, "number is not valid JSON"),
        ("-Infinity", 1, "$", .syntax, "number is not valid JSON"),
        ("0x1F", 1, "$", .syntax, "number is not valid JSON"),
        ("1.5.3", 3, "$", .syntax, "number is not valid JSON"),
        ("{\"a\":1 // note\n}", 7, "$", .syntax, "comments are not JSON"),
        ("/* c */ {}", 0, "$", .syntax, "comments are not JSON"),
        ("{'a':1}", 1, "$", .syntax, "strings must use double quotes"),
        ("['a']", 1, "$[0]", .syntax, "strings must use double quotes"),
        ("\"abc", 0, "$", .syntax, "unterminated string"),
        ("{\"a\":\"abc\\\"}", 5, "a", .syntax, "unterminated string"),
        ("\"abc\\", 0, "$", .syntax, "unterminated string"),
        ("{\"a\":\"b\u{1}\"}", 7, "a", .syntax, "control character in string"),
        ("[\"tab\there\"]", 5, "$[0]", .syntax, "control character in string"),
        ("\"line\nbreak\"", 5, "$", .syntax, "control character in string"),
        ("\"\\x\"", 1, "$", .syntax, "invalid escape"),
        ("\"\\U00e9\"", 1, "$", .syntax, "invalid escape"),
        ("\"\\'\"", 1, "$", .syntax, "invalid escape"),
        ("\"\\u12G4\"", 1, "$", .syntax, "invalid \\u escape"),
        ("\"\\u12\"", 1, "$", .syntax, "invalid \\u escape"),
        ("\"\\uD800\"", 1, "$", .loneSurrogate, "lone surrogate escape"),
        ("\"\\uDC00\"", 1, "$", .loneSurrogate, "lone surrogate escape"),
        ("\"\\uD800\\u0041\"", 1, "$", .loneSurrogate, "lone surrogate escape"),
        ("\"\\uD800\\uD800\"", 1, "$", .loneSurrogate, "lone surrogate escape"),
        ("\"a\\uDBFFz\"", 2, "$", .loneSurrogate, "lone surrogate escape"),
        ("\"\\uD800\\uZZZZ\"", 7, "$", .syntax, "invalid \\u escape"),
        ("{\"id\":1,\"id\":2}", 8, "id", .duplicateKey, "duplicate key \"id\""),
        ("{\"id\":1,\"\\u0069d\":2}", 8, "id", .duplicateKey, "duplicate key \"id\""),
        ("{\"added\":[{\"id\":\"a\",\"id\":\"b\"}]}", 20, "added[0].id", .duplicateKey, "duplicate key \"id\""),
        ("{\"a\\nb\":1,\"a\\u000ab\":2}", 10, "$[\"a\\nb\"]", .duplicateKey, "duplicate key \"a\\nb\""),
        (
            "{\"\":{\"x.y\":[{\"\":1,\"\":2}]}}", 18, "$[\"\"][\"x.y\"][0][\"\"]",
            .duplicateKey, "duplicate key \"\""
        ),
        ("{\"window\":{\"a b\":{\"end\":1,}}}", 25, "window[\"a b\"]", .syntax, "trailing comma"),
        ("{\"a\" 1}", 5, "$", .syntax, "expected ':'"),
        ("{\"a\":1 \"b\":2}", 7, "$", .syntax, "expected ',' or '}'"),
        ("[1 2]", 3, "$", .syntax, "expected ',' or ']'"),
        ("{1:2}", 1, "$", .syntax, "expected a string key"),
        ("{,}", 1, "$", .syntax, "expected a string key"),
        ("{\"a\":}", 5, "a", .syntax, "expected a value"),
        ("[1,,2]", 3, "$[1]", .syntax, "expected a value"),
        ("[é]", 1, "$[0]", .syntax, "expected a value"),
        ("tru", 0, "$", .syntax, "invalid literal"),
        ("truex", 0, "$", .syntax, "invalid literal"),
        ("[nul]", 1, "$[0]", .syntax, "invalid literal"),
        ("True", 0, "$", .syntax, "expected a value"),
        ("{\"a\":[1,2", 9, "a", .syntax, "unexpected end of input"),
        ("{\"a\"", 4, "$", .syntax, "unexpected end of input"),
        ("{", 1, "$", .syntax, "unexpected end of input"),
        ("[", 1, "$[0]", .syntax, "unexpected end of input"),
        (
            "{\"changes\":[{\"upsertion\":{\"start\":1e}}]}", 36, "changes[0].upsertion.start",
            .syntax, "number is not valid JSON"
        ),
    ]

    @Test(arguments: rejections)
    func rejects(text: String, offset: Int, path: String, code: JSONParseError.Code, reason: String) {
        guard let error = Self.failure(Array(text.utf8)) else { return }
        #expect(error == JSONParseError(code, offset: offset, path: path, reason: reason), "\(text)")
    }

    /// Byte sequences that are not UTF-8, each at offset 1 inside a string.
    static let invalidUTF8: [[UInt8]] = [
        [0xC0, 0xAF],  // overlong "/"
        [0xC1, 0xBF],  // overlong
        [0xE0, 0x80, 0xAF],  // overlong 3-byte
        [0xF0, 0x80, 0x80, 0xAF],  // overlong 4-byte
        [0xED, 0xA0, 0x80],  // UTF-8-encoded surrogate U+D800
        [0xED, 0xBF, 0xBF],  // UTF-8-encoded surrogate U+DFFF
        [0xF4, 0x90, 0x80, 0x80],  // U+110000
        [0xF5, 0x80, 0x80, 0x80],  // lead byte above F4
        [0xFF],
        [0x80],  // stray continuation byte
        [0xE2, 0x82],  // truncated €
        [0xF0, 0x9F, 0x98],  // truncated 😀
        [0xC3, 0x41],  // lead byte without continuation
    ]

    @Test(arguments: invalidUTF8)
    func rejectsInvalidUTF8InStrings(sequence: [UInt8]) {
        for prefix in ["\"", "\"0123456789abcdef"] {
            let bytes = Array(prefix.utf8) + sequence + Array("\"".utf8)
            guard let error = Self.failure(bytes) else { continue }
            #expect(error.code == .invalidUTF8)
            #expect(error.offset == prefix.utf8.count)
            #expect(error.path == "$")
        }
        // In a key, in an escaped string, and cut off by the end of the input.
        let key = Self.failure(Array("{\"".utf8) + sequence + Array("\":1}".utf8))
        #expect(key?.code == .invalidUTF8)
        #expect(key?.offset == 2)
        let escaped = Self.failure(Array("[\"\\n".utf8) + sequence + Array("\"]".utf8))
        #expect(escaped == JSONParseError(.invalidUTF8, offset: 4, path: "$[0]", reason: "invalid UTF-8"))
        let truncated = Self.failure(Array("\"".utf8) + sequence)
        #expect(truncated?.offset == 1)
        #expect(truncated?.code == .invalidUTF8)
    }

    @Test func rejectsInvalidUTF8OutsideStrings() {
        #expect(
            Self.failure([0x5B, 0xFF, 0x5D])
                == JSONParseError(.invalidUTF8, offset: 1, path: "$[0]", reason: "invalid UTF-8"))
        #expect(
            Self.failure([0x7B, 0xC3, 0x7D])
                == JSONParseError(.invalidUTF8, offset: 1, path: "$", reason: "invalid UTF-8"))
        #expect(
            Self.failure([0x5B, 0x31, 0xED, 0xA0, 0x80, 0x5D])
                == JSONParseError(.invalidUTF8, offset: 2, path: "$", reason: "invalid UTF-8"))
        #expect(Self.failure([0xEF, 0xBB])?.code == .invalidUTF8)
    }

    @Test func keysAreComparedByScalars() throws {
        // NFC and NFD spellings are different JSON keys (RFC 8259 compares code points).
        guard case .object(let object) = try Self.value("{\"é\":1,\"e\u{301}\":2}") else {
            Issue.record("not an object")
            return
        }
        #expect(object.members.count == 2)
        #expect(object["é"] == .number(JSONNumber(1)))
        #expect(object["e\u{301}"] == .number(JSONNumber(2)))
        #expect(JSONValue.string("é") != JSONValue.string("e\u{301}"))
    }

    @Test func findsDuplicatesInLargeObjects() throws {
        let members = (0..<200).map { "\"k\($0)\":\($0)" }
        let valid = "{" + members.joined(separator: ",") + "}"
        guard case .object(let object) = try Self.value(valid) else { return }
        #expect(object.members.count == 200)
        #expect(object["k199"] == .number(JSONNumber(199)))
        let duplicate = "{" + members.joined(separator: ",") + ",\"k\\u0031\":0}"
        let error = Self.failure(Array(duplicate.utf8))
        #expect(error?.code == .duplicateKey)
        #expect(error?.reason == "duplicate key \"k1\"")
        #expect(error?.path == "k1")
        #expect(error?.offset == valid.utf8.count)
    }

    @Test func limitsNesting() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(
            Self.failure(Array(deep.utf8))
                == JSONParseError(
                    .tooDeep, offset: 64, path: "$" + String(repeating: "[0]", count: 64),
                    reason: "nesting deeper than 64"))
        let objects =
            String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(
            Self.failure(Array(objects.utf8))
                == JSONParseError(
                    .tooDeep, offset: 320, path: Array(repeating: "a", count: 64).joined(separator: "."),
                    reason: "nesting deeper than 64"))
        #expect(Self.failure(Array("[[1]]".utf8), maxDepth: 1)?.code == .tooDeep)
        #expect(Self.failure(Array("[]".utf8), maxDepth: 0)?.offset == 0)
        #expect(try Self.parse(Array("1".utf8), maxDepth: 0).get() == .number(JSONNumber(1)))
        // An absurd maxDepth is capped, so hostile input cannot exhaust the stack.
        let hostile = Array(repeating: UInt8(ascii: "["), count: 100_000)
        let error = Self.failure(hostile, maxDepth: .max)
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == JSONParser.depthCeiling)
        let hostileObjects = Array(String(repeating: "{\"a\":", count: 100_000).utf8)
        let objectError = Self.failure(hostileObjects, maxDepth: .max)
        #expect(objectError?.reason == "nesting deeper than \(JSONParser.depthCeiling)")
        #expect(objectError?.offset == JSONParser.depthCeiling * 5)
    }

    @Test func offsetsAreRelativeToTheBufferGiven() throws {
        let file = Array("{\"kind\":1}\n{\"kind\":1,}\n".utf8)
        let error = file.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[11..<23]))
            }
        }
        #expect(error == .failure(JSONParseError(.syntax, offset: 9, path: "$", reason: "trailing comma")))
    }

    @Test func numberLiteralsAreCheckedWhole() {
        #expect(JSONNumber(literal: "-1.5e3")?.double == -1500)
        #expect(JSONNumber(literal: "12") == JSONNumber(12))
        for bad in ["", " 1", "1 ", "01", "1.", "+1", "NaN", "\"1\"", "[1]", "1,2"] {
            #expect(JSONNumber(literal: bad) == nil, "\(bad)")
        }
    }

    // MARK: Writer

    @Test func writesCompactText() throws {
        let text = "{ \"b\" : [1, 2.50, -0, 1E+3, true, null, \"\"], \"a\" : {}, \"c\": [] }"
        #expect(
            JSONWriter.string(try Self.value(text))
                == #"{"b":[1,2.50,-0,1E+3,true,null,""],"a":{},"c":[]}"#)
    }

    @Test func escapesStringsMinimally() {
        var out: [UInt8] = []
        JSONWriter.writeString("a\"b\\c/\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}é😀", into: &out)
        #expect(
            String(decoding: out, as: UTF8.self)
                == #""a\"b\\c/\n\r\t\b\f\u0000\u001f"# + "\u{7F}é😀\"")
        #expect(JSONWriter.string(.string("plain")) == "\"plain\"")
        #expect(
            JSONWriter.string(.object(JSONObject(members: [.init(key: "k\"", value: .null)])))
                == #"{"k\"":null}"#)
    }

    @Test func escapesAtEveryPositionOfAWord() throws {
        // The writer looks for bytes to escape eight at a time: put one at each offset.
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}"] {
            for offset in 0..<20 {
                let text = String(repeating: "a", count: offset) + special + String(repeating: "é~ ", count: 5)
                var out: [UInt8] = []
                JSONWriter.writeString(text, into: &out)
                #expect(try JSONParser.parse(String(decoding: out, as: UTF8.self)) == .string(text))
            }
        }
    }

    @Test func roundTripsGeneratedValues() throws {
        var random = SplitMix64(seed: Self.seed(for: "roundTripsGeneratedValues"))
        for _ in 0..<500 {
            let value = Generator.value(depth: 0, using: &random)
            let text = JSONWriter.string(value)
            let parsed = try JSONParser.parse(text)
            #expect(parsed == value, "\(text)")
            #expect(JSONWriter.string(parsed) == text)
        }
    }

    // MARK: Fuzz

    /// Valid envelopes the fuzzer mutates.
    static let envelopes: [String] = [
        #"{"kind":"healthkit.delivery","user":"u1","receivedAt":"2026-07-14T07:15:02Z","type":"HKQuantityTypeIdentifierStepCount","anchor":null,"newAnchor":"YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24=","added":[{"id":"8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-13T23:45:00-07:00","end":"2026-07-14T00:15:00-07:00","timeZone":"America/Los_Angeles","value":1234,"unit":"count","origin":"com.apple.health.8F1B2C3D","device":"Apple Watch","syncVersion":1}],"deleted":[]}"#,
        #"{"kind":"healthconnect.changes","user":"u2","token":"t-1","changes":[{"upsertion":{"id":"hc-1","type":"HeartRateRecord","start":"2026-07-14T08:00:00Z","end":"2026-07-14T08:01:00Z","value":71.5,"unit":"bpm","metadata":{"device":"Pixel \u00e9\ud83d\ude00","tags":["a\n","b\"",null,true,false,-0,1e-7,1.5E+3]}}},{"deletion":{"id":"hc-0"}}]}"#,
        #"{"kind":"checkin","user":"u3","window":{"from":"2026-07-01","to":"2026-07-14"},"counts":[0,1,2,3,4,5,6,7,8,9,10,9223372036854775807,123456789012345678901234567890],"note":"caf\u00e9 日本 😀","empty":{},"list":[[],[{}],[[[]]]]}"#,
        " [ 1 , \"x\" , { \"a\" : [ true , false , null ] } ]\r\n",
    ]

    /// Bytes the fuzzer inserts: structure, number and escape characters, whitespace, and bytes
    /// that start or break UTF-8 sequences.
    static let interestingBytes: [UInt8] =
        Array("{}[],:\"\\/'0123456789-+.eEtfnu \t\r\nxa".utf8) + [
            0x00, 0x01, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xC3, 0xE0, 0xED, 0xEF, 0xF0, 0xF4,
            0xF5, 0xFF,
        ]

    /// Applies one random mutation.
    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:  // truncate
            bytes.removeSubrange(position...)
        case 1:  // flip a bit
            if !bytes.isEmpty { bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random) }
        case 2:  // replace with an interesting byte
            if !bytes.isEmpty { bytes[position] = interestingBytes.randomElement(using: &random)! }
        case 3:  // insert interesting bytes
            let run = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                interestingBytes.randomElement(using: &random)!
            }
            bytes.insert(contentsOf: run, at: position)
        case 4:  // delete a range
            let end = min(bytes.count, position + Int.random(in: 1...8, using: &random))
            bytes.removeSubrange(position..<end)
        case 5:  // duplicate a range
            let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        default:  // replace with a random byte
            if !bytes.isEmpty { bytes[position] = UInt8.random(in: 0...255, using: &random) }
        }
    }

    @Test func fuzzedEnvelopesNeverCrash() throws {
        var random = SplitMix64(seed: Self.seed(for: "fuzzedEnvelopesNeverCrash"))
        var accepted = 0
        var rejected = 0
        var problems: [String] = []
        for iteration in 0..<20_000 {
            var bytes = Array(Self.envelopes[iteration % Self.envelopes.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                Self.mutate(&bytes, using: &random)
            }
            switch Self.parse(bytes) {
            case .success(let value):
                accepted += 1
                // Whatever is accepted must survive a write and re-parse unchanged.
                let text = JSONWriter.string(value)
                if (try? JSONParser.parse(text)) != value { problems.append("round trip: \(text)") }
            case .failure(let error):
                rejected += 1
                if error.offset < 0 || error.offset > bytes.count || error.reason.isEmpty
                    || error.path.isEmpty
                {
                    problems.append("\(error) for \(bytes)")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(accepted > 100)
        #expect(rejected > 10_000)
    }

    @Test func randomBytesNeverCrash() {
        var random = SplitMix64(seed: Self.seed(for: "randomBytesNeverCrash"))
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                Bool.random(using: &random)
                    ? Self.interestingBytes.randomElement(using: &random)!
                    : UInt8.random(in: 0...255, using: &random)
            }
            if case .failure(let error) = Self.parse(bytes) {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "\(bytes)")
            }
        }
    }

    // MARK: Differential

    @Test func agreesWithFoundation() throws {
        var random = SplitMix64(seed: Self.seed(for: "agreesWithFoundation"))
        for _ in 0..<400 {
            let value = Generator.value(depth: 0, using: &random, foundationSafe: true)
            let text = Generator.text(value, using: &random)
            let parsed = try JSONParser.parse(text)
            #expect(parsed == value, "\(text)")
            let reference = try JSONSerialization.jsonObject(
                with: Data(text.utf8), options: [.fragmentsAllowed])
            #expect(Self.matches(parsed, reference), "\(text)")
        }
    }

    /// Whether a parsed value equals what Foundation made of the same text.
    static func matches(_ value: JSONValue, _ reference: Any) -> Bool {
        switch value {
        case .null: return reference is NSNull
        case .bool(let flag):
            guard let number = reference as? NSNumber else { return false }
            return String(cString: number.objCType) == "c" && number.boolValue == flag
        case .number(let number):
            // Foundation keeps long decimals as `NSDecimalNumber`, whose `doubleValue` is not
            // correctly rounded: compare against the exact decimal it read instead.
            if let decimal = reference as? NSDecimalNumber {
                return Double(decimal.stringValue) == number.double
            }
            guard let other = reference as? NSNumber else { return false }
            if let int64 = number.int64, String(cString: other.objCType) == "q" {
                return other.int64Value == int64
            }
            return other.doubleValue == number.double
        case .string(let text):
            guard let other = reference as? String else { return false }
            return text.unicodeScalars.elementsEqual(other.unicodeScalars)
        case .array(let elements):
            guard let other = reference as? [Any], other.count == elements.count else {
                return false
            }
            return zip(elements, other).allSatisfy { matches($0, $1) }
        case .object(let object):
            guard let other = reference as? [String: Any], other.count == object.members.count
            else { return false }
            return object.members.allSatisfy { member in
                other[member.key].map { matches(member.value, $0) } ?? false
            }
        }
    }

    /// Random JSON values, and random (but valid) texts for them.
    enum Generator {
        static let keyPieces = ["id", "kind", "value", "é", "日本", "😀", "a b", "x\"y", "\\", "k"]
        static let stringPieces = [
            "a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é",
            "e\u{301}",
            "€", "日本", "😀", "\u{10FFFF}", "\u{FEFF}", "0123456789abcdef",
        ]

        /// A random value; `foundationSafe` keeps numbers in ranges Foundation reads exactly.
        static func value(depth: Int, using random: inout SplitMix64, foundationSafe: Bool = false)
            -> JSONValue
        {
            let limit = depth >= 4 ? 4 : 6
            switch Int.random(in: 0..<limit, using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .number(number(using: &random, foundationSafe: foundationSafe))
            case 3:
                // Foundation drops a U+FEFF that starts a string, so the differential leaves it out.
                let pieces =
                    foundationSafe ? stringPieces.filter { $0 != "\u{FEFF}" } : stringPieces
                return .string(string(from: pieces, using: &random))
            case 4:
                return .array(
                    (0..<Int.random(in: 0...5, using: &random)).map { _ in
                        value(depth: depth + 1, using: &random, foundationSafe: foundationSafe)
                    })
            default:
                var members: [JSONObject.Member] = []
                for _ in 0..<Int.random(in: 0...5, using: &random) {
                    let key = string(from: keyPieces, using: &random)
                    guard !members.contains(where: { Array($0.key.utf8) == Array(key.utf8) })
                    else { continue }
                    members.append(
                        JSONObject.Member(
                            key: key, value: value(depth: depth + 1, using: &random, foundationSafe: foundationSafe)))
                }
                return .object(JSONObject(members: members))
            }
        }

        static func string(from pieces: [String], using random: inout SplitMix64) -> String {
            (0..<Int.random(in: 0...4, using: &random)).map { _ in
                pieces.randomElement(using: &random)!
            }
            .joined()
        }

        static func number(using random: inout SplitMix64, foundationSafe: Bool) -> JSONNumber {
            let digits = String(
                UInt64.random(in: 1_000_000_000_000_000_000...UInt64.max, using: &random))
            var literal: String
            switch Int.random(in: 0..<6, using: &random) {
            case 0: literal = String(Int.random(in: -1000...1000, using: &random))
            case 1: literal = String(Int64.random(in: .min ... .max, using: &random))
            case 2:
                let cut = Int.random(in: 1...min(15, digits.count), using: &random)
                literal = String(digits.prefix(cut)) + "." + String(digits.dropFirst(cut).prefix(6))
                if literal.hasSuffix(".") { literal += "0" }
            case 3:
                literal =
                    "\(digits.prefix(1)).\(digits.dropFirst().prefix(16))e\(Int.random(in: -300...300, using: &random))"
            case 4:
                literal =
                    "0.\(String(repeating: "0", count: Int.random(in: 0...5, using: &random)))\(digits.prefix(9))"
            default:
                literal =
                    foundationSafe
                    ? "1e\(Int.random(in: -20...20, using: &random))" : digits + digits
            }
            if literal.hasPrefix("0"), literal.count > 1, !literal.hasPrefix("0.") {
                literal = "1" + literal
            }
            if Bool.random(using: &random), !literal.hasPrefix("-") { literal = "-" + literal }
            let isInteger = !literal.contains(where: { $0 == "." || $0 == "e" })
            return JSONNumber(
                literal: literal, double: Double(literal)!, isInteger: isInteger,
                int64: isInteger ? Int64(literal) : nil)
        }

        /// Valid JSON text for `value` with random whitespace and random escaping.
        static func text(_ value: JSONValue, using random: inout SplitMix64) -> String {
            var out = ""
            write(value, into: &out, using: &random)
            return out
        }

        static func space(_ out: inout String, using random: inout SplitMix64) {
            if Int.random(in: 0..<4, using: &random) == 0 {
                out += [" ", "\t", "\r\n", "  "].randomElement(using: &random)!
            }
        }

        static func write(
            _ value: JSONValue, into out: inout String, using random: inout SplitMix64
        ) {
            space(&out, using: &random)
            switch value {
            case .string(let text): quote(text, into: &out, using: &random)
            case .array(let elements):
                out += "["
                for (position, element) in elements.enumerated() {
                    if position > 0 { out += "," }
                    write(element, into: &out, using: &random)
                }
                space(&out, using: &random)
                out += "]"
            case .object(let object):
                out += "{"
                for (position, member) in object.members.enumerated() {
                    if position > 0 { out += "," }
                    space(&out, using: &random)
                    quote(member.key, into: &out, using: &random)
                    space(&out, using: &random)
                    out += ":"
                    write(member.value, into: &out, using: &random)
                }
                space(&out, using: &random)
                out += "}"
            default: out += JSONWriter.string(value)
            }
            space(&out, using: &random)
        }

        static func quote(_ text: String, into out: inout String, using random: inout SplitMix64) {
            out += "\""
            for scalar in text.unicodeScalars {
                let escape =
                    scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
                    || Int.random(in: 0..<8, using: &random) == 0
                guard escape else {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                let short: [Unicode.Scalar: String] = [
                    "\"": "\\\"", "\\": "\\\\", "/": "\\/", "\u{8}": "\\b", "\u{C}": "\\f",
                    "\n": "\\n", "\r": "\\r", "\t": "\\t",
                ]
                if let form = short[scalar], Bool.random(using: &random) {
                    out += form
                    continue
                }
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: Bool.random(using: &random))
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }
            out += "\""
        }
    }
}
