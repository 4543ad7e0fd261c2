import Foundation
import TestSupport

/// Writes a synthetic Apple Health `export.xml` shaped like a real watch-and-phone export, and
/// counts what the importer must find in it.
///
/// Each day has: a heart rate every 5 minutes from the watch (with the motion-context metadata
/// real watches write), steps and distance from the watch every 10 minutes and from the phone
/// every 30, active energy every 10 minutes, basal energy and stand time (types the importer
/// skips) every 10 and 60 minutes, a night of sleep in 8 stages carrying `HKTimeZone`, a workout
/// with its metadata, events and statistics, and an activity summary. Every timestamp is written
/// at the export-time offset `+0100`, as Apple does, while `HKTimeZone` says `Europe/Paris`.
/// `device` attributes carry per-record `0x…` addresses and escaped `<`/`>` as real exports do.
/// The same seed and size give the same bytes.
struct AppleHealthExportGenerator {
    /// What the importer must report for a generated file.
    struct Expected {
        /// Top-level elements other than `ExportDate` and `Me`.
        var recordsSeen = 0
        /// Samples of supported types (every one valid and distinct).
        var imported = 0
        /// Top-level elements of unsupported types.
        var skipped = 0
        /// Bytes written.
        var bytes = 0
    }

    /// Roughly how many bytes to write (whole days are written, so a little more).
    var targetBytes: Int
    /// The seed of the values and addresses.
    var seed: UInt64 = 7

    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate
          value CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        ]>
        <HealthData locale="fr_FR">
         <ExportDate value="2025-01-14 09:30:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-04-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>

        """

    /// Writes the export to `path`.
    /// - Returns: what the importer must find.
    func write(to path: String) throws -> Expected {
        let file = try GeneratedFile(path: path)
        var random = SplitMix64(seed: seed)
        var expected = Expected()
        try file.append(Self.header)
        // 2024-01-01T00:00:00Z, so the file spans both winter and summer time in Paris.
        var dayStart: Int64 = 1_704_067_200
        while file.size < targetBytes {
            var text = ""
            writeDay(dayStart, into: &text, random: &random, expected: &expected)
            try file.append(text)
            dayStart += 86_400
        }
        try file.append("</HealthData>\n")
        try file.close()
        expected.bytes = file.size
        return expected
    }

    /// A timestamp as Apple writes it, at the export-time offset `+0100`.
    private static func timestamp(_ epochSeconds: Int64) -> String {
        let local = Civil.fields(epochSeconds + 3600)
        return "\(local.date) \(local.time) +0100"
    }

    /// A watch `device` attribute with a fresh object address, escaped as Apple writes it.
    private static func watch(_ random: inout SplitMix64) -> String {
        let address = String(random.next() & 0xf_ffff_ffff, radix: 16)
        return
            "&lt;&lt;HKDevice: 0x2\(address)&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2, creation date:2023-12-29 11:45:51 +0100&gt;&gt;"
    }

    /// A phone `device` attribute with a fresh object address.
    private static func phone(_ random: inout SplitMix64) -> String {
        let address = String(random.next() & 0xf_ffff_ffff, radix: 16)
        return
            "&lt;&lt;HKDevice: 0x2\(address)&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.2.1&gt;&gt;"
    }

    private static let watchSource = #"sourceName="Anna’s Apple Watch" sourceVersion="10.2""#
    private static let phoneSource = #"sourceName="Anna’s iPhone" sourceVersion="17.2.1""#

    /// One quantity record line (self-closing, or with metadata children).
    private static func record(
        _ type: String, source: String, device: String, unit: String, start: Int64, end: Int64, value: String,
        metadata: [(String, String)] = []
    ) -> String {
        var line =
            " <Record type=\"\(type)\" \(source) device=\"\(device)\" unit=\"\(unit)\" creationDate=\"\(timestamp(end + 7))\" startDate=\"\(timestamp(start))\" endDate=\"\(timestamp(end))\" value=\"\(value)\""
        if metadata.isEmpty { return line + "/>\n" }
        line += ">\n"
        for (key, value) in metadata { line += "  <MetadataEntry key=\"\(key)\" value=\"\(value)\"/>\n" }
        return line + " </Record>\n"
    }

    private func writeDay(_ day: Int64, into text: inout String, random: inout SplitMix64, expected: inout Expected) {
        func count(_ supported: Bool) {
            expected.recordsSeen += 1
            if supported { expected.imported += 1 } else { expected.skipped += 1 }
        }
        for slot in 0..<288 {
            let start = day + Int64(slot) * 300
            text += Self.record(
                "HKQuantityTypeIdentifierHeartRate", source: Self.watchSource, device: Self.watch(&random),
                unit: "count/min", start: start, end: start, value: String(55 + random.next() % 90),
                metadata: [("HKMetadataKeyHeartRateMotionContext", String(random.next() % 3))])
            count(true)
            guard slot % 2 == 0 else { continue }
            let end = start + 600
            text += Self.record(
                "HKQuantityTypeIdentifierStepCount", source: Self.watchSource, device: Self.watch(&random),
                unit: "count", start: start, end: end, value: String(random.next() % 900))
            text += Self.record(
                "HKQuantityTypeIdentifierDistanceWalkingRunning", source: Self.watchSource,
                device: Self.watch(&random), unit: "km", start: start, end: end,
                value: String(Double(random.next() % 700_000) / 1_000_000))
            text += Self.record(
                "HKQuantityTypeIdentifierActiveEnergyBurned", source: Self.watchSource, device: Self.watch(&random),
                unit: "kcal", start: start, end: end, value: String(Double(random.next() % 40_000) / 1000))
            text += Self.record(
                "HKQuantityTypeIdentifierBasalEnergyBurned", source: Self.watchSource, device: Self.watch(&random),
                unit: "kcal", start: start, end: end, value: String(Double(random.next() % 20_000) / 1000))
            count(true)
            count(true)
            count(true)
            count(false)
            if slot % 6 == 0 {
                text += Self.record(
                    "HKQuantityTypeIdentifierStepCount", source: Self.phoneSource, device: Self.phone(&random),
                    unit: "count", start: start, end: start + 1800, value: String(random.next() % 2500))
                count(true)
            }
            if slot % 12 == 0 {
                text += Self.record(
                    "HKQuantityTypeIdentifierAppleStandTime", source: Self.watchSource, device: Self.watch(&random),
                    unit: "min", start: start, end: start + 300, value: String(random.next() % 6))
                count(false)
            }
        }
        // A night: in bed, then alternating core / deep / REM / awake stages, with the zone.
        let stages = [
            "HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepCore",
            "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepCore",
            "HKCategoryValueSleepAnalysisAsleepREM", "HKCategoryValueSleepAnalysisAwake",
            "HKCategoryValueSleepAnalysisAsleepCore", "HKCategoryValueSleepAnalysisAsleepREM",
        ]
        var sleepStart = day - 3 * 3600
        for (index, stage) in stages.enumerated() {
            let end = index == 0 ? sleepStart + 8 * 3600 : sleepStart + 1800 + Int64(random.next() % 1800)
            text +=
                " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" \(Self.watchSource) device=\"\(Self.watch(&random))\" creationDate=\"\(Self.timestamp(end + 60))\" startDate=\"\(Self.timestamp(sleepStart))\" endDate=\"\(Self.timestamp(end))\" value=\"\(stage)\">\n  <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\"/>\n </Record>\n"
            count(true)
            if index > 0 { sleepStart = end }
        }
        // An evening run with metadata, events and statistics.
        let runStart = day + 17 * 3600 + Int64(random.next() % 3600)
        let runEnd = runStart + 1800 + Int64(random.next() % 1800)
        text += """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="\(Double(runEnd - runStart) / 60)" durationUnit="min" \(Self.watchSource) device="\(Self.watch(&random))" creationDate="\(Self.timestamp(runEnd + 5))" startDate="\(Self.timestamp(runStart))" endDate="\(Self.timestamp(runEnd))">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
              <MetadataEntry key="HKWeatherTemperature" value="61.9694 degF"/>
              <MetadataEntry key="HKAverageMETs" value="9.7 kcal/hr·kg"/>
              <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\(Self.timestamp(runStart))" duration="10" durationUnit="min"/>
              <WorkoutEvent type="HKWorkoutEventTypePause" date="\(Self.timestamp(runStart + 900))"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="\(Self.timestamp(runStart))" endDate="\(Self.timestamp(runEnd))" sum="5.4" unit="km"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\(Self.timestamp(runStart))" endDate="\(Self.timestamp(runEnd))" sum="412" unit="kcal"/>
             </Workout>

            """
        count(true)
        text +=
            " <ActivitySummary dateComponents=\"\(Civil.fields(day).date)\" activeEnergyBurned=\"512.3\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"Cal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"41\" appleExerciseTimeGoal=\"30\" appleStandHours=\"12\" appleStandHoursGoal=\"12\"/>\n"
        count(false)
    }
}
