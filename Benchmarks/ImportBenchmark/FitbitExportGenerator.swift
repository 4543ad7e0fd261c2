import Foundation
import TestSupport

/// Writes a synthetic Fitbit Google Takeout folder (`Takeout/Fitbit/Global Export Data/*.json`
/// and `Your Profile/Profile.csv`), shaped like a real tracker's, and counts what the importer
/// must find in it.
///
/// Each day has its own files: steps and distance (centimetres) every minute, heart rate every
/// 10 seconds (UTC timestamps, as Fitbit writes them), a night's sleep log with stage levels and
/// one short wake inside a stage, a weight log with its BMI, an exercise log, and a resting heart
/// rate (a kind the importer skips). Local times carry no offset; the profile names
/// `Europe/Paris`, and the days run from 2024-01-01, so they cross both DST changes. The same
/// seed and size give the same bytes.
struct FitbitExportGenerator {
    /// Roughly how many bytes to write (whole days are written, so a little more).
    var targetBytes: Int
    /// The seed of the values.
    var seed: UInt64 = 11

    /// The profile: zone and a metric height the weight logs' BMI agrees with (1.70 m).
    private static let profile = """
        id,full_name,first_name,last_name,display_name_setting,username,email_address,date_of_birth,child,country,state,city,timezone,locale,member_since,start_of_week,sleep_tracking,time_display_format,gender,height,weight,weight_unit,distance_unit,height_unit
        BENCH1,"Bench, Mark",Bench,Mark,name,bench,bench@example.com,1985-04-02,false,null,null,null,Europe/Paris,fr_FR,2020-01-01,MONDAY,Normal,24hour,FEMALE,170.0,62.0,METRIC,METRIC,METRIC

        """

    /// The stage levels of a night, in order, with their minutes (480 in all: the log's length).
    private static let night: [(level: String, minutes: Int64)] = [
        ("wake", 10), ("light", 60), ("deep", 50), ("light", 40), ("rem", 30), ("wake", 5), ("light", 70),
        ("deep", 40), ("rem", 45), ("light", 60), ("rem", 40), ("wake", 30),
    ]

    /// Writes the export under the folder `path`.
    /// - Returns: what the importer must find.
    func write(to path: String) throws -> ImporterCase.Expected {
        let folder = path + "/Takeout/Fitbit/Global Export Data/"
        let profile = try GeneratedFile(path: path + "/Takeout/Fitbit/Your Profile/Profile.csv")
        try profile.append(Self.profile)
        try profile.close()
        var bytes = profile.size
        var expected = ImporterCase.Outcome()
        var random = SplitMix64(seed: seed)
        // 2024-01-01 as local wall-clock seconds (and as UTC seconds for heart rate).
        var day: Int64 = 1_704_067_200
        while bytes < targetBytes {
            let name = Civil.fields(day).date
            func file(_ kind: String, _ records: [String]) throws {
                let file = try GeneratedFile(path: folder + "\(kind)-\(name).json")
                try file.append("[" + records.joined(separator: ",") + "]\n")
                try file.close()
                bytes += file.size
            }
            let minutes = (0..<Int64(1440)).map { Civil.fields(day + $0 * 60) }
            let steps = minutes.map { time in
                let count = time.hour >= 7 && time.hour < 22 ? random.next() % 120 : random.next() % 3
                return "{\n  \"dateTime\" : \"\(time.fitbitDate) \(time.time)\",\n  \"value\" : \"\(count)\"\n}"
            }
            try file("steps", steps)
            let distances = minutes.map { time in
                "{\n  \"dateTime\" : \"\(time.fitbitDate) \(time.time)\",\n  \"value\" : \"\(random.next() % 9000)\"\n}"
            }
            try file("distance", distances)
            let heartRates = (0..<Int64(8640)).map { slot in
                let time = Civil.fields(day + slot * 10)
                return
                    "{\n  \"dateTime\" : \"\(time.fitbitDate) \(time.time)\",\n  \"value\" : {\n    \"bpm\" : \(55 + random.next() % 90),\n    \"confidence\" : \(random.next() % 4)\n  }\n}"
            }
            try file("heart_rate", heartRates)
            try file("sleep", [sleepLog(day, random: &random)])
            let kilograms = 60 + Double(random.next() % 400) / 100
            let time = Civil.fields(day + 7 * 3600 + 1800)
            try file(
                "weight",
                [
                    "{\n  \"logId\" : \((day + 7 * 3600) * 1000),\n  \"weight\" : \(kilograms),\n  \"bmi\" : \(String(format: "%.2f", kilograms / (1.7 * 1.7))),\n  \"fat\" : 24.5,\n  \"date\" : \"\(time.fitbitDate)\",\n  \"time\" : \"\(time.time)\",\n  \"source\" : \"Aria\"\n}"
                ])
            try file("exercise", [exerciseLog(day, random: &random)])
            try file(
                "resting_heart_rate",
                [
                    "{\n  \"dateTime\" : \"\(minutes[0].fitbitDate) 00:00:00\",\n  \"value\" : {\n    \"date\" : \"\(minutes[0].fitbitDate)\",\n    \"value\" : 58.4,\n    \"error\" : 6.8\n  }\n}"
                ])
            // Records: the per-minute and heart-rate entries, one sleep, weight and exercise log,
            // and the resting heart rate (seen, and skipped). Samples: those entries but the
            // last, the sleep log's inBed and its stages (the short wake cuts one stage in two:
            // two more), the weight and the workout.
            expected.records += steps.count + distances.count + heartRates.count + 4
            expected.samples += steps.count + distances.count + heartRates.count + (1 + Self.night.count + 2) + 2
            day += 86_400
        }
        return ImporterCase.Expected(bytes: bytes, outcome: expected)
    }

