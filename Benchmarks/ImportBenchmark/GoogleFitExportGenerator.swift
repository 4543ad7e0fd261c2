import Foundation
import TestSupport

/// Writes a synthetic Google Fit Takeout folder (`Takeout/Fit/All Data/*.json`, one file per
/// data stream, and `All Sessions/*.json`), shaped like a phone's, and counts what the importer
/// must find in it.
///
/// Each day has: step deltas every minute of the waking hours in the three views a Takeout holds
/// (`estimated_steps`, which is imported, `merge_step_deltas` and the phone's `top_level`, which
/// are skipped), distance deltas at the same times, a heart rate every 5 minutes, a weight, a
/// night of sleep segments, calories every 15 minutes (skipped) and a walking session whose file
/// name carries the user's fixed offset, `+05:30`. Times are epoch nanoseconds with sub-millisecond
/// digits, as Google writes them. The same seed and size give the same bytes.
struct GoogleFitExportGenerator {
    /// Roughly how many bytes to write (whole days are written, so a little more).
    var targetBytes: Int
    /// The seed of the values.
    var seed: UInt64 = 13

    /// One data stream: its `All Data` file.
    private struct Stream {
        /// The `Data Source` name.
        var source: String
        /// The points' `dataTypeName`.
        var dataType: String
        /// The points' `originDataSourceId`.
        var origin: String
        /// Whether the importer imports it (the first preferred stream of its data type).
        var imported: Bool
    }

    private static let phone = "vivo:V2312:557f82c0f6828d19"
    private static let stepCounter = "raw:com.google.step_count.cumulative:\(phone):STEP_COUNTER"
    private static let steps = Stream(
        source: "derived:com.google.step_count.delta:com.google.android.gms:estimated_steps",
        dataType: "com.google.step_count.delta", origin: stepCounter, imported: true)
    private static let mergedSteps = Stream(
        source: "derived:com.google.step_count.delta:com.google.android.gms:merge_step_deltas",
        dataType: "com.google.step_count.delta", origin: stepCounter, imported: false)
    private static let topLevelSteps = Stream(
        source: "derived:com.google.step_count.delta:com.google.android.fit:\(phone):top_level",
        dataType: "com.google.step_count.delta", origin: stepCounter, imported: false)
    private static let distance = Stream(
        source: "derived:com.google.distance.delta:com.google.android.gms:merge_distance_delta",
        dataType: "com.google.distance.delta",
        origin: "derived:com.google.distance.delta:com.google.android.gms:pruned_distance", imported: true)
    private static let heartRate = Stream(
        source: "derived:com.google.heart_rate.bpm:com.google.android.gms:merge_heart_rate_bpm",
        dataType: "com.google.heart_rate.bpm", origin: "raw:com.google.heart_rate.bpm:com.mc.miband1:Mi Band",
        imported: true)
    private static let weight = Stream(
        source: "derived:com.google.weight:com.google.android.gms:merge_weight", dataType: "com.google.weight",
        origin: "raw:com.google.weight:com.google.android.apps.fitness:user_input", imported: true)
    private static let sleep = Stream(
        source: "derived:com.google.sleep.segment:com.google.android.gms:merged",
        dataType: "com.google.sleep.segment", origin: "raw:com.google.sleep.segment:com.urbandroid.sleep:",
        imported: true)
    private static let calories = Stream(
        source: "derived:com.google.calories.expended:com.google.android.fit:\(phone):top_level",
        dataType: "com.google.calories.expended", origin: "", imported: false)
    private static let streams = [steps, mergedSteps, topLevelSteps, distance, heartRate, weight, sleep, calories]

    /// A night's sleep segments from 23:00 (+05:30): Google's stage code and minutes.
    private static let night: [(stage: Int, minutes: Int64)] = [
        (4, 50), (5, 60), (4, 40), (6, 30), (1, 5), (4, 80), (5, 40), (6, 45), (2, 60), (6, 30), (1, 20),
    ]

