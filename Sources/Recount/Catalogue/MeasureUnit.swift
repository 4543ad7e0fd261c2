/// A unit accepted at ingest (contract §2), with its conversion to the metric's canonical unit.
///
/// The raw value is a stable code written into the binary log: **a code, once assigned, never
/// changes meaning and is never reused**; new units take new codes. Code 0 is deliberately unused
/// so that a stored 0 can mean "no unit" (sleep and workout samples).
package enum MeasureUnit: UInt8, CaseIterable, Sendable {
    /// `count` (steps).
    case count = 1
    /// `m`.
    case meter = 2
    /// `km`.
    case kilometer = 3
    /// `mi`, the international mile (1609.344 m).
    case mile = 4
    /// `ft`, the international foot (0.3048 m).
    case foot = 5
    /// `kcal`.
    case kilocalorie = 6
    /// `Cal`, the large (dietary) calorie: 1 Cal = 1 kcal.
    case largeCalorie = 7
    /// `kJ` (1 kcal = 4.184 kJ, thermochemical calorie).
    case kilojoule = 8
    /// `count/min`.
    case countPerMinute = 9
    /// `bpm`, the same as `count/min`.
    case beatsPerMinute = 10
    /// `kg`.
    case kilogram = 11
    /// `g`.
    case gram = 12
    /// `lb`, the avoirdupois pound (0.45359237 kg).
    case pound = 13
    /// `st`, the stone (14 lb = 6.35029318 kg).
    case stone = 14
    /// `mmol/L` (also Apple's molar-mass form `mmol<180.1558800000541>/L`).
    case mmolPerL = 15
    /// `mg/dL` (glucose: 1 mmol/L = 18.0156 mg/dL).
    case mgPerdL = 16
    /// `cm`.
    case centimeter = 17
    /// `mm`.
    case millimeter = 18
    /// `in`, the international inch (0.0254 m).
    case inch = 19
    /// `yd`, the international yard (0.9144 m).
    case yard = 20
    /// `J` (1 kcal = 4184 J, thermochemical calorie).
    case joule = 21
    /// `oz`, the avoirdupois ounce (1/16 lb = 0.028349523125 kg).
    case ounce = 22
    /// `count/s` (60 count/min).
    case countPerSecond = 23

    /// What a unit measures; a unit is valid for a metric of the same dimension.
    package enum Dimension: UInt8, Sendable, Hashable {
        case count
        case length
        case energy
        case frequency
        case mass
        case bloodGlucoseConcentration
    }

    /// Creates a unit from its symbol; see `parse(_:)` for what is accepted.
    /// - Parameter symbol: the `unit` field of a sample.
    package init?(symbol: String) {
        guard let unit = MeasureUnit.parse(symbol) else { return nil }
        self = unit
    }

    /// Parses a unit symbol: exactly one of the symbols in `symbol` (case-sensitive), or Apple's
    /// molar-mass glucose form `mmol<number>/L` (digits, optionally a dot and more digits) as
    /// `.mmolPerL`.
    ///
    /// The molar-mass form collapses onto `.mmolPerL`, so a caller that must keep the original text
    /// keeps the input string itself.
    /// - Parameter symbol: the `unit` field of a sample.
    /// - Returns: the unit, or `nil` when the symbol is not accepted.
    package static func parse(_ symbol: String) -> MeasureUnit? {
        symbol.withRawUTF8 { parse(bytes: $0) }
    }

    /// Parses a unit symbol given as raw UTF-8 bytes, without allocating; see `parse(_:)`.
    /// - Parameter bytes: the symbol's bytes (no quotes, no escapes).
    /// - Returns: the unit, or `nil` when the symbol is not accepted.
    package static func parse(bytes: UnsafeRawBufferPointer) -> MeasureUnit? {
        for code in 1..<symbols.count where symbols[code].matches(bytes) {
            return MeasureUnit(rawValue: UInt8(code))
        }
        return isMolarMassMillimolesPerLitre(bytes) ? .mmolPerL : nil
    }

    /// The unit's canonical symbol (`kcal`, `count/min`, `mg/dL`, ...).
    package var symbol: String {
        MeasureUnit.symbols[Int(rawValue)].string
    }

    /// What the unit measures.
    package var dimension: Dimension {
        switch self {
        case .count: .count
        case .meter, .kilometer, .mile, .foot, .centimeter, .millimeter, .inch, .yard: .length
        case .kilocalorie, .largeCalorie, .kilojoule, .joule: .energy
        case .countPerMinute, .beatsPerMinute, .countPerSecond: .frequency
        case .kilogram, .gram, .pound, .stone, .ounce: .mass
        case .mmolPerL, .mgPerdL: .bloodGlucoseConcentration
        }
    }

    /// The units a sample of `metric` may carry, in declaration order (none for sleep, workout).
    /// - Parameter metric: the sample's metric.
    package static func accepted(for metric: Metric) -> [MeasureUnit] {
        guard let dimension = metric.dimension else { return [] }
        return allCases.filter { $0.dimension == dimension }
    }

    /// Whether a sample of `metric` may carry this unit.
    /// - Parameter metric: the sample's metric.
    package func isAccepted(for metric: Metric) -> Bool {
        metric.dimension == dimension
    }

    /// Converts `value` in this unit to the canonical unit of its dimension (count, m, kcal,
    /// count/min, kg, mmol/L).
    ///
    /// The result is `value` times the exact decimal factor (1 mi = 1609.344 m, 1 ft = 0.3048 m,
    /// 1 yd = 0.9144 m, 1 in = 0.0254 m, 1 kJ = 1/4.184 kcal, 1 J = 1/4184 kcal,
    /// 1 lb = 0.45359237 kg, 1 oz = 0.028349523125 kg, 1 st = 6.35029318 kg,
    /// 1 mg/dL = 1/18.0156 mmol/L, 1 km = 1000 m, 1 cm = 1/100 m, 1 mm = 1/1000 m, 1 g = 1/1000 kg,
    /// 1 count/s = 60 count/min) rounded once to the nearest double. Integer factors and divisors
    /// are one IEEE operation, correctly rounded by definition. Factors that are not
    /// doubles are carried as a head and a tail (double-double) and multiplied with fused
    /// multiply-add, so `4.184` kJ is exactly `1` kcal and `1` st is exactly the double nearest
    /// 6.35029318 kg. Overflow gives an infinity, which the caller's finiteness check rejects.
    /// - Parameter value: a finite value in this unit.
    /// - Returns: the value in the canonical unit.
    package func toCanonical(_ value: Double) -> Double {
        switch self {
        case .count, .meter, .kilocalorie, .largeCalorie, .countPerMinute, .beatsPerMinute,
            .kilogram, .mmolPerL:
            value
        case .kilometer: value * 1000
        case .gram, .millimeter: value / 1000
        case .centimeter: value / 100
        case .joule: value / 4184
        case .countPerSecond: value * 60
        case .inch: MeasureUnit.multiply(value, 0.0254, 1.0325074129013955e-18)
        case .yard: MeasureUnit.multiply(value, 0.9144, 9.414691248821328e-18)
        case .ounce: MeasureUnit.multiply(value, 0.028349523125, -1.4056045216648271e-18)
        case .mile: MeasureUnit.multiply(value, 1609.344, -5.093170329928398e-14)
        case .foot: MeasureUnit.multiply(value, 0.3048, -1.5365486660812166e-17)
        case .kilojoule: MeasureUnit.multiply(value, 0.2390057361376673, 1.3373623432387163e-17)
        case .pound: MeasureUnit.multiply(value, 0.45359237, -2.2489672346637234e-17)
        case .stone: MeasureUnit.multiply(value, 6.35029318, -4.2587771531543693e-16)
        case .mgPerdL: MeasureUnit.multiply(value, 0.055507449099669176, -4.591110778135292e-19)
        }
    }

    /// `value * (head + tail)` rounded once, where `head + tail` is a factor to about 106 bits.
    @inline(__always)
    private static func multiply(_ value: Double, _ head: Double, _ tail: Double) -> Double {
        let product = value * head
        guard product.isFinite else { return product }
        let error = (-product).addingProduct(value, head).addingProduct(value, tail)
        return product + error
    }

    /// Symbols indexed by raw value; index 0 is the unused code.
    private static let symbols: [ASCIIName] = [
        ASCIIName("\u{0}"),
        ASCIIName("count"), ASCIIName("m"), ASCIIName("km"), ASCIIName("mi"), ASCIIName("ft"),
        ASCIIName("kcal"), ASCIIName("Cal"), ASCIIName("kJ"), ASCIIName("count/min"),
        ASCIIName("bpm"), ASCIIName("kg"), ASCIIName("g"), ASCIIName("lb"), ASCIIName("st"),
        ASCIIName("mmol/L"), ASCIIName("mg/dL"), ASCIIName("cm"), ASCIIName("mm"), ASCIIName("in"),
        ASCIIName("yd"), ASCIIName("J"), ASCIIName("oz"), ASCIIName("count/s"),
    ]

    /// Whether `bytes` is `mmol<number>/L`, where number is digits with at most one `.` inside or
    /// around them and at least one digit (HealthKit writes `mmol<180.1558800000541>/L`).
    private static func isMolarMassMillimolesPerLitre(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let prefix = ASCIIName("mmol<")
        let suffix = ASCIIName(">/L")
        let n = bytes.count
        guard n > prefix.count + suffix.count, n <= 64 else { return false }
        guard prefix.matches(UnsafeRawBufferPointer(rebasing: bytes[..<prefix.count])),
            suffix.matches(UnsafeRawBufferPointer(rebasing: bytes[(n - suffix.count)...]))
        else { return false }
        // Digits, then optionally a dot and more digits (the schema's `[0-9]+(\.[0-9]+)?`).
        var digitsBefore = 0
        var digitsAfter = 0
        var dot = false
        for i in prefix.count..<(n - suffix.count) {
            switch bytes[i] {
            case 0x30...0x39: if dot { digitsAfter += 1 } else { digitsBefore += 1 }
            case 0x2E where !dot: dot = true
            default: return false
            }
        }
        return digitsBefore > 0 && (!dot || digitsAfter > 0)
    }
}
