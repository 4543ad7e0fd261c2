import Recount

/// The Google Fit data streams the importer reads: one stream per data type.
///
/// A Takeout's `All Data` holds several streams per data type, and for steps they are views of
/// the same phone samples (`…:top_level`, `…:estimated_steps`, `…:merge_step_deltas`): summing
/// them all counts each step two or three times. For each data type the first stream of
/// `preferred` present in the export is imported and every other stream is skipped; for steps
/// that is `estimated_steps`, the stream Google's own daily totals (`Daily activity metrics`)
/// add up.
struct GoogleFitStream {
    /// The Google Fit data type, such as `com.google.step_count.delta`.
    var dataType: String
    /// The catalogue metric its points become.
    var metric: String
    /// The unit of its values (`nil` for sleep, whose value is a stage).
    var unit: String?
    /// Data source names, best first.
    var preferred: [String]

    /// Every data type imported.
    static let all: [GoogleFitStream] = [
        GoogleFitStream(
            dataType: "com.google.step_count.delta", metric: "steps", unit: "count",
            preferred: [
                "derived:com.google.step_count.delta:com.google.android.gms:estimated_steps",
                "derived:com.google.step_count.delta:com.google.android.gms:merge_step_deltas",
            ]),
        GoogleFitStream(
            dataType: "com.google.distance.delta", metric: "distance", unit: "m",
            preferred: ["derived:com.google.distance.delta:com.google.android.gms:merge_distance_delta"]),
        GoogleFitStream(
            dataType: "com.google.heart_rate.bpm", metric: "heart_rate", unit: "count/min",
            preferred: ["derived:com.google.heart_rate.bpm:com.google.android.gms:merge_heart_rate_bpm"]),
        GoogleFitStream(
            dataType: "com.google.weight", metric: "weight", unit: "kg",
            preferred: ["derived:com.google.weight:com.google.android.gms:merge_weight"]),
        sleep,
    ]

    /// The sleep segments' stream.
    static let sleep = GoogleFitStream(
        dataType: "com.google.sleep.segment", metric: "sleep", unit: nil,
        preferred: ["derived:com.google.sleep.segment:com.google.android.gms:merged"])

    /// The origin of every Google Fit sleep sample, sessions' and their segments' too: the sleep
    /// stream's app (see `GoogleFitImporter.sleepSample`).
    static let sleepOrigin = origin(ofSource: sleep.preferred[0])

    /// The data type of a data source name: its second `:`-separated field
    /// (`derived:com.google.weight:…` → `com.google.weight`).
    static func dataType(ofSource source: String) -> String {
        let fields = source.split(separator: ":", omittingEmptySubsequences: false)
        return fields.count > 1 ? String(fields[1]) : source
    }

    /// The app of a data source name, the `origin` of its samples: the field after the data
    /// type when it looks like a package name (`com.google.android.gms`), else `com.google.android.gms`.
    static func origin(ofSource source: String) -> String {
        let fields = source.split(separator: ":", omittingEmptySubsequences: false)
        if fields.count > 2, fields[2].contains(".") { return String(fields[2]) }
        return "com.google.android.gms"
    }

    /// The stage of a sleep session's `fitnessActivity` (`sleep`, activity 72, is the time in
    /// bed; `sleep.light`, `sleep.deep`, `sleep.rem` and `sleep.awake`, 109–112, are stages),
    /// or `nil` for any other activity.
    static func sleepStage(sessionActivity activity: String) -> SleepStage? {
        switch activity {
        case "sleep", "72": .inBed
        case "sleep.light", "109": .core
        case "sleep.deep", "110": .deep
        case "sleep.rem", "111": .rem
        case "sleep.awake", "112": .awake
        default: nil
        }
    }

    /// The contract stage of a `com.google.sleep.segment` value: 1 awake, 2 sleep, 3 out of bed
    /// (taken as awake), 4 light (`core`), 5 deep, 6 REM.
    static func sleepStage(_ value: Int64) -> SleepStage? {
        switch value {
        case 1, 3: .awake
        case 2: .asleep
        case 4: .core
        case 5: .deep
        case 6: .rem
        default: nil
        }
    }
}
