/// Which unit a Fitbit weight log is in.
///
/// `weight-*.json` carries a bare number (`"weight" : 209.4`) and the export does not say its
/// unit; the profile's `weight_unit` has been seen to disagree with it (`METRIC` in the profile,
/// pounds in the file). Each log also carries the BMI Fitbit computed from the weight in
/// kilograms, so with a height the unit can be checked: the unit whose kilograms give the BMI
/// closer to the logged one wins. Without a BMI or a height the logs are taken as pounds, the
/// unit seen in Takeout exports.
enum FitbitWeightUnit {
    /// Kilograms in a pound (exact by definition).
    static let kilogramsPerPound = 0.453_592_37

    /// How a log's unit was decided.
    enum Basis {
        /// From the BMI and the height.
        case bmi
        /// No BMI or height: the default, pounds.
        case assumed
    }

    /// The unit (`kg` or `lb`) of a weight value.
    /// - Parameters:
    ///   - weight: the value as written.
    ///   - bmi: the log's BMI, if any.
    ///   - heightMetres: the account's height, if known.
    /// - Returns: the unit symbol and how it was decided.
    static func unit(weight: Double, bmi: Double?, heightMetres: Double?) -> (symbol: String, basis: Basis) {
        guard let bmi, bmi > 0, let heightMetres, heightMetres > 0 else { return ("lb", .assumed) }
        let squared = heightMetres * heightMetres
        let ifKilograms = abs(weight / squared - bmi)
        let ifPounds = abs(weight * kilogramsPerPound / squared - bmi)
        return (ifKilograms < ifPounds ? "kg" : "lb", .bmi)
    }
}
