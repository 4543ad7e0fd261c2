/// A sample ready for a `samples.upsert` envelope (contract §1, "Samples").
struct HealthSample: Sendable, Equatable {
    /// Stable id (see `SampleID`).
    var id: String
    /// HealthKit type identifier.
    var type: String
    /// RFC 3339 start.
    var start: String
    /// RFC 3339 end.
    var end: String
    /// IANA zone from `HKTimeZone`, when present and known.
    var timeZone: String?
    /// JSON number text of the value (quantities).
    var value: String?
    /// Unit as written (quantities).
    var unit: String?
    /// Sleep stage (sleep).
    var stage: SleepStage?
    /// Normalised source name.
    var origin: String
    /// Normalised device, when present.
    var device: String?
    /// `HKMetadataKeySyncIdentifier`, when present.
    var syncIdentifier: String?
    /// `HKMetadataKeySyncVersion`, when present.
    var syncVersion: Int64?

    /// Appends the sample as one JSON object, fields in the fixed order `id`, `type`, `start`,
    /// `end`, `timeZone`, `value`, `unit`, `stage`, `origin`, `device`, `syncIdentifier`,
    /// `syncVersion`; absent optional fields are left out.
    ///
    /// - Parameter output: the JSON text being built.
    func appendJSON(to output: inout String) {
        output.append("{\"id\":")
        JSONText.appendQuotedVerbatim(id, to: &output)
        output.append(",\"type\":")
        JSONText.appendQuotedVerbatim(type, to: &output)
        output.append(",\"start\":")
        JSONText.appendQuotedVerbatim(start, to: &output)
        output.append(",\"end\":")
        JSONText.appendQuotedVerbatim(end, to: &output)
        if let timeZone {
            output.append(",\"timeZone\":")
            JSONText.appendQuoted(timeZone, to: &output)
        }
        if let value {
            output.append(",\"value\":")
            output.append(value)
        }
        if let unit {
            output.append(",\"unit\":")
            JSONText.appendQuoted(unit, to: &output)
        }
        if let stage {
            output.append(",\"stage\":")
            JSONText.appendQuotedVerbatim(stage.rawValue, to: &output)
        }
        output.append(",\"origin\":")
        JSONText.appendQuoted(origin, to: &output)
        if let device {
            output.append(",\"device\":")
            JSONText.appendQuoted(device, to: &output)
        }
        if let syncIdentifier {
            output.append(",\"syncIdentifier\":")
            JSONText.appendQuoted(syncIdentifier, to: &output)
        }
        if let syncVersion {
            output.append(",\"syncVersion\":")
            output.append(String(syncVersion))
        }
        output.append("}")
    }
}
