import Recount

extension SleepStage {
    /// The stage of an `HKCategoryTypeIdentifierSleepAnalysis` value.
    ///
    /// Accepts the names exports write (`HKCategoryValueSleepAnalysisInBed`, `…Asleep`,
    /// `…AsleepUnspecified`, `…Awake`, `…AsleepCore`, `…AsleepDeep`, `…AsleepREM`) and, for
    /// robustness, the raw `HKCategoryValueSleepAnalysis` integers 0–5.
    /// - Parameter categoryValue: the `value` attribute as written.
    /// - Returns: the stage, or `nil` for an unknown value.
    init?(categoryValue: String) {
        switch categoryValue {
        case "HKCategoryValueSleepAnalysisInBed", "0": self = .inBed
        case "HKCategoryValueSleepAnalysisAsleep", "HKCategoryValueSleepAnalysisAsleepUnspecified", "1":
            self = .asleep
        case "HKCategoryValueSleepAnalysisAwake", "2": self = .awake
        case "HKCategoryValueSleepAnalysisAsleepCore", "3": self = .core
        case "HKCategoryValueSleepAnalysisAsleepDeep", "4": self = .deep
        case "HKCategoryValueSleepAnalysisAsleepREM", "5": self = .rem
        default: return nil
        }
    }
}
