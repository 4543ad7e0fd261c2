import Foundation
import Recount

/// Reading the JSON files of a Takeout with the package's own parser, a record at a time
/// (`JSONPullParser`: a Google Fit stream file can be hundreds of megabytes of data points, so
/// only one point is ever built as a tree), and coercing their loosely typed fields: Fitbit
/// writes many numbers as strings (`"value" : "4110"`).
enum TakeoutJSON {
    /// Reads a file with a pull parser.
    /// - Parameters:
    ///   - file: the file.
    ///   - export: its export, for error paths.
    ///   - read: reads the file from the start; a `JSONParseError` it lets out names the file.
    /// - Returns: what `read` returned.
    /// - Throws: `ImportError.malformedJSON` naming the file, or what `read` threw.
    static func read<Result>(
        _ file: ExportFiles.File, in export: ExportFiles, _ read: (inout JSONPullParser) throws -> Result
    ) throws -> Result {
        do {
            return try withJSONBytes(of: file) { bytes in
                var parser = try JSONPullParser(bytes)
                return try read(&parser)
            }
        } catch let error as JSONParseError {
            throw notJSON(file, in: export, error)
        }
    }

    /// The file's bytes after a leading UTF-8 byte order mark, if any: editors on Windows add
    /// one when a file is saved again, and RFC 8259 lets a parser ignore it.
    private static func withJSONBytes<R>(
        of file: ExportFiles.File, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try file.data.withUnsafeBytes { bytes in
            let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            return try body(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// Reads the array at the parser one element at a time.
    /// - Parameters:
    ///   - parser: a parser at the array.
    ///   - file: the file, for the error.
    ///   - export: its export.
    ///   - body: receives each element's 0-based index and value.
    /// - Returns: the number of elements.
    /// - Throws: `ImportError.malformedJSON` when the value is not an array, `JSONParseError`
    ///   when it is not JSON, or what `body` threw.
    static func forEachElement(
        _ parser: inout JSONPullParser, of file: ExportFiles.File, in export: ExportFiles,
        _ body: (Int, JSONValue) throws -> Void
    ) throws -> Int {
        guard parser.atArray() else {
            throw ImportError(
                code: .malformedJSON, path: "\(export.name): \(file.path)", message: "expected a JSON array of records")
        }
        try parser.enterArray()
        var count = 0
        while try parser.nextElement() {
            try body(count, try parser.value())
            count += 1
        }
        return count
    }

    /// Reads the top-level array of a file one element at a time.
    /// - Parameters:
    ///   - file: the file.
    ///   - export: its export.
    ///   - body: receives each element's 0-based index and value.
    /// - Returns: the number of elements.
    /// - Throws: `ImportError.malformedJSON` when the file is not JSON or not an array, or what
    ///   `body` threw.
    static func forEachElement(
        of file: ExportFiles.File, in export: ExportFiles, _ body: (Int, JSONValue) throws -> Void
    ) throws -> Int {
        try read(file, in: export) { parser in
            let count = try forEachElement(&parser, of: file, in: export, body)
            try parser.finish()
            return count
        }
    }

    /// The top-level object of a (small) file.
    /// - Throws: `ImportError.malformedJSON` when the file is not JSON or not an object.
    static func object(of file: ExportFiles.File, in export: ExportFiles) throws(ImportError) -> JSONObject {
        let value: JSONValue
        do {
            value = try withJSONBytes(of: file) { bytes in try JSONParser.parse(bytes) }
        } catch let error as JSONParseError {
            throw notJSON(file, in: export, error)
        } catch {
            throw ImportError(code: .malformedJSON, path: "\(export.name): \(file.path)", message: "\(error)")
        }
        guard let object = object(value) else {
            throw ImportError(
                code: .malformedJSON, path: "\(export.name): \(file.path)", message: "expected a JSON object")
        }
        return object
    }

    /// The error for a file that is not JSON.
    private static func notJSON(_ file: ExportFiles.File, in export: ExportFiles, _ error: JSONParseError)
        -> ImportError
    {
        ImportError(
            code: .malformedJSON, path: "\(export.name): \(file.path)",
            message: "not JSON (\(error.reason) at \(error.path), byte \(error.offset))")
    }

    /// A finite number written as a JSON number or as a decimal string.
    static func number(_ value: JSONValue?) -> Double? {
        let number: Double?
        switch value {
        case .string(let text): number = DecimalText.double(text.trimmingCharacters(in: .whitespaces))
        case .number(let value): number = value.double
        default: number = nil
        }
        guard let number, number.isFinite else { return nil }
        return number
    }

    /// An integer written as a JSON integer (or a number with an integral value) or as a string
    /// of digits (exact for 64-bit values).
    static func integer(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text): Int64(text)
        case .number(let number): number.int64 ?? Int64(exactly: number.double)
        default: nil
        }
    }

    /// A string field.
    static func string(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value else { return nil }
        return text
    }

    /// An object field.
    static func object(_ value: JSONValue?) -> JSONObject? {
        guard case .object(let object)? = value else { return nil }
        return object
    }

    /// An array field.
    static func array(_ value: JSONValue?) -> [JSONValue]? {
        guard case .array(let array)? = value else { return nil }
        return array
    }
}