    /// Writes the export under the folder `path`.
    /// - Returns: what the importer must find.
    func write(to path: String) throws -> ImporterCase.Expected {
        let folder = path + "/Takeout/Fit/"
        var files: [GeneratedFile] = []
        var pointCounts = [Int](repeating: 0, count: Self.streams.count)
        for stream in Self.streams {
            let name = stream.source.replacingOccurrences(of: ":", with: "_")
            let file = try GeneratedFile(path: folder + "All Data/\(name).json")
            try file.append("{\n    \"Data Source\": \"\(stream.source)\",\n    \"Data Points\": [\n")
            files.append(file)
        }
        // Appends a point to stream `index`, at nanosecond times, with its `fitValue` value.
        func point(_ index: Int, start: Int64, end: Int64, value: String) throws {
            let stream = Self.streams[index]
            try files[index].append(
                (pointCounts[index] == 0 ? "" : ",\n")
                    + "        {\"fitValue\":[{\"value\":{\(value)}}],\"originDataSourceId\":\"\(stream.origin)\",\"endTimeNanos\":\(end),\"dataTypeName\":\"\(stream.dataType)\",\"startTimeNanos\":\(start),\"modifiedTimeMillis\":\(end / 1_000_000 + 2_541_328),\"rawTimestampNanos\":0}"
            )
            pointCounts[index] += 1
        }
        var random = SplitMix64(seed: seed)
        var sessionBytes = 0
        var sessions = 0
        // 2025-01-01T00:00:00+05:30 in UTC seconds.
        var day: Int64 = 1_735_669_800
        while files.reduce(sessionBytes, { $0 + $1.size }) < targetBytes {
            let nanos = { (seconds: Int64) in seconds * 1_000_000_000 + Int64(random.next() % 1_000_000_000) }
            for minute in Int64(7 * 60)..<Int64(22 * 60) {
                let start = nanos(day + minute * 60)
                let end = start + 40_000_000_000 + Int64(random.next() % 19_000_000_000)
                let count = "\"intVal\":\(1 + random.next() % 110)"
                for index in 0..<3 { try point(index, start: start, end: end, value: count) }
                try point(3, start: start, end: end, value: "\"fpVal\":\(Double(random.next() % 90_000) / 1000)")
            }
            for slot in Int64(0)..<288 {
                let at = nanos(day + slot * 300)
                try point(4, start: at, end: at, value: "\"fpVal\":\(55 + random.next() % 90).0")
            }
            let weighed = nanos(day + 7 * 3600)
            try point(5, start: weighed, end: weighed, value: "\"fpVal\":\(49 + Double(random.next() % 2000) / 1000)")
            var asleep = (day - 3600) * 1_000_000_000
            for (stage, minutes) in Self.night {
                let end = asleep + minutes * 60_000_000_000
                try point(6, start: asleep, end: end, value: "\"intVal\":\(stage)")
                asleep = end
            }
            for slot in Int64(0)..<96 {
                let start = nanos(day + slot * 900)
                try point(
                    7, start: start, end: start + 899_000_000_000,
                    value: "\"fpVal\":\(Double(random.next() % 40_000) / 1000)")
            }
            sessionBytes += try writeSession(day, into: folder, random: &random)
            sessions += 1
            day += 86_400
        }
        var bytes = sessionBytes
        for file in files {
            try file.append("\n    ]\n}\n")
            try file.close()
            bytes += file.size
        }
        let imported = zip(Self.streams, pointCounts).filter(\.0.imported).map(\.1)
        return ImporterCase.Expected(
            bytes: bytes,
            outcome: ImporterCase.Outcome(
                records: pointCounts.reduce(sessions, +), samples: imported.reduce(sessions, +)))
    }

    /// An evening walk's session file.
    /// - Returns: its size.
    private func writeSession(_ day: Int64, into folder: String, random: inout SplitMix64) throws -> Int {
        let start = day + 18 * 3600 + Int64(random.next() % 3600)
        let end = start + 600 + Int64(random.next() % 1800)
        let millis = random.next() % 1000
        func utc(_ seconds: Int64) -> String {
            let time = Civil.fields(seconds)
            return "\(time.date)T\(time.time).\(String(format: "%03llu", millis))Z"
        }
        let local = Civil.fields(start + 19_800)
        let name = "\(local.date)T\(local.time.replacingOccurrences(of: ":", with: "_"))"
        let file = try GeneratedFile(
            path: folder + "All Sessions/\(name).\(String(format: "%03llu", millis))+05_30_WALKING.json")
        try file.append(
            """
            {
              "fitnessActivity": "walking",
              "startTime": "\(utc(start))",
              "endTime": "\(utc(end))",
              "duration": "\(end - start).000s",
              "segment": [{
                "fitnessActivity": "walking",
                "startTime": "\(utc(start))",
                "endTime": "\(utc(end))"
              }],
              "aggregate": [{
                "metricName": "com.google.calories.expended",
                "floatValue": \(Double(random.next() % 60_000) / 1000)
              }, {
                "metricName": "com.google.step_count.delta",
                "intValue": \(random.next() % 3000)
              }]
            }

            """)
        try file.close()
        return file.size
    }
}
