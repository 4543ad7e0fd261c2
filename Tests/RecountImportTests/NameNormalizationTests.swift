import Testing

@testable import RecountImport

/// Source names become origins; `HKDevice` descriptions become device names.
@Suite struct NameNormalizationTests {
    @Test(arguments: [
        ("Apple Watch", "Apple Watch"),
        ("Apple\u{00A0}Watch", "Apple Watch"),
        ("Apple\u{00A0}Watch ", "Apple Watch"),
        ("  Apple \u{2009}\u{3000} Watch\t", "Apple Watch"),
        ("NJR Apple\u{00A0}Watch", "NJR Apple Watch"),
        ("Alexandre's iPhone", "Alexandre's iPhone"),
        ("Simon\u{2019}s iPhone", "Simon\u{2019}s iPhone"),
        ("Caf\u{0065}\u{0301}", "Caf\u{00E9}"),
        ("Zepp\u{0007} Life", "Zepp Life"),
        ("\u{00A0} \u{00A0}", ""),
    ])
    func sourceNames(raw: String, origin: String) {
        let normalized = SourceName.normalize(raw)
        #expect(normalized == origin)
        #expect(Array(normalized.unicodeScalars) == Array(origin.unicodeScalars))
    }

    @Test(arguments: [
        (
            "<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch2,4, software:4.3.1>",
            "Apple Watch (Watch2,4)"
        ),
        (
            "<<HKDevice: 0xc937f6fa0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,2, software:11.6.1, creation date:2025-08-14 23:49:07 +0000>",
            "Apple Watch (Watch7,2)"
        ),
        (
            "<<HKDevice: 0x2833b3c50>, name:AirPods, manufacturer:Apple Inc., model:0x2002, localIdentifier:4A:1B:2C:3D:4E:5F>",
            "AirPods (0x2002)"
        ),
        ("<<HKDevice: 0x1>, name:Polar H10, 12345, manufacturer:Polar>", "Polar H10, 12345"),
        ("<<HKDevice: 0x1>, name:Apple\u{00A0}Watch >", "Apple Watch"),
        ("<<HKDevice: 0x1>, hardware:iPhone10,1, software:13.1>", "iPhone10,1"),
        ("Body Scale 2", "Body Scale 2"),
    ])
    func devices(raw: String, device: String) {
        #expect(DeviceName.normalize(raw) == device)
    }

    @Test func devicesWithNothingUsable() {
        #expect(DeviceName.normalize("") == nil)
        #expect(DeviceName.normalize("<<HKDevice: 0x1>, software:1.0>") == nil)
        #expect(DeviceName.normalize("<<HKDevice: 0x1") == nil)
    }

    /// The key of a device attribute as text, or `nil` when it is no `HKDevice` description.
    static func key(_ raw: String) -> String? {
        var raw = raw
        return raw.withUTF8 { DeviceName.addressFreeKey($0).map { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func addressFreeKeyIgnoresTheAddress() {
        let one = "<<HKDevice: 0x3012772a0>, name:Apple Watch, hardware:Watch6,7>"
        let two = "<<HKDevice: 0x3008d6850>, name:Apple Watch, hardware:Watch6,7>"
        #expect(Self.key(one) == ">, name:Apple Watch, hardware:Watch6,7>")
        #expect(Self.key(one) == Self.key(two))
        #expect(Self.key("iPhone") == nil)
        #expect(Self.key("<<HKDevice: 0x1") == nil)
        // With a combining accent, `<<HKDevice` is no prefix for `String`, so not for the key.
        #expect(Self.key("<<HKDevice\u{301}: 0x1>, name:A>") == nil)
    }
}
