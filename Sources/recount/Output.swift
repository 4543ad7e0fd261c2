import Foundation

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
        print("{" + fields.map { "\(quote($0.0)):\(encode($0.1))" }.joined(separator: ",") + "}")
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func encode(_ value: Value) -> String {
        switch value {
        case .string(let text): quote(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
