/// What a file of a Fitbit export holds, told by its name: `steps-2023-10-09.json` (Google
/// Takeout's `Global Export Data`), `steps.json`, `exercise-0.json`, `Profile.csv`, ...
enum FitbitFile: Equatable {
    /// Per-minute step counts.
    case steps
    /// Per-minute distance, in centimetres.
    case distance
    /// Heart-rate readings (UTC timestamps).
    case heartRate
    /// Sleep logs with stage levels.
    case sleep
    /// Weight logs.
    case weight
    /// Exercise logs.
    case exercise
    /// Height (millimetres): not imported, but used to check the weight unit.
    case height
    /// `Profile.csv`: the account's time zone, height and units.
    case profile
    /// Anything else, by kind (`resting_heart_rate`, `sleep_score`, ...): counted as skipped.
    case other(String)

    /// The kind of a file, by its path inside the export.
    init(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if name == "Profile.csv" {
            self = .profile
            return
        }
        var stem = Substring(name)
        if let dot = stem.lastIndex(of: ".") { stem = stem[..<dot] }
        let base = Self.kind(stem)
        switch base {
        case "steps": self = .steps
        case "distance": self = .distance
        case "heart_rate": self = .heartRate
        case "sleep": self = .sleep
        case "weight": self = .weight
        case "exercise": self = .exercise
        case "height": self = .height
        default: self = .other(String(base))
        }
    }

    /// A file's base name without its `-YYYY-MM-DD` or `-N` suffix.
    private static func kind(_ base: Substring) -> Substring {
        var parts = base.split(separator: "-", omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        if parts.count >= 4, parts.suffix(3).map(\.count) == [4, 2, 2], parts.suffix(3).allSatisfy(isDigits) {
            parts.removeLast(3)
        } else if parts.count >= 2, let last = parts.last, isDigits(last) {
            parts.removeLast()
        }
        return Substring(parts.joined(separator: "-"))
    }

    /// Whether the importer reads a file: JSON and CSV files outside a Google Fit (`Fit/`) folder
    /// of the same Takeout.
    static func accepts(_ path: String) -> Bool {
        guard path.hasSuffix(".json") || path.hasSuffix(".csv") else { return false }
        return !path.split(separator: "/").dropLast().contains("Fit")
    }

    /// The name the report counts the file's records under.
    var reportType: String {
        switch self {
        case .steps: "steps"
        case .distance: "distance"
        case .heartRate: "heart_rate"
        case .sleep: "sleep"
        case .weight: "weight"
        case .exercise: "exercise"
        case .height: "height"
        case .profile: "Profile.csv"
        case .other(let kind): kind
        }
    }

    /// Whether the file holds samples the importer imports.
    var isImported: Bool {
        switch self {
        case .steps, .distance, .heartRate, .sleep, .weight, .exercise: true
        case .height, .profile, .other: false
        }
    }
}
