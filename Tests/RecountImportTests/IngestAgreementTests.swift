import Foundation
import Recount
import Testing

@testable import RecountImport

/// What the importer emits, ingest accepts: every line passes ingest's own `EnvelopeDecoder`, and
/// a record ingest would refuse is left out alone, reported by type and reason.
@Suite struct IngestAgreementTests {
    /// A quantity record of `type` in `unit`, starting `minute` minutes after midnight.
    static func record(_ type: String, unit: String, value: String, minute: Int = 0) -> String {
        let start = String(format: "2024-01-01 %02d:%02d:00 +0200", minute / 60, minute % 60)
        let escapedUnit = unit.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        return #"<Record type="HKQuantityTypeIdentifier\#(type)" sourceName="Phone" unit="\#(escapedUnit)" "#
            + #"startDate="\#(start)" endDate="\#(start)" value="\#(value)"/>"#
    }

    /// Ingest's verdict on each emitted line: `nil` when accepted.
    static func ingestVerdicts(_ run: ImportRun) -> [IngestError?] {
        run.lines.enumerated().map { index, line in
            var line = line
            return line.withUTF8 { bytes -> IngestError? in
                do throws(IngestError) {
                    _ = try EnvelopeDecoder().decode(line: UnsafeRawBufferPointer(bytes), number: index + 1)
                    return nil
                } catch {
                    return error
                }
            }
        }
    }

    @Test func aYardDistanceNoLongerSinksItsEnvelope() throws {
        var records = (0..<999).map { Self.record("StepCount", unit: "count", value: "10", minute: $0) }
        records.insert(Self.record("DistanceWalkingRunning", unit: "yd", value: "1760", minute: 500), at: 500)
        let run = try ImportRun.xml(exportDocument(records.joined(separator: "\n")))
        #expect(run.report.invalidTotal == 0)
        #expect(run.envelopes.map(\.samples.count) == [1000])
        #expect(Self.ingestVerdicts(run).allSatisfy { $0 == nil })
        let distance = try #require(run.samples(of: "HKQuantityTypeIdentifierDistanceWalkingRunning").first)
        #expect(distance.unit == "yd" && distance.value == 1760)
    }

    /// HealthKit's unit strings (`HKUnit.unitString`) for the catalogue's quantity types.
    static let healthKitUnits: [(String, String)] = [
        ("StepCount", "count"),
        ("DistanceWalkingRunning", "m"), ("DistanceWalkingRunning", "cm"), ("DistanceWalkingRunning", "mm"),
        ("DistanceWalkingRunning", "km"), ("DistanceWalkingRunning", "in"), ("DistanceWalkingRunning", "ft"),
        ("DistanceWalkingRunning", "yd"), ("DistanceWalkingRunning", "mi"),
        ("ActiveEnergyBurned", "kcal"), ("ActiveEnergyBurned", "Cal"), ("ActiveEnergyBurned", "kJ"),
        ("ActiveEnergyBurned", "J"),
        ("BodyMass", "kg"), ("BodyMass", "g"), ("BodyMass", "lb"), ("BodyMass", "oz"), ("BodyMass", "st"),
        ("BloodGlucose", "mmol<180.15588000005408>/L"), ("BloodGlucose", "mg/dL"),
        ("HeartRate", "count/min"), ("HeartRate", "count/s"),
    ]

    @Test(arguments: healthKitUnits)
    func everyHealthKitUnitOfTheCataloguePassesIngest(type: String, unit: String) throws {
        let run = try ImportRun.xml(exportDocument(Self.record(type, unit: unit, value: "2.5")))
        #expect(run.report.invalidTotal == 0, "\(run.report.invalidExamples)")
        #expect(run.samples.map(\.unit) == [unit])
        #expect(Self.ingestVerdicts(run) == [nil])
    }

    @Test func recordsIngestRefusesAreSkippedAloneWithTypeAndReason() throws {
        let records = [
            Self.record("StepCount", unit: "count", value: "10", minute: 0),
            Self.record("StepCount", unit: "count", value: "-1", minute: 1),
            Self.record("StepCount", unit: "count", value: "12", minute: 2),
            Self.record("DistanceWalkingRunning", unit: "furlong", value: "1", minute: 3),
            Self.record("HeartRate", unit: "count/min", value: "0", minute: 4),
            Self.record("HeartRate", unit: "count/min", value: "61", minute: 5),
            Self.record("BodyMass", unit: "kg", value: "70", minute: 6),
        ]
        let run = try ImportRun.xml(exportDocument(records.joined(separator: "\n")), batchSize: 3)
        // Records start on line 4 of the document.
        #expect(run.samples.map(\.value) == [10, 12, 61, 70])
        #expect(run.envelopes.map(\.samples.count) == [2, 1, 1])
        #expect(Self.ingestVerdicts(run).allSatisfy { $0 == nil })
        let report = run.report
        #expect(
            report.imported == [
                .init(type: "HKQuantityTypeIdentifierBodyMass", count: 1),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 1),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 2),
            ])
        #expect(
            report.invalid == [
                .init(type: "HKQuantityTypeIdentifierDistanceWalkingRunning", count: 1),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 1),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 1),
            ])
        #expect(report.samplesWritten == 4 && report.envelopesWritten == 3)
        #expect(report.invalidExamples.map(\.line) == [5, 7, 8])
        #expect(
            report.invalidExamples.map(\.reason) == [
                "rejected by ingest (belowMinimum): value must not be negative for steps",
                "rejected by ingest (unknownUnit): unit is not a unit of distance (furlong); accepted: "
                    + "m, km, mi, ft, cm, mm, in, yd",
                "rejected by ingest (belowMinimum): value must be greater than 0 for heart_rate",
            ])
    }

    @Test func anEnvelopeOfOnlyRefusedRecordsIsNotWritten() throws {
        let run = try ImportRun.xml(
            exportDocument(
                Self.record("StepCount", unit: "count", value: "-5", minute: 0) + "\n"
                    + #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" startDate="x"/>"#))
        #expect(run.lines.isEmpty)
        #expect(run.report.importedTotal == 0 && run.report.invalidTotal == 2)
        // The decoder's refusal is found when the envelope is written, after the later line's;
        // the examples are still in line order.
        #expect(run.report.invalidExamples.map(\.line) == [4, 5])
    }
}
