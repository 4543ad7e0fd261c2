/// What the importer uses from a Fitbit `Profile.csv` (Google Takeout's `Your Profile/`, the
/// account archive's `Personal & Account/`): the account's time zone and height.
///
/// The profile's `weight_unit` is not trusted for weight logs: `weight-*.json` has been seen in
/// pounds in an export whose profile says `METRIC` (see `FitbitWeightUnit`).
struct FitbitProfile {
    /// The `timezone` column, an IANA name such as `America/New_York`.
    var timeZone: String?
    /// The `height` column in metres, when `height_unit` is `METRIC` (centimetres).
    var heightMetres: Double?

    /// Reads the first data row of the CSV.
    init(csv text: String) {
        let row = CSVRecord.rows(text).first ?? [:]
        timeZone = row["timezone"].flatMap { $0.isEmpty || $0 == "null" ? nil : $0 }
        if row["height_unit"] == "METRIC", let centimetres = row["height"].flatMap(Double.init), centimetres > 0 {
            heightMetres = centimetres / 100
        }
    }
}