    /// The night starting at 23:10 the evening before `day`: eight hours of stage levels, and a
    /// 60-second wake in `shortData` inside its second stage.
    private func sleepLog(_ day: Int64, random: inout SplitMix64) -> String {
        let start = day - 50 * 60
        func stamp(_ seconds: Int64) -> String {
            let time = Civil.fields(seconds)
            return "\(time.date)T\(time.time).000"
        }
        var levels: [String] = []
        var at = start
        for (level, minutes) in Self.night {
            levels.append(
                "{\n      \"dateTime\" : \"\(stamp(at))\",\n      \"level\" : \"\(level)\",\n      \"seconds\" : \(minutes * 60)\n    }"
            )
            at += minutes * 60
        }
        let shortWake = start + (Self.night[0].minutes + 20) * 60
        return """
            {
              "logId" : \(day / 60),
              "dateOfSleep" : "\(Civil.fields(day).date)",
              "startTime" : "\(stamp(start))",
              "endTime" : "\(stamp(at))",
              "duration" : \((at - start) * 1000),
              "minutesToFallAsleep" : 0,
              "minutesAsleep" : \(400 + random.next() % 40),
              "minutesAwake" : \(30 + random.next() % 20),
              "timeInBed" : 480,
              "efficiency" : 92,
              "type" : "stages",
              "infoCode" : 0,
              "levels" : {
                "data" : [\(levels.joined(separator: ","))],
                "shortData" : [{
                  "dateTime" : "\(stamp(shortWake))",
                  "level" : "wake",
                  "seconds" : 60
                }]
              },
              "mainSleep" : true
            }
            """
    }

    /// An evening walk.
    private func exerciseLog(_ day: Int64, random: inout SplitMix64) -> String {
        let start = Civil.fields(day + 18 * 3600 + Int64(random.next() % 3600))
        return """
            {
              "logId" : \(day / 60 + 1),
              "activityName" : "Walk",
              "activityTypeId" : 90013,
              "averageHeartRate" : \(100 + random.next() % 30),
              "calories" : \(150 + random.next() % 100),
              "duration" : \(1_200_000 + random.next() % 1_800_000),
              "activeDuration" : 1229000,
              "steps" : \(1500 + random.next() % 2000),
              "logType" : "auto_detected",
              "lastModified" : "\(start.fitbitDate) 23:28:34",
              "startTime" : "\(start.fitbitDate) \(start.time)",
              "originalStartTime" : "\(start.fitbitDate) \(start.time)",
              "elevationGain" : 30.0,
              "hasGps" : false,
              "shouldFetchDetails" : false
            }
            """
    }
}
