import Testing

@testable import RecountImport

/// Parsing of export.xml timestamps and RFC 3339 formatting.
@Suite struct ExportTimestampTests {
    @Test func parsesTheExportFormat() throws {
        let timestamp = try #require(ExportTimestamp(parsing: "2024-01-12 08:10:05 +0200"))
        #expect(timestamp.epochSeconds == 1_705_039_805)
        #expect(timestamp.writtenOffsetSeconds == 7200)
        #expect(timestamp.rfc3339AtWrittenOffset == "2024-01-12T08:10:05+02:00")
    }

    @Test(arguments: [
        ("2014-09-13 10:27:54 +0100", Int64(1_410_600_474), "2014-09-13T10:27:54+01:00"),
        ("1969-12-31 23:00:00 -0530", 16200, "1969-12-31T23:00:00-05:30"),
        ("2024-02-29 23:59:59 +0000", 1_709_251_199, "2024-02-29T23:59:59Z"),
        ("2000-03-01 00:00:00 +1400", 951_818_400, "2000-03-01T00:00:00+14:00"),
        ("2024-01-12T08:10:05+02:00", 1_705_039_805, "2024-01-12T08:10:05+02:00"),
        ("2024-01-12 06:10:05Z", 1_705_039_805, "2024-01-12T06:10:05Z"),
    ])
    func parsesAndFormats(text: String, epoch: Int64, rfc3339: String) throws {
        let timestamp = try #require(ExportTimestamp(parsing: text))
        #expect(timestamp.epochSeconds == epoch)
        #expect(timestamp.rfc3339AtWrittenOffset == rfc3339)
    }

    @Test(arguments: [
        "", "2024-01-12", "2024-01-12 08:10:05", "2024-13-01 00:00:00 +0000",
        "2023-02-29 00:00:00 +0000", "2024-04-31 00:00:00 +0000", "2024-01-12 24:00:00 +0000",
        "2024-01-12 08:60:05 +0000", "2024-01-12 08:10:60 +0000", "2024-01-12 08:10:05 +2400",
        "2024-01-12 08:10:05 +0260", "2024-01-12 08:10:05 +0200 ", "24-01-12 08:10:05 +0200",
        "2024-1-12 08:10:05 +0200", "0000-01-01 00:00:00 +0000", "２０２４-01-12 08:10:05 +0200",
        "yesterday",
    ])
    func rejectsMalformed(text: String) {
        #expect(ExportTimestamp(parsing: text) == nil)
    }

    @Test func formatsAnInstantAtAnyOffset() {
        // The same instant shown in Amsterdam winter time, and west of UTC across midnight.
        #expect(
            ExportTimestamp.rfc3339(epochSeconds: 1_704_063_328, offsetSeconds: 3600)
                == "2023-12-31T23:55:28+01:00")
        #expect(
            ExportTimestamp.rfc3339(epochSeconds: 0, offsetSeconds: -28_800)
                == "1969-12-31T16:00:00-08:00")
        #expect(
            ExportTimestamp.rfc3339(epochSeconds: 253_402_300_799, offsetSeconds: 0)
                == "9999-12-31T23:59:59Z")
    }
}
