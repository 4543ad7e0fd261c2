/// The normalised activity of a workout (contract §1 "Samples", `activity`), and the provider
/// names that map to it.
///
/// The raw value is a stable code stored in log records: codes never change meaning, and new
/// activities take new codes. A workout without an activity is `other`. The full list and every
/// mapping are documented in `schemas/README.md`.
package enum WorkoutActivity: UInt8, CaseIterable, Sendable, Hashable {
    case other = 0
    case walking = 1
    case running = 2
    case cycling = 3
    case swimming = 4
    case strengthTraining = 5
    case yoga = 6
    case hiking = 7
    case elliptical = 8
    case rowing = 9
    case hiit = 10

    /// The normalised name, as written in envelopes and output (`strength_training`).
    package var name: String {
        switch self {
        case .other: "other"
        case .walking: "walking"
        case .running: "running"
        case .cycling: "cycling"
        case .swimming: "swimming"
        case .strengthTraining: "strength_training"
        case .yoga: "yoga"
        case .hiking: "hiking"
        case .elliptical: "elliptical"
        case .rowing: "rowing"
        case .hiit: "hiit"
        }
    }

    /// Resolves an `activity` as ingest accepts it: a normalised name, an
    /// `HKWorkoutActivityType…` name or a Health Connect `EXERCISE_TYPE_…` name (exact,
    /// case-sensitive); provider names with no activity of their own are `other`.
    /// - Returns: the activity, or `nil` for a name none of the three lists has.
    package init?(name: String) {
        guard let activity = Self.byName[name] else { return nil }
        self = activity
    }

    /// Every name `init(name:)` accepts, sorted (the JSON schema's enum).
    package static var acceptedNames: [String] { byName.keys.sorted() }

    /// A Fitbit exercise log's `activityName` (`Walk`, `Outdoor Bike`, ...); unknown names are `other`.
    package init(fitbitName: String) {
        self = Self.fitbit[fitbitName] ?? .other
    }

    /// A Google Fit session's `fitnessActivity` (`walking`, `biking.road`, `interval_training.high_intensity`)
    /// or its numeric activity code; unknown ones are `other`.
    package init(googleFit: String) {
        if let activity = Self.googleFit[googleFit] {
            self = activity
        } else if let code = Int(googleFit), let activity = Self.googleFitCodes[code] {
            self = activity
        } else if let dot = googleFit.firstIndex(of: "."), let activity = Self.googleFit[String(googleFit[..<dot])] {
            self = activity
        } else {
            self = .other
        }
    }

    /// `HKWorkoutActivityType` case names (without the prefix) that map to an activity other than `other`.
    private static let healthKit: [String: WorkoutActivity] = [
        "Walking": .walking, "Running": .running, "Cycling": .cycling, "Swimming": .swimming,
        "TraditionalStrengthTraining": .strengthTraining, "FunctionalStrengthTraining": .strengthTraining,
        "Yoga": .yoga, "Hiking": .hiking, "Elliptical": .elliptical, "Rowing": .rowing,
        "HighIntensityIntervalTraining": .hiit,
    ]

    /// Every other `HKWorkoutActivityType` case name (iOS 18): all `other`.
    private static let healthKitOther = [
        "AmericanFootball", "Archery", "AustralianFootball", "Badminton", "Barre", "Baseball", "Basketball",
        "Bowling", "Boxing", "CardioDance", "Climbing", "Cooldown", "CoreTraining", "Cricket", "CrossCountrySkiing",
        "CrossTraining", "Curling", "Dance", "DanceInspiredTraining", "DiscSports", "DownhillSkiing",
        "EquestrianSports", "Fencing", "Fishing", "FitnessGaming", "Flexibility", "Golf", "Gymnastics",
        "HandCycling", "Handball", "Hockey", "Hunting", "JumpRope", "Kickboxing", "Lacrosse", "MartialArts",
        "MindAndBody", "MixedCardio", "MixedMetabolicCardioTraining", "Other", "PaddleSports", "Pickleball",
        "Pilates", "Play", "PreparationAndRecovery", "Racquetball", "Rugby", "Sailing", "SkatingSports",
        "Snowboarding", "SnowSports", "Soccer", "SocialDance", "Softball", "Squash", "StairClimbing", "Stairs",
        "StepTraining", "SurfingSports", "SwimBikeRun", "TableTennis", "TaiChi", "Tennis", "TrackAndField",
        "Transition", "UnderwaterDiving", "Volleyball", "WaterFitness", "WaterPolo", "WaterSports",
        "WheelchairRunPace", "WheelchairWalkPace", "Wrestling",
    ]

    /// Health Connect `ExerciseSessionRecord.EXERCISE_TYPE_…` names (without the prefix) that map to an
    /// activity other than `other`.
    private static let healthConnect: [String: WorkoutActivity] = [
        "WALKING": .walking, "RUNNING": .running, "RUNNING_TREADMILL": .running, "BIKING": .cycling,
        "BIKING_STATIONARY": .cycling, "SWIMMING_POOL": .swimming, "SWIMMING_OPEN_WATER": .swimming,
        "STRENGTH_TRAINING": .strengthTraining, "WEIGHTLIFTING": .strengthTraining, "YOGA": .yoga,
        "HIKING": .hiking, "ELLIPTICAL": .elliptical, "ROWING": .rowing, "ROWING_MACHINE": .rowing,
        "HIGH_INTENSITY_INTERVAL_TRAINING": .hiit,
    ]

    /// Every other Health Connect exercise type name: all `other`.
    private static let healthConnectOther = [
        "OTHER_WORKOUT", "BADMINTON", "BASEBALL", "BASKETBALL", "BOOT_CAMP", "BOXING", "CALISTHENICS", "CRICKET",
        "DANCING", "EXERCISE_CLASS", "FENCING", "FOOTBALL_AMERICAN", "FOOTBALL_AUSTRALIAN", "FRISBEE_DISC", "GOLF",
        "GUIDED_BREATHING", "GYMNASTICS", "HANDBALL", "ICE_HOCKEY", "ICE_SKATING", "MARTIAL_ARTS", "PADDLING",
        "PARAGLIDING", "PILATES", "RACQUETBALL", "ROCK_CLIMBING", "ROLLER_HOCKEY", "RUGBY", "SAILING",
        "SCUBA_DIVING", "SKATING", "SKIING", "SNOWBOARDING", "SNOWSHOEING", "SOCCER", "SOFTBALL", "SQUASH",
        "STAIR_CLIMBING", "STAIR_CLIMBING_MACHINE", "STRETCHING", "SURFING", "TABLE_TENNIS", "TENNIS", "VOLLEYBALL",
        "WATER_POLO", "WHEELCHAIR",
    ]

    /// Fitbit `activityName`s with an activity of their own.
    private static let fitbit: [String: WorkoutActivity] = [
        "Walk": .walking, "Run": .running, "Bike": .cycling, "Outdoor Bike": .cycling, "Spinning": .cycling,
        "Swim": .swimming, "Weights": .strengthTraining, "Yoga": .yoga, "Hike": .hiking, "Elliptical": .elliptical,
        "Rowing machine": .rowing, "Interval Workout": .hiit,
    ]

    /// Google Fit `fitnessActivity` names with an activity of their own; a subtype
    /// (`running.treadmill`) takes its family's unless listed.
    private static let googleFit: [String: WorkoutActivity] = [
        "walking": .walking, "running": .running, "biking": .cycling, "swimming": .swimming,
        "strength_training": .strengthTraining, "weightlifting": .strengthTraining, "yoga": .yoga,
        "hiking": .hiking, "elliptical": .elliptical, "rowing": .rowing,
        "interval_training.high_intensity": .hiit,
    ]

    /// Google Fit activity codes (`FitnessActivities`) with an activity of their own.
    private static let googleFitCodes: [Int: WorkoutActivity] = [
        7: .walking, 93: .walking, 94: .walking, 95: .walking, 116: .walking, 8: .running, 56: .running,
        57: .running, 58: .running, 1: .cycling, 14: .cycling, 15: .cycling, 16: .cycling, 17: .cycling,
        18: .cycling, 19: .cycling, 82: .swimming, 83: .swimming, 84: .swimming, 80: .strengthTraining,
        97: .strengthTraining, 100: .yoga, 35: .hiking, 25: .elliptical, 53: .rowing, 103: .rowing, 114: .hiit,
    ]

    /// Every name ingest accepts, with its activity.
    private static let byName: [String: WorkoutActivity] = {
        var names: [String: WorkoutActivity] = [:]
        for activity in allCases { names[activity.name] = activity }
        for name in healthKitOther { names["HKWorkoutActivityType" + name] = .other }
        for (name, activity) in healthKit { names["HKWorkoutActivityType" + name] = activity }
        for name in healthConnectOther { names["EXERCISE_TYPE_" + name] = .other }
        for (name, activity) in healthConnect { names["EXERCISE_TYPE_" + name] = activity }
        return names
    }()
}

/// A workout's activity and the name the client wrote for it (`running`,
/// `HKWorkoutActivityTypeRunning`, `EXERCISE_TYPE_RUNNING`).
package struct ActivityName: Equatable, Hashable, Sendable {
    package var activity: WorkoutActivity
    package var name: String

    /// Resolves a name (see `WorkoutActivity.init(name:)`); `nil` when it names no activity.
    package init?(_ name: String) {
        guard let activity = WorkoutActivity(name: name) else { return nil }
        self.init(activity: activity, name: name)
    }

    /// A name with the activity it stood for when it was written (as a log record keeps them).
    package init(activity: WorkoutActivity, name: String) {
        self.activity = activity
        self.name = name
    }
}
