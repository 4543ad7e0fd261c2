/// The part of a sample attributed to one civil day.
package struct DayShare: Equatable, Sendable {
    /// The civil day.
    package var day: CivilDay
    /// The share of the sample on that day, in `(0, 1]`; a sample's shares sum to exactly 1.
    package var fraction: Double

    /// Creates a share.
    /// - Parameters:
    ///   - day: the civil day.
    ///   - fraction: the share of the sample on that day.
    package init(day: CivilDay, fraction: Double) {
        self.day = day
        self.fraction = fraction
    }
}
