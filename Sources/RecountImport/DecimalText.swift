/// A value as exports write it: decimal, with an optional sign, fraction and exponent (`72`,
/// `-0.5`, `.25`, `1e-05`). Swift's `Double(_:)` also reads hexadecimal (`0x10`, `0x1p4`),
/// `inf` and `nan`, and stops at a NUL; an export never means any of those as a value.
enum DecimalText {
    /// The finite value of `text` when it is a decimal number, else `nil`.
    static func double(_ text: some StringProtocol) -> Double? {
        guard isDecimal(text.utf8), let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Whether `bytes` are `[+-]digits[.digits]` or `[+-].digits`, then `[eE][+-]digits` or nothing.
    static func isDecimal(_ bytes: some Collection<UInt8>) -> Bool {
        var rest = bytes[...]
        func skipDigits() -> Int {
            let count = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            rest = rest.dropFirst(count)
            return count
        }
        if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { rest = rest.dropFirst() }
        var digits = skipDigits()
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            digits += skipDigits()
        }
        guard digits > 0 else { return false }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                rest = rest.dropFirst()
            }
            guard skipDigits() > 0 else { return false }
        }
        return rest.isEmpty
    }
}
