/// What a workout sample says about the workout beyond its interval (contract §1 "Samples"):
/// its activity and its distance and energy totals, as written.
///
/// A reference, so samples of every other metric stay as small as before; immutable, so it is
/// shared freely. Totals describe the workout and never enter the `distance` and
/// `active_energy` rollups.
package final class WorkoutDetails: Equatable, Sendable {
    /// The activity as written; `nil` when the sample has none (it then counts as `other`).
    package let activity: ActivityName?
    /// The distance total (length units, canonical m).
    package let distance: WorkoutTotal?
    /// The energy total (energy units, canonical kcal).
    package let energy: WorkoutTotal?

    package init(activity: ActivityName? = nil, distance: WorkoutTotal? = nil, energy: WorkoutTotal? = nil) {
        self.activity = activity
        self.distance = distance
        self.energy = energy
    }

    /// The details, or `nil` when there are none to keep.
    package static func make(activity: ActivityName?, distance: WorkoutTotal?, energy: WorkoutTotal?)
        -> WorkoutDetails?
    {
        activity == nil && distance == nil && energy == nil
            ? nil : WorkoutDetails(activity: activity, distance: distance, energy: energy)
    }

    package static func == (lhs: WorkoutDetails, rhs: WorkoutDetails) -> Bool {
        lhs === rhs || (lhs.activity == rhs.activity && lhs.distance == rhs.distance && lhs.energy == rhs.energy)
    }
}

/// A workout total as written: a number with its unit, or a bare number in the canonical unit.
package struct WorkoutTotal: Equatable, Sendable {
    package var value: Double
    /// The unit as written; `nil` for a bare number (m or kcal).
    package var unit: UnitName?

    package init(value: Double, unit: UnitName? = nil) {
        self.value = value
        self.unit = unit
    }

    /// The value in the canonical unit (m, kcal); `nil` when the unit is not a catalogue unit.
    package var canonicalValue: Double? {
        guard let unit else { return value }
        return unit.unit?.toCanonical(value)
    }
}
