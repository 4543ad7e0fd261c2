import Foundation
import TestSupport
import Testing

@testable import RecountImport

/// Bad records are skipped and counted; bad documents and arguments throw.
@Suite struct MalformedInputTests {
    static let step = #"type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count""#

    @Test func invalidRecordsAreCountedWithLineAndReason() throws {
        let run = try ImportRun.xml(
            exportDocument(
                """
                 <Record \(Self.step) startDate="2024-13-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="10"/>
                 <Record \(Self.step) startDate="2024-01-01 10:00:00 +0200" value="10"/>
                 <Record \(Self.step) startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="ten"/>
                 <Record \(Self.step) startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 09:05:00 +0200" value="10"/>
                 <Record \(Self.step) startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="nan"/>
                 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Phone" startDate="2024-01-01 01:00:00 +0200" endDate="2024-01-01 02:00:00 +0200" value="HKCategoryValueSleepAnalysisDreaming"/>
                 <Record \(Self.step) startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="12">
                  <MetadataEntry key="HKMetadataKeySyncIdentifier" value="abc"/>
                  <MetadataEntry key="HKMetadataKeySyncVersion" value="two"/>
                 </Record>
                 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName=" \u{00A0} " unit="count/min" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200" value="60"/>
                 <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200" value="70"/>
                 <Record sourceName="Phone" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200"/>
                 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Watch" startDate="yesterday" endDate="2024-01-01 10:00:00 +0200"/>
                 <Record \(Self.step) startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="42" creationDate="2024-01-01 10:06:00 +0200"/>
                """))
        let report = run.report
        #expect(report.importedTotal == 1)
        #expect(run.samples.map(\.value) == [42])
        #expect(
            report.invalid == [
                .init(type: "HKCategoryTypeIdentifierSleepAnalysis", count: 1),
                .init(type: "HKQuantityTypeIdentifierBodyMass", count: 1),
                .init(type: "HKQuantityTypeIdentifierHeartRate", count: 1),
                .init(type: "HKQuantityTypeIdentifierStepCount", count: 6),
                .init(type: "HKWorkoutTypeIdentifier", count: 1),
                .init(type: "Record", count: 1),
            ])
        #expect(report.invalidTotal == 11)
        #expect(report.recordsSeen == 12)
        // The first ten, in document order; the document starts with the XML declaration, the
        // root and ExportDate, so records start on line 4.
        #expect(report.invalidExamples.count == ImportReport.invalidExampleLimit)
        #expect(report.invalidExamples.map(\.line) == [4, 5, 6, 7, 8, 9, 10, 14, 15, 16])
        #expect(
            report.invalidExamples.map(\.reason) == [
                #"bad startDate "2024-13-01 10:00:00 +0200""#,
                "missing attribute endDate",
                #"non-numeric value "ten""#,
                "endDate is before startDate",
                #"non-numeric value "nan""#,
                #"unknown sleep value "HKCategoryValueSleepAnalysisDreaming""#,
                #"non-integer HKMetadataKeySyncVersion "two""#,
                "empty sourceName",
                "missing attribute unit",
                "missing attribute type",
            ])
        #expect(report.summary.contains("line 4: HKQuantityTypeIdentifierStepCount: bad startDate"))
        #expect(report.summary.contains("(the first 10 of 11 invalid records shown)"))
    }

    @Test func syncIdentityAndDevicePassThrough() throws {
        let run = try ImportRun.xml(
            exportDocument(
                """
                 <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" device="Body Scale 2" unit="lb" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200" value="154.3">
                  <MetadataEntry key="HKMetadataKeySyncVersion" value="3"/>
                  <MetadataEntry key="HKMetadataKeySyncIdentifier" value="scale-2024-01-01"/>
                  <MetadataEntry key="HKTimeZone" value="Mars/Olympus_Mons"/>
                 </Record>
                """))
        let sample = try #require(run.samples.first)
        #expect(sample.syncIdentifier == "scale-2024-01-01")
        #expect(sample.syncVersion == 3)
        #expect(sample.device == "Body Scale 2")
        #expect(sample.unit == "lb" && sample.value == 154.3)
        // An unknown zone is reported, the written offset kept and no timeZone emitted.
        #expect(sample.timeZone == nil)
        #expect(sample.start == "2024-01-01T10:00:00+02:00")
        #expect(run.report.unknownTimeZones == ["Mars/Olympus_Mons"])
        #expect(
            run.lines[0].hasSuffix(
                #","origin":"Scale","device":"Body Scale 2","syncIdentifier":"scale-2024-01-01","syncVersion":3}]}"#
            ))
    }

    /// A zone Foundation knows but ingest does not (`GMT+0100`) is an unknown zone too: the
    /// sample keeps its written offset (it was emitted with that zone, and ingest refused it).
    @Test func aZoneIngestRefusesIsAnUnknownZone() throws {
        let run = try ImportRun.xml(
            exportDocument(
                """
                 <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200" value="70">
                  <MetadataEntry key="HKTimeZone" value="GMT+0100"/>
                 </Record>
                """))
        let sample = try #require(run.samples.first)
        #expect(sample.timeZone == nil && sample.start == "2024-01-01T10:00:00+02:00")
        #expect(run.report.unknownTimeZones == ["GMT+0100"])
        #expect(run.report.invalidTotal == 0)
    }

    @Test func correlationChildrenAreNotImportedTwice() throws {
        let mass =
            #"type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" creationDate="2024-01-01 10:01:00 +0200" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200" value="70.5""#
        let run = try ImportRun.xml(
            exportDocument(
                """
                 <Record \(mass)/>
                 <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="Scale" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:00:00 +0200">
                  <Record \(mass)/>
                 </Correlation>
                """))
        #expect(run.report.importedCount("HKQuantityTypeIdentifierBodyMass") == 1)
        #expect(run.samples.count == 1)
        #expect(run.report.correlationChildrenIgnored == 1)
        #expect(run.report.skippedCount("HKCorrelationTypeIdentifierFood") == 1)
    }

    @Test func exactDuplicatesInOneEnvelopeAreDropped() throws {
        let record =
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="10"/>"#
        let run = try ImportRun.xml(exportDocument(record + "\n" + record))
        #expect(run.samples.count == 1)
        #expect(run.report.importedTotal == 2)
        #expect(run.report.duplicatesDropped == 1)
        #expect(run.report.samplesWritten == 1)
    }

    @Test func sameRecordAtAnotherExportOffsetKeepsItsId() throws {
        let at = { (start: String, end: String, created: String) in
            exportDocument(
                #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Apple&#160;Watch " unit="count" creationDate="\#(created)" startDate="\#(start)" endDate="\#(end)" value="10"/>"#
            )
        }
        let summer = try ImportRun.xml(
            at(
                "2024-07-01 10:00:00 +0200", "2024-07-01 10:05:00 +0200",
                "2024-07-01 10:06:00 +0200"))
        let winter = try ImportRun.xml(
            at(
                "2024-07-01 09:00:00 +0100", "2024-07-01 09:05:00 +0100",
                "2024-07-01 09:06:00 +0100"))
        let other = try ImportRun.xml(
            at(
                "2024-07-01 10:00:00 +0100", "2024-07-01 10:05:00 +0100",
                "2024-07-01 10:06:00 +0100"))
        #expect(summer.samples[0].id == winter.samples[0].id)
        #expect(summer.samples[0].start != winter.samples[0].start)
        #expect(summer.samples[0].id != other.samples[0].id)
        #expect(summer.samples[0].origin == "Apple Watch")
    }

    /// A Google Fit point whose end is present but out of range is invalid for that reason,
    /// not "missing"; one at the very bottom of the 64-bit range is an invalid sample, not a
    /// crash (its milliseconds overflowed); a byte order mark before the file's JSON is ignored.
    @Test func aGoogleFitPointOutOfRangeSaysSo() throws {
        try withTemporaryDirectory { directory in
            let folder = directory + "/All Data"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let point = { (start: String, end: String) in
                #"{"fitValue":[{"value":{"intVal":3}}],"originDataSourceId":"raw:x","endTimeNanos":\#(end),"dataTypeName":"com.google.step_count.delta","startTimeNanos":\#(start),"modifiedTimeMillis":1}"#
            }
            let start = "1738156698230507294"
            let file =
                #"{"Data Source":"derived:com.google.step_count.delta:com.google.android.gms:estimated_steps","Data Points":["#
                + point(start, "1738156758230507294") + "," + point(start, "1000000000001738156698230507294") + ","
                + point("\(Int64.min)", "0") + "]}"
            try Data([0xEF, 0xBB, 0xBF] + Array(file.utf8)).write(
                to: URL(fileURLWithPath: folder + "/derived_steps.json"))
            let run = try ImportRun.googleFit(directory, timeZone: "UTC")
            #expect(run.samples.count == 1)
            let reasons = run.report.invalidExamples.map(\.reason)
            #expect(reasons.count == 2)
            #expect(reasons.first == "startTimeNanos or endTimeNanos is not a whole number of nanoseconds in range")
            #expect(reasons.last?.contains("more than 366 days after start") == true, "\(reasons)")
        }
    }

    /// A bad value names what is wrong with it, not that it is missing.
    @Test func aBadLogIdOrAReversedSessionSaysWhatIsWrong() throws {
        try withTemporaryDirectory { directory in
            let fitbit = directory + "/fitbit/Global Export Data"
            try FileManager.default.createDirectory(atPath: fitbit, withIntermediateDirectories: true)
            try Data(
                #"[{"logId":1.5,"weight":70,"bmi":22,"date":"10/10/23","time":"08:00:00"},{"weight":70,"bmi":22,"date":"10/10/23","time":"08:00:00"}]"#
                    .utf8
            ).write(to: URL(fileURLWithPath: fitbit + "/weight-2023-10-10.json"))
            try Data(#"[{"dateTime":"10/10/23 10:00:00","value":"7"}]"#.utf8).write(
                to: URL(fileURLWithPath: fitbit + "/steps-2023-10-10.json"))
            let weights = try ImportRun.fitbit(directory + "/fitbit", timeZone: "UTC").report.invalidExamples
            #expect(weights.map(\.reason) == ["logId is not a whole number in range", "missing logId"])

            let sessions = directory + "/fit/All Sessions"
            try FileManager.default.createDirectory(atPath: sessions, withIntermediateDirectories: true)
            try Data(
                #"{"fitnessActivity":"walking","startTime":"2025-01-29T20:23:54.103Z","endTime":"2025-01-29T20:00:00Z"}"#
                    .utf8
            ).write(to: URL(fileURLWithPath: sessions + "/2025-01-29T20_23_54.103+00_00_WALKING.json"))
            let session = try ImportRun.googleFit(directory + "/fit", timeZone: "UTC").report.invalidExamples
            #expect(session.map(\.reason) == ["endTime is before startTime"])
        }
    }

    @Test func malformedXMLThrowsWithLineAndColumn() throws {
        let text = exportDocument(
            """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 10:00:00 +0200" endDate="2024-01-01 10:05:00 +0200" value="10">
             </Workout>
            """)
        var emitted = 0
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1").run(data: Data(text.utf8)) { _ in emitted += 1 }
        }
        #expect(error.code == .malformedXML)
        #expect(error.line == 5)
        #expect((error.column ?? 0) > 1)
        #expect(error.description.hasPrefix("line 5:"))
        // The record the damage is in was not finished: nothing was printed.
        #expect(
            error.message
                == "opening and ending tag mismatch (libxml2 error 76) (printed before it: 0 samples in 0 envelopes)")
        #expect(emitted == 0)
    }

    /// The records finished before the damage are printed, the envelope being built too, and
    /// the error says how many.
    @Test func theRecordsBeforeTheDamageArePrinted() throws {
        let record = { (minute: Int) in
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 10:0\#(minute):00 +0200" endDate="2024-01-01 10:0\#(minute):30 +0200" value="10"/>"#
        }
        let text = exportDocument([record(1), record(2), record(3), "<Record"].joined(separator: "\n"))
        var lines: [String] = []
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1", batchSize: 2).run(data: Data(text.utf8)) { lines.append($0) }
        }
        #expect(error.code == .malformedXML)
        #expect(error.message.hasSuffix("(printed before it: 3 samples in 2 envelopes)"), "\(error.message)")
        #expect(lines.count == 2)
    }

    @Test func truncatedFileThrowsNamingThePath() throws {
        let text = String(exportDocument("").dropLast(8))
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("recount-truncated-\(UInt64.random(in: 0...UInt64.max)).xml")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1").run(file: url) { _ in }
        }
        #expect(error.code == .malformedXML)
        #expect(error.path == url.path)
        #expect(error.line != nil && error.column != nil)
        #expect(error.description.hasPrefix(url.path + ":"))
    }

    @Test func emptyDocumentThrows() throws {
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1").run(data: Data()) { _ in }
        }
        #expect(error.code == .malformedXML)
    }

    @Test func missingFileAndBadArgumentsThrow() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/recount/export.xml")
        #expect(
            throws: ImportError(
                code: .unreadableFile, path: missing.path, message: "cannot open file for reading")
        ) {
            _ = try AppleHealthImporter(user: "u1").run(file: missing) { _ in }
        }
        for user in ["", "has space", String(repeating: "u", count: 129), "ü"] {
            let error = try #require(throws: ImportError.self) {
                _ = try AppleHealthImporter(user: user).run(data: Data("<a/>".utf8)) { _ in }
            }
            #expect(error.code == .invalidUser)
        }
        let error = try #require(throws: ImportError.self) {
            _ = try AppleHealthImporter(user: "u1", batchSize: 0).run(data: Data("<a/>".utf8)) {
                _ in
            }
        }
        #expect(error.code == .invalidBatchSize)
    }

    @Test func emitErrorsStopTheImportUnchanged() throws {
        struct Full: Error, Equatable {}
        var calls = 0
        #expect(throws: Full()) {
            _ = try AppleHealthImporter(user: "u1", batchSize: 2).run(
                file: FixturePaths.fixture("tdda-export6s3sample.xml")
            ) { _ in
                calls += 1
                throw Full()
            }
        }
        #expect(calls == 1)
    }

    @Test func documentWithoutExportDateHasNoReceivedAt() throws {
        let run = try ImportRun.xml(
            """
            <HealthData><Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 10:00:00 -0000" endDate="2024-01-01 10:05:00 -0000" value="1e3"/></HealthData>
            """)
        #expect(run.report.exportDate == nil)
        #expect(run.envelopes.first?.receivedAt == nil)
        #expect(!run.lines[0].contains("receivedAt"))
        #expect(run.lines[0].contains(#""start":"2024-01-01T10:00:00Z""#))
        // The value is written as the number it is; the id still hashes the text as written.
        #expect(run.lines[0].contains(#""value":1000,"#))
    }
}
