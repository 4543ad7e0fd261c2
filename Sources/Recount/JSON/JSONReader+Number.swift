extension JSONReader {
    /// Exact powers of ten as `Double`: every one up to 10^22 is representable.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses a number; `index` is at its `-` or first digit.
    ///
    /// Digits are folded into a 64-bit mantissa as they are checked against the grammar. The
    /// `Double` is then exact without `Double(String)` when it can be: an integer of at most 19
    /// digits converts with one rounding, and a mantissa up to 2^53 scaled by 10^k with
    /// |k| ≤ 22 is one correctly rounded multiplication or division of two exact values
    /// (Clinger's fast path). Everything else (long mantissas, large exponents) goes through
    /// `Double(String)`, which is correctly rounded.
    /// - Returns: the number; `index` is just past it.
    /// - Throws: `JSONReadFailure` ("number is not valid JSON") at the first offending byte.
    @inline(never)
    mutating func parseNumber() throws(JSONReadFailure) -> JSONNumber {
        let start = index
        let parts = try scanNumber()
        let text = UnsafeRawBufferPointer(start: base + start, count: index &- start)
        let literal = String(decoding: text, as: UTF8.self)
        var int64: Int64? = nil
        if !parts.truncated, parts.isInteger {
            if parts.negative {
                if parts.mantissa <= UInt64(Int64.max) &+ 1 { int64 = Int64(bitPattern: 0 &- parts.mantissa) }
            } else if parts.mantissa <= UInt64(Int64.max) {
                int64 = Int64(parts.mantissa)
            }
        }
        guard let double = JSONReader.double(parts, text: text) else { throw JSONReader.invalidNumber(at: start) }
        return JSONNumber(literal: literal, double: double, isInteger: parts.isInteger, int64: int64)
    }

    /// Parses a number as `parseNumber()` does, its `Double` alone: no literal is built when the
    /// fast paths give it (a sample's value is read this way, once per sample).
    mutating func parseDouble() throws(JSONReadFailure) -> Double {
        let start = index
        let parts = try scanNumber()
        let text = UnsafeRawBufferPointer(start: base + start, count: index &- start)
        guard let double = JSONReader.double(parts, text: text) else { throw JSONReader.invalidNumber(at: start) }
        return double
    }

    /// The nearest `Double` to the number `text` whose parts `scanNumber()` read: exact from the
    /// parts when it can be (see `parseNumber()`), else through `Double(String)`.
    private static func double(_ parts: NumberParts, text: UnsafeRawBufferPointer) -> Double? {
        let magnitude: Double
        if !parts.truncated, parts.isInteger {
            magnitude = Double(parts.mantissa)
        } else if !parts.truncated, let exact = exactDouble(parts.mantissa, parts.exponent &- parts.fractionDigits) {
            magnitude = exact
        } else {
            return Double(String(decoding: text, as: UTF8.self))
        }
        return parts.negative ? -magnitude : magnitude
    }

    /// What `scanNumber()` read of a number.
    struct NumberParts {
        var negative: Bool
        /// The first 19 significant digits as an integer.
        var mantissa: UInt64
        /// Whether digits beyond those 19 were dropped.
        var truncated: Bool
        var isInteger: Bool
        var fractionDigits: Int
        var exponent: Int
    }

    /// Checks a number against the grammar and folds its digits, without building its literal
    /// (the scan only needs to know where it ends); `index` is at its `-` or first digit.
    /// - Returns: its parts; `index` is just past it.
    /// - Throws: `JSONReadFailure` ("number is not valid JSON") at the first offending byte.
    mutating func scanNumber() throws(JSONReadFailure) -> NumberParts {
        let start = index
        var i = start
        let negative = byte(i) == 0x2D
        if negative { i &+= 1 }

        var mantissa: UInt64 = 0
        var significantDigits = 0
        var truncated = false
        @inline(__always) func fold(_ b: UInt8) {
            let digit = UInt64(b &- 0x30)
            if significantDigits < 19 {
                if mantissa != 0 || digit != 0 {
                    mantissa = mantissa &* 10 &+ digit
                    significantDigits &+= 1
                }
            } else {
                truncated = true
            }
        }

        guard i < count else { throw JSONReader.invalidNumber(at: i) }
        let first = byte(i)
        if first == 0x30 {
            i &+= 1
            if i < count, JSONReader.isDigit(byte(i)) { throw JSONReader.invalidNumber(at: i) }
        } else if first >= 0x31, first <= 0x39 {
            while i < count {
                let b = byte(i)
                guard JSONReader.isDigit(b) else { break }
                fold(b)
                i &+= 1
            }
        } else {
            throw JSONReader.invalidNumber(at: i)
        }

        var isInteger = true
        var fractionDigits = 0
        if i < count, byte(i) == 0x2E {  // .
            isInteger = false
            i &+= 1
            let fractionStart = i
            while i < count {
                let b = byte(i)
                guard JSONReader.isDigit(b) else { break }
                fold(b)
                i &+= 1
            }
            fractionDigits = i &- fractionStart
            guard fractionDigits > 0 else { throw JSONReader.invalidNumber(at: i) }
        }

        var exponent = 0
        if i < count, byte(i) | 0x20 == 0x65 {  // e E
            isInteger = false
            i &+= 1
            var exponentNegative = false
            if i < count, byte(i) == 0x2B || byte(i) == 0x2D {
                exponentNegative = byte(i) == 0x2D
                i &+= 1
            }
            guard i < count, JSONReader.isDigit(byte(i)) else {
                throw JSONReader.invalidNumber(at: i)
            }
            while i < count {
                let b = byte(i)
                guard JSONReader.isDigit(b) else { break }
                if exponent < 1_000_000 { exponent = exponent &* 10 &+ Int(b &- 0x30) }
                i &+= 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if i < count, JSONReader.continuesWord(byte(i)) { throw JSONReader.invalidNumber(at: i) }

        index = i
        return NumberParts(
            negative: negative, mantissa: mantissa, truncated: truncated, isInteger: isInteger,
            fractionDigits: fractionDigits, exponent: exponent)
    }

    /// `mantissa × 10^power` correctly rounded, when one exact operation gives it; else `nil`.
    /// - Parameters:
    ///   - mantissa: the decimal digits as an integer.
    ///   - power: the power of ten to scale by.
    @inline(__always)
    static func exactDouble(_ mantissa: UInt64, _ power: Int) -> Double? {
        if mantissa == 0 { return 0 }
        guard mantissa <= 1 << 53, power >= -22, power <= 22 else { return nil }
        let value = Double(mantissa)
        return power >= 0
            ? value * exactPowersOfTen[power] : value / exactPowersOfTen[-power]
    }

    /// The failure for a number that breaks the grammar at `offset`.
    @inline(never)
    static func invalidNumber(at offset: Int) -> JSONReadFailure {
        JSONReadFailure(.syntax, offset: offset, reason: "number is not valid JSON")
    }

    /// Whether `b` is an ASCII digit.
    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool {
        b &- 0x30 < 10
    }

    /// Whether `b` can start a number (`-` or a digit).
    @inline(__always)
    static func startsNumber(_ b: UInt8) -> Bool {
        b == 0x2D || isDigit(b)
    }
}
