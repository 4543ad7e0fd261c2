import Recount
import Testing

@testable import RecountImport

/// Stable ids derived from a record's identity.
@Suite struct RecordIDTests {
    static func id(
        type: String = "HKQuantityTypeIdentifierStepCount", origin: String = "Health",
        start: Int64 = 1_410_600_474, end: Int64 = 1_410_600_479, value: String = "329",
        unit: String = "count", creation: Int64? = 1_411_279_727
    ) -> String {
        var (value, unit) = (value, unit)
        return value.withUTF8 { value in
            unit.withUTF8 { unit in
                var ids = RecordID.AppleHealth()
                return ids.derive(
                    type: type, origin: origin, start: start, end: end, value: value, unit: unit, creation: creation
                ).text
            }
        }
    }

    /// Pinned value, computed independently with Python's hashlib over the documented encoding.
    @Test func goldenValue() {
        #expect(Self.id() == "efd1e933-ca9d-844b-b6a9-f89bf763471e")
        // Negative instants (and the most negative one) are written with their sign.
        #expect(
            Self.id(start: -62_135_596_800, end: .min, creation: nil) == "fce012af-b2aa-853c-81f4-0e7010833bd4")
    }

    @Test func isAVersion8RFC9562UUID() {
        for value in ["1", "2", "3", "329", "0.5"] {
            let id = Array(Self.id(value: value).utf8)
            #expect(id.count == 36)
            #expect([8, 13, 18, 23].allSatisfy { id[$0] == UInt8(ascii: "-") })
            #expect(id[14] == UInt8(ascii: "8"))
            #expect("89ab".utf8.contains(id[19]))
            #expect(id.allSatisfy { "0123456789abcdef-".utf8.contains($0) })
        }
    }

    @Test func everyIdentityFieldMatters() {
        let base = Self.id()
        let variants = [
            Self.id(type: "HKQuantityTypeIdentifierHeartRate"), Self.id(origin: "Healt"),
            Self.id(start: 1_410_600_475), Self.id(end: 1_410_600_480), Self.id(value: "329.0"),
            Self.id(unit: "Cal"), Self.id(creation: nil), Self.id(creation: 1_411_279_728),
            // Field boundaries are unambiguous.
            Self.id(value: "32", unit: "9count"),
        ]
        #expect(Set(variants + [base]).count == variants.count + 1)
    }

    /// One deriver used for many records (it keeps hashers of their first 64 bytes, 16 at most)
    /// gives every record the id a fresh deriver gives, whichever first block it shares.
    @Test func reusedDeriverGivesFreshIds() {
        var ids = RecordID.AppleHealth()
        // 20 first blocks, more than are kept, and messages shorter than a block.
        let types = (0..<20).map { "HKQuantityTypeIdentifier\($0)" } + ["T"]
        for round in 0..<3 {
            for type in types {
                for origin in ["", "Health", "Anna’s Apple Watch"] {
                    var (value, unit) = (String(round), "")
                    let id = value.withUTF8 { value in
                        unit.withUTF8 { unit in
                            ids.derive(
                                type: type, origin: origin, start: 0, end: 0, value: value, unit: unit, creation: nil)
                        }
                    }
                    #expect(
                        id.text
                            == Self.id(
                                type: type, origin: origin, start: 0, end: 0, value: value, unit: unit, creation: nil))
                }
            }
        }
    }

    /// Instants are hashed as `String(number)` writes them, whatever their digits and sign.
    @Test func instantsAreHashedAsDecimalText() {
        let numbers: [Int64] = [0, 1, -1, 9, 10, 99, 100, -100, 1_410_600_474, -62_135_596_800, .max, .min]
        for number in numbers {
            let fields = ["HKQuantityTypeIdentifierStepCount", "Health", String(number), "0", "329", "count", ""]
            #expect(
                Self.id(start: number, end: 0, creation: nil)
                    == RecordID.derive(domain: "recount.apple-health.v1", fields: fields).text, "\(number)")
        }
    }
}
