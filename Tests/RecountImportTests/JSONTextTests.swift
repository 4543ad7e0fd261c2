import Testing

@testable import RecountImport

/// JSON string escaping and number validation.
@Suite struct JSONTextTests {
    @Test(arguments: [
        ("74", "74"), ("0.12", "0.12"), ("-3.5", "-3.5"), ("1e-05", "1e-05"), ("0", "0"),
        ("2.5E+3", "2.5E+3"), (".5", "0.5"), ("5.", "5.0"), ("+3", "3.0"), ("007", "7.0"),
    ])
    func numbers(written: String, json: String) {
        #expect(JSONText.number(written) == json)
    }

    @Test(arguments: ["", "ten", "nan", "NaN", "inf", "-infinity", "1e400", "1,5", "0x", " 1"])
    func nonNumbers(written: String) {
        #expect(JSONText.number(written) == nil)
    }

    @Test func quoting() {
        var output = ""
        JSONText.appendQuoted("Simon\u{2019}s \"iPhone\"\\\n\t\u{1}", to: &output)
        #expect(output == "\"Simon\u{2019}s \\\"iPhone\\\"\\\\\\n\\t\\u0001\"")
        output = ""
        JSONText.appendQuoted("mmol<180.1558800000541>/L", to: &output)
        #expect(output == "\"mmol<180.1558800000541>/L\"")
    }
}
