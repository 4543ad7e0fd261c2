import Foundation
import TestSupport
import Testing

@testable import RecountImport

/// The offset of samples without `HKTimeZone`: inferred, given or kept.
@Suite struct LocalTimeTests {
    /// A July step sample without zone and a sleep sample with one, exported in January (+0100).
    static func document(zone: String = "Europe/Paris", exportDate: String = "2025-01-14 09:30:00 +0100") -> String {
        exportDocument(
            exportDate: exportDate,
            """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-07-01 23:30:00 +0100" endDate="2024-07-01 23:45:00 +0100" value="10"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-07-02 08:00:00 +0300" endDate="2024-07-02 08:05:00 +0300" value="11"/>
             <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2024-07-01 01:00:00 +0100" endDate="2024-07-01 02:00:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore">
              <MetadataEntry key="HKTimeZone" value="\(zone)"/>
             </Record>
            """)
    }

    @Test func aZoneIsInferredWhenHKTimeZoneAndTheExportOffsetAgree() throws {
        let run = try ImportRun.xml(Self.document())
        let steps = run.samples(of: "HKQuantityTypeIdentifierStepCount")
        // 23:30 +01:00 is 00:30 +02:00 the next day; the +0300 sample was not written at the
        // export's offset, so it is kept as written.
        #expect(steps.map(\.start) == ["2024-07-02T00:30:00+02:00", "2024-07-02T08:00:00+03:00"])
        #expect(steps.allSatisfy { $0.timeZone == nil })
        let rezoning = try #require(run.report.rezoning)
        #expect(rezoning.how == "inferred" && rezoning.zone == "Europe/Paris")
        #expect(rezoning.samplesWithoutZone == 2 && rezoning.rezoned == 1 && rezoning.movedDay == 1)
        #expect(rezoning.keptOtherOffset == 1)
        #expect(run.report.jsonLine.contains(#""localTime":{"how":"inferred","zone":"Europe/Paris""#))
    }

    @Test(arguments: [
        (
            "Europe/Paris", "2025-07-14 09:30:00 +0100",
            "the export was written at +01:00, but Europe/Paris was at +02:00 then"
        ),
        ("Mars/Olympus_Mons", "2025-01-14 09:30:00 +0100", "HKTimeZone Mars/Olympus_Mons is not a known IANA zone"),
    ])
    func noZoneIsInferredWhenTheyDisagree(zone: String, exportDate: String, reason: String) throws {
        let run = try ImportRun.xml(Self.document(zone: zone, exportDate: exportDate))
        #expect(run.samples(of: "HKQuantityTypeIdentifierStepCount").first?.start == "2024-07-01T23:30:00+01:00")
        #expect(run.report.rezoning?.how == "none")
        #expect(run.report.rezoning?.reason == reason)
    }

    /// A UTF-16 export parses, but the byte scan for `HKTimeZone` cannot read it: the report
    /// says so and asks for `--time-zone`, where it said the file had no `HKTimeZone` (an oracle
    /// run).
    @Test func aUTF16ExportAsksForTheZone() throws {
        try withTemporaryDirectory { directory in
            let text = Self.document().replacingOccurrences(of: #"encoding="UTF-8""#, with: #"encoding="UTF-16""#)
            let path = directory + "/export.xml"
            try #require(text.data(using: .utf16)).write(to: URL(fileURLWithPath: path))
            let run = try ImportRun.file(URL(fileURLWithPath: path))
            #expect(run.samples(of: "HKQuantityTypeIdentifierStepCount").first?.start == "2024-07-01T23:30:00+01:00")
            #expect(run.report.rezoning?.how == "none")
            #expect(
                run.report.rezoning?.reason
                    == "the file is not in UTF-8 (UTF-16?), so its HKTimeZone values cannot be read: pass --time-zone")
        }
    }

    @Test func twoZonesAreNotInferred() throws {
        let text = Self.document().replacingOccurrences(
            of: "</HealthData>",
            with: """
                 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Watch" startDate="2024-07-03 10:00:00 +0100" endDate="2024-07-03 11:00:00 +0100">
                  <MetadataEntry key="HKTimeZone" value="Europe/Lisbon"/>
                 </Workout>
                </HealthData>
                """)
        let run = try ImportRun.xml(text)
        #expect(run.report.rezoning?.reason == "HKTimeZone names 2 zones (Europe/Lisbon, Europe/Paris)")
        #expect(run.report.rezoning?.rezoned == 0)
    }

    @Test func aGivenZoneAppliesToEverySampleWithoutHKTimeZone() throws {
        var importer = AppleHealthImporter(user: "u1")
        importer.timeZone = try #require(LocalTimePolicy(argument: "America/New_York"))
        var lines: [String] = []
        let report = try importer.run(data: Data(Self.document().utf8)) { lines.append($0) }
        let samples = try ImportRun.decode(lines).flatMap(\.samples)
        #expect(
            samples.map(\.start) == [
                "2024-07-01T18:30:00-04:00", "2024-07-02T01:00:00-04:00", "2024-07-01T02:00:00+02:00",
            ])
        #expect(report.rezoning?.how == "given" && report.rezoning?.rezoned == 2)
        #expect(LocalTimePolicy(argument: "as-written") == .asWritten)
        #expect(LocalTimePolicy(argument: "Mars/Base") == nil)
    }

    @Test func theCensusFindsZonesAcrossChunkBoundaries() throws {
        let entry = #"<MetadataEntry key="HKTimeZone" value="Europe/Paris"/>"#
        // Put entries at every offset around the 1 MiB chunk boundary.
        var text = String(repeating: " ", count: (1 << 20) - 40)
        for _ in 0..<8 { text += entry + "Z " }
        let census = ZoneCensus.scan(InputStream(data: Data(text.utf8)))
        #expect(census.zones == ["Europe/Paris": 8])
    }
}
