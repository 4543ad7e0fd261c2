import TestSupport
import Testing

@testable import Recount

/// Sample ids: canonical UUIDs held as 16 bytes, everything else as text, equal by bytes.
@Suite struct SampleIDTests {
    @Test(arguments: [
        "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e0001", "8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001",
        "00000000-0000-0000-0000-000000000000", "12345678-1234-1234-1234-123456789012",
    ])
    func canonicalUUIDsAreHeldAsBytesAndKeepTheirText(text: String) {
        let id = SampleID(text)
        #expect(id.uuid != nil)
        #expect(id.text == text)
        #expect(text.withRawUTF8 { SampleID(utf8: $0) } == id)
    }

    @Test(arguments: [
        "8a1E0f52-3c44-4b8e-9b1d-2f6c7a9e0001",  // mixed case
        "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000",  // short
        "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e0001 ",  // trailing space
        "8a1e0f52_3c44_4b8e_9b1d_2f6c7a9e0001", "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000g", "steps-2026-07-13",
        // The bytes next to each range of digits and letters.
        "8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E000G", "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000@",
        "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000`", "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000/",
        "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000:", "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e000\u{C1}",
    ])
    func otherTextsStayText(text: String) {
        let id = SampleID(text)
        #expect(id.uuid == nil)
        #expect(id.text == text)
        #expect(text.withRawUTF8 { SampleID(utf8: $0) } == id)
    }

    @Test func idsAreEqualExactlyWhenTheirBytesAre() {
        let lower = SampleID("8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e0001")
        let upper = SampleID("8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001")
        #expect(lower != upper)
        #expect(SampleID(uuid: 0x8a1e_0f52_3c44_4b8e, 0x9b1d_2f6c_7a9e_0001, lowercase: true) == lower)
        // Canonically equivalent texts with different bytes are different ids.
        #expect(SampleID("caf\u{E9}") != SampleID("cafe\u{301}"))
        #expect(Set([lower, upper, SampleID("caf\u{E9}"), SampleID("cafe\u{301}"), lower]).count == 4)
        #expect(lower.fingerprint == SampleID(lower.text).fingerprint)
    }

    /// The fast order (bytes of same-case UUIDs) is the order of the texts, and ids written
    /// without their text are written and read back as their text, on random ids of both cases,
    /// texts and UUIDs that differ only in one digit.
    @Test func textPrecedesOrdersAsTheTextsDo() throws {
        var random = SplitMix64(seed: testSeed(8))
        let hex = Array("0123456789abcdef")
        func uuid(_ uppercase: Bool) -> String {
            var text = ""
            for i in 0..<32 {
                if [8, 12, 16, 20].contains(i) { text.append("-") }
                text.append(hex[Int(random.next() % (random.next() % 2 == 0 ? 16 : 3))])
            }
            return uppercase ? text.uppercased() : text
        }
        let ids = (0..<300).map { i -> SampleID in
            switch i % 3 {
            case 0: SampleID(uuid(false))
            case 1: SampleID(uuid(true))
            default: SampleID("hr-\(random.next() % 1000)")
            }
        }
        for a in ids {
            for b in ids { #expect(a.textPrecedes(b) == (a.text < b.text)) }
            var direct = CanonicalBytes()
            var size = CanonicalBytes.BlockSize()
            size.put(a)
            direct.appendBlock(count: size.count) { $0.put(a) }
            var viaText = CanonicalBytes()
            viaText.append(a.text)
            #expect(direct.bytes == viaText.bytes)
            var reader = CheckpointReader(direct.bytes)
            #expect(try reader.sampleID() == a)
        }
    }
}

extension SampleIDTests {
    /// Every byte value at every digit of a UUID, in both letter cases, against a digit-at-a-time
    /// reading: a UUID exactly when each byte is a hex digit of the text's one letter case.
    @Test func everyByteAtEveryDigitReadsAsTheDigitAtATimeReadingDoes() {
        func expected(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64, lowercase: Bool)? {
            var words: [UInt64] = [0, 0]
            var cases = Set<Bool>()
            var digit = 0
            for (index, byte) in bytes.enumerated() where ![8, 13, 18, 23].contains(index) {
                let value: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"):
                    value = UInt64(byte - UInt8(ascii: "a") + 10)
                    cases.insert(true)
                case UInt8(ascii: "A")...UInt8(ascii: "F"):
                    value = UInt64(byte - UInt8(ascii: "A") + 10)
                    cases.insert(false)
                default: return nil
                }
                words[digit / 16] = words[digit / 16] << 4 | value
                digit += 1
            }
            guard cases.count <= 1 else { return nil }
            return (words[0], words[1], cases.first ?? true)
        }
        for template in ["8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e0001", "8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001"] {
            let base = Array(template.utf8)
            for position in base.indices where ![8, 13, 18, 23].contains(position) {
                for byte in UInt8.min...UInt8.max {
                    var bytes = base
                    bytes[position] = byte
                    let parsed = bytes.withUnsafeBytes { SampleID(utf8: $0) }.uuid
                    let reference = expected(bytes)
                    #expect(parsed?.high == reference?.high && parsed?.low == reference?.low)
                    #expect(parsed?.lowercase == reference?.lowercase, "byte \(byte) at \(position) of \(template)")
                }
            }
        }
    }
}
