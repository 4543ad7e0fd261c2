import Foundation
import Recount

/// Writes results as text for people or as JSON lines, with fields in a fixed order.
enum Output {
    /// A JSON value written with its keys in the order given.
    enum Value {
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)
        case null
    }

    /// Prints one JSON object with `fields` in order.
    static func jsonLine(_ fields: [(String, Value)]) {
        print("{" + fields.map { "\(EnvelopeJSON.quote($0.0)):\(encode($0.1))" }.joined(separator: ",") + "}")
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func encode(_ value: Value) -> String {
        switch value {
        case .string(let text): EnvelopeJSON.quote(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }
}
