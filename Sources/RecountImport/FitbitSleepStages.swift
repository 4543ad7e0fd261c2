import Recount

/// The stage segments of a Fitbit sleep log, laid out without overlaps.
///
/// A log's `levels.data` is a sequence of `{dateTime, level, seconds}`; for `stages` logs,
/// `levels.shortData` adds short wakes (≤ 3 min) that lie *inside* longer `data` segments.
/// Fitbit's own minutes asleep leave those wakes out, so here they are cut out of the segments
/// they overlap and become `awake` segments of their own. Every segment is clipped to the log's
/// `[startTime, endTime]` (the last `data` entry often runs 30 s past the end).
///
/// Levels: `stages` logs `wake` → `awake`, `light` → `core`, `deep` → `deep`, `rem` → `rem`;
/// `classic` logs `asleep` → `asleep`, `restless` → `awake`, `awake` → `awake` (Fitbit counts
/// restless minutes as awake in `minutesAwake`).
enum FitbitSleepStages {
    /// One segment, in milliseconds from the log's start.
    struct Segment: Equatable {
        var stage: SleepStage
        var start: Int64
        var end: Int64
    }

    /// One entry of `levels.data` or `levels.shortData`, in milliseconds from the log's start.
    struct Level {
        var level: String
        var start: Int64
        var seconds: Int64
    }

    /// The stage of a Fitbit level name, or `nil` for a name Fitbit is not known to write.
    static func stage(_ level: String) -> SleepStage? {
        switch level {
        case "wake", "awake", "restless": .awake
        case "light": .core
        case "deep": .deep
        case "rem": .rem
        case "asleep": .asleep
        default: nil
        }
    }

    /// Lays out a log's levels.
    /// - Parameters:
    ///   - length: the log's length in milliseconds (`endTime − startTime`).
    ///   - data: `levels.data`.
    ///   - shortData: `levels.shortData` (short wakes).
    /// - Returns: the segments, sorted by start, none empty, none overlapping another.
    /// - Throws: `RecordRejection` for an unknown level name.
    static func segments(length: Int64, data: [Level], shortData: [Level]) throws(RecordRejection) -> [Segment] {
        var segments: [Segment] = []
        for level in data {
            guard let stage = stage(level.level) else {
                throw RecordRejection("unknown sleep level \"\(level.level)\"")
            }
            let start = max(0, level.start)
            let end = min(length, level.start + level.seconds * 1000)
            if start < end { segments.append(Segment(stage: stage, start: start, end: end)) }
        }
        for level in shortData {
            guard let stage = stage(level.level) else {
                throw RecordRejection("unknown sleep level \"\(level.level)\"")
            }
            let start = max(0, level.start)
            let end = min(length, level.start + level.seconds * 1000)
            guard start < end else { continue }
            var carved: [Segment] = []
            for segment in segments {
                guard segment.start < end, start < segment.end else {
                    carved.append(segment)
                    continue
                }
                if segment.start < start {
                    carved.append(Segment(stage: segment.stage, start: segment.start, end: start))
                }
                if end < segment.end { carved.append(Segment(stage: segment.stage, start: end, end: segment.end)) }
            }
            carved.append(Segment(stage: stage, start: start, end: end))
            segments = carved
        }
        return segments.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
    }
}
