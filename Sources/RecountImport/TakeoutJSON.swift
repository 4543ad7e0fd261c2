import Foundation

/// Reading the JSON files of a Takeout with Foundation's `JSONSerialization` (the files are
/// small; ingest's own parser is for NDJSON envelopes), and coercing their loosely typed fields:
/// Fitbit writes many numbers as strings (`"value" : "4110"`).
enum TakeoutJSON {
    /// The top-level value of a file.
    /// - Throws: `ImportError.malformedJSON` naming the file.
    static func value(of file: ExportFiles.File, in export: ExportFiles) throws(ImportError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: file.data, options: [.fragmentsAllowed])
        } catch {
            throw ImportError(
                code: .malformedJSON, path: "\(export.name): \(file.path)", message: "not JSON (\(error))")
        }
    }

    /// The top-level array of a file.
    /// - Throws: `ImportError.malformedJSON` when the file is not JSON or not an array.
    static func array(of file: ExportFiles.File, in export: ExportFiles) throws(ImportError) -> [Any] {
        guard let array = try value(of: file, in: export) as? [Any] else {
            throw ImportError(
                code: .malformedJSON, path: "\(export.name): \(file.path)",
                message: "expected a JSON array of records")
        }
        return array
    }

    /// The top-level object of a file.
    /// - Throws: `ImportError.malformedJSON` when the file is not JSON or not an object.
    static func object(of file: ExportFiles.File, in export: ExportFiles) throws(ImportError) -> [String: Any] {
        guard let object = try value(of: file, in: export) as? [String: Any] else {
            throw ImportError(
                code: .malformedJSON, path: "\(export.name): \(file.path)", message: "expected a JSON object")
        }
        return object
    }

    /// A finite number written as a JSON number or as a decimal string.
    static func number(_ value: Any?) -> Double? {
        let number: Double?
        if let text = value as? String {
            number = Double(text.trimmingCharacters(in: .whitespaces))
        } else if let value = value as? NSNumber {
            number = value.doubleValue
        } else {
            number = nil
        }
        guard let number, number.isFinite else { return nil }
        return number
    }

    /// An integer written as a JSON integer or as a string of digits (exact for 64-bit values).
    static func integer(_ value: Any?) -> Int64? {
        if let text = value as? String { return Int64(text) }
        guard let value = value as? NSNumber else { return nil }
        let integer = value.int64Value
        return Double(integer) == value.doubleValue ? integer : nil
    }

    /// A string field.
    static func string(_ value: Any?) -> String? {
        value as? String
    }
}
