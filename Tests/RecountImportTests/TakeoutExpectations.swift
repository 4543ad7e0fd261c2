import Foundation
import Testing

/// Expected figures computed straight from Takeout files with `JSONSerialization` and plain
/// arithmetic, independently of the importers' code.
enum TakeoutExpectations {
    /// The top-level JSON array of a file.
    static func array(_ url: URL) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
    }

    /// The top-level JSON object of a file.
    static func object(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// The JSON files in a folder whose names start with `prefix`, sorted.
    static func files(in folder: URL, prefix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
            .map { folder.appendingPathComponent($0) }
    }

    /// A number written as a JSON number or a string.
    static func number(_ value: Any?) -> Double {
        if let text = value as? String { return Double(text) ?? .nan }
        return (value as? NSNumber)?.doubleValue ?? .nan
    }

    /// Seconds of a `yyyy-MM-ddTHH:mm:ss.SSS` wall-clock time, counted on a plain calendar.
    static func wallSeconds(_ text: String) -> Int {
        let parts = text.prefix(19).split { $0 == "-" || $0 == "T" || $0 == ":" }.compactMap { Int($0) }
        let (year, month, day) = (parts[0], parts[1], parts[2])
        // Days from 1970-01-01 (proleptic Gregorian).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + parts[3] * 3600 + parts[4] * 60 + parts[5]
    }

    /// Seconds per contract stage of Fitbit sleep logs, by painting every second of each log
    /// (`startTime` to `endTime`) with its `levels.data` level, then its `levels.shortData` level
    /// over that; plus one `inBed` span per log.
    static func sleepSeconds(_ logs: [[String: Any]]) -> [String: Int] {
        let names = [
            "wake": "awake", "awake": "awake", "restless": "awake", "light": "core", "deep": "deep", "rem": "rem",
            "asleep": "asleep",
        ]
        var totals: [String: Int] = [:]
        for log in logs {
            let start = wallSeconds(log["startTime"] as? String ?? "")
            let length = wallSeconds(log["endTime"] as? String ?? "") - start
            totals["inBed", default: 0] += length
            var painted = [String?](repeating: nil, count: length)
            let levels = log["levels"] as? [String: Any] ?? [:]
            for key in ["data", "shortData"] {
                for entry in levels[key] as? [[String: Any]] ?? [] {
                    let offset = wallSeconds(entry["dateTime"] as? String ?? "") - start
                    let seconds = (entry["seconds"] as? NSNumber)?.intValue ?? 0
                    for second in max(0, offset)..<max(max(0, offset), min(length, offset + seconds)) {
                        painted[second] = names[entry["level"] as? String ?? ""]
                    }
                }
            }
            for case let stage? in painted { totals[stage, default: 0] += 1 }
        }
        return totals
    }
}
