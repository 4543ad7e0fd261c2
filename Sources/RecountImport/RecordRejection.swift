/// Why a record was skipped as invalid (bad date, missing attribute, non-numeric value, ...).
struct RecordRejection: Error, Sendable, Equatable {
    /// Human-readable reason, such as `endDate is before startDate`.
    var reason: String

    /// Creates a rejection.
    /// - Parameter reason: the reason.
    init(_ reason: String) {
        self.reason = reason
    }
}
