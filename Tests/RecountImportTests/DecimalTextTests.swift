import Testing

@testable import RecountImport

/// Export values are read as decimal numbers only: `Double(_:)` alone also took hexadecimal,
/// and a value cut short at a NUL.
@Suite struct DecimalTextTests {
    @Test(arguments: [
        ("72", 72.0), ("-0.5", -0.5), ("+3", 3.0), (".25", 0.25), ("5.", 5.0), ("1e-05", 0.00001),
        ("2.5E3", 2500.0), ("0", 0.0),
    ])
    func decimalValuesAreRead(text: String, value: Double) {
        #expect(DecimalText.double(text) == value)
    }

    @Test(arguments: [
        "0x10", "0X1p4", "inf", "nan", "Infinity", "5\u{0}", " 12", "12 ", "", "-", ".", "e5", "1e", "1e+",
        "1.2.3", "١٢", "1e400",
    ])
    func anythingElseIsNoValue(text: String) {
        #expect(DecimalText.double(text) == nil)
    }
}
