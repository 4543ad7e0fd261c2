/// A JSON number: the literal exactly as written, and its value.
///
/// The literal is kept because JSON numbers are decimal and unbounded: `1.50` and `1.5` are the
/// same `Double` but not the same text, and `9223372036854775808` is no `Int64`. Writers copy the
/// literal back unchanged.
package struct JSONNumber: Equatable, Sendable {
    /// The number exactly as written, for example `1.50`, `-0` or `1e3`.
    package var literal: String
    /// The nearest `Double` (correctly rounded). It is `±infinity` when the literal overflows
    /// (`1e400`) and `±0` when it underflows; callers that need a finite value must check.
    package var double: Double
    /// Whether the literal has no fraction and no exponent (`1e3` and `1.0` are not integers).
    package var isInteger: Bool
    /// The value as an `Int64` when `isInteger` and it fits; `-0` gives `0`.
    package var int64: Int64?

    /// Creates a number from its parts; nothing is checked.
    ///
    /// Prefer `init(_:)` or `init?(literal:)`, which keep the parts consistent. `JSONWriter`
    /// writes `literal` as is, so it must be valid JSON number syntax.
    /// - Parameters:
    ///   - literal: the JSON text of the number.
    ///   - double: its value.
    ///   - isInteger: whether `literal` has no fraction and no exponent.
    ///   - int64: its value as an `Int64`, when it is an integer that fits.
    package init(literal: String, double: Double, isInteger: Bool, int64: Int64?) {
        self.literal = literal
        self.double = double
        self.isInteger = isInteger
        self.int64 = int64
    }

    /// Creates the number for an integer, written in decimal.
    /// - Parameter value: the integer.
    package init(_ value: Int64) {
        self.init(literal: String(value), double: Double(value), isInteger: true, int64: value)
    }

    /// Parses a number literal with the same rules as `JSONParser`.
    /// - Parameter literal: JSON number text such as `-12.5e3`, without surrounding whitespace.
    /// - Returns: the number, or `nil` when `literal` is not exactly one valid JSON number.
    package init?(literal: String) {
        guard case .number(let number)? = try? JSONParser.parse(literal),
            number.literal.utf8.count == literal.utf8.count
        else { return nil }
        self = number
    }
}
