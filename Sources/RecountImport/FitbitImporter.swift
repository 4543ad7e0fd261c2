import Foundation
import Recount

/// Converts a Fitbit export into contract NDJSON: `samples.upsert` envelopes with
/// `"provider":"fitbit"` (contract §1).
///
/// Reads both layouts: Google Takeout's `Fitbit/Global Export Data/*.json` and the older account
/// archive's `*.json` (same record shapes), from the unpacked folder or the zip. Imported:
/// `steps-*` and `distance-*` (per minute; distance in centimetres), `heart_rate-*` (UTC
/// timestamps), `sleep-*` (an `inBed` sample per log plus its stage segments, see
/// `FitbitSleepStages`), `weight-*` (unit checked against BMI and height, see
/// `FitbitWeightUnit`) and `exercise-*` (as workouts). Every other JSON or CSV file is counted as
/// skipped by kind (`resting_heart_rate`, `sleep_score`, ...).
///
/// Fitbit writes local times without an offset: they are read in `timeZone`, else the zone of
/// the export's `Profile.csv`; each instant gets the offset in force then (DST included), and
/// samples carry the zone as `timeZone`. Files are read in path order, so the output is a pure
/// function of the export, the zone and the toolchain's tz database. Ids are derived from each
/// record (see `FitbitRecords`), so re-importing an overlapping export upserts the same samples.
package struct FitbitImporter: Sendable {
    /// The `user` of every envelope.
    package var user: String
    /// The IANA zone of the export's local times; `nil` to take the profile's.
    package var timeZone: String?
    /// Most samples per envelope.
    package var batchSize: Int

    /// Creates an importer.
    /// - Parameters:
    ///   - user: the envelopes' user (checked by `run`).
    ///   - timeZone: the zone of local times, overriding the profile's.
    ///   - batchSize: most samples per envelope (default 1000).
    package init(user: String, timeZone: String? = nil, batchSize: Int = 1000) {
        self.user = user
        self.timeZone = timeZone
        self.batchSize = batchSize
    }

    /// Imports an export folder or zip.
    /// - Parameters:
    ///   - path: the folder (any folder above the JSON files) or the Takeout zip.
    ///   - emit: receives each envelope as one JSON line without a newline; an error it throws
    ///     stops the import and is rethrown.
    /// - Returns: what was imported, skipped and rejected.
    /// - Throws: `ImportError`: `.invalidUser`, `.invalidBatchSize`, `.unreadableFile`,
    ///   `.notAnExport` (no Fitbit data files), `.timeZone` (no zone given or in the profile, or an
    ///   unknown one), `.malformedJSON` (a data file that is not a JSON array); or what `emit`
    ///   threw.
    package func run(path: String, emit: (String) throws -> Void) throws -> ImportReport {
        try ImportArguments.validate(user: user, batchSize: batchSize)
        let export = try ExportFiles.open(path: path, accepting: FitbitFile.accepts)
        let kinds = export.paths.map { (path: $0, kind: FitbitFile(path: $0)) }
        guard kinds.contains(where: \.kind.isImported) else {
            throw ImportError(
                code: .notAnExport, path: path,
                message:
                    "expected a Fitbit export (Google Takeout's Fitbit/Global Export Data, or the account "
                    + "archive): found no steps-, distance-, heart_rate-, sleep-, weight- or exercise-*.json file")
        }
        // The profile and the heights (for the weight unit) are read first; then every file in
        // path order, one at a time.
        var profile: FitbitProfile?
        try export.forEach(where: { FitbitFile(path: $0) == .profile }) { file in
            if profile == nil { profile = FitbitProfile(csv: String(decoding: file.data, as: UTF8.self)) }
        }
        let zone = try resolveZone(profile: profile, path: path)
        return try withoutActuallyEscaping(emit) { emit in
            let session = ImportSession(
                writer: EnvelopeWriter(user: user, provider: "fitbit", batchSize: batchSize, emit: emit))
            let records = FitbitRecords(session: session, zone: zone)
            records.heightMetres = profile?.heightMetres
            try export.forEach(where: { FitbitFile(path: $0) == .height }) { file in
                try records.readHeights(file, in: export)
            }
            try session.stoppingAtDamage {
                try export.forEach { file in
                    let kind = FitbitFile(path: file.path)
                    if kind.isImported {
                        session.tally.recordsSeen += try records.read(kind, file: file, in: export)
                    } else if kind != .profile {
                        let count = Self.recordCount(file, in: export)
                        session.tally.recordsSeen += count
                        session.skip(kind.reportType, count: count)
                    }
                }
            }
            try session.flush()
            session.tally.notes.append(
                "local times read in \(zone.identifier ?? "?")\(timeZone == nil ? " (from Profile.csv)" : "")")
            for (unit, count) in records.weightUnits.sorted(by: { $0.key < $1.key }) {
                session.tally.notes.append("\(count) weight logs in \(unit)")
            }
            if records.sleepLogsWithoutStages > 0 {
                session.tally.notes.append(
                    "\(records.sleepLogsWithoutStages) sleep logs have no levels.data: imported as inBed and "
                        + "minutesAsleep in one asleep sample from when they fell asleep")
            }
            return session.report()
        }
    }

    /// The zone: the one given, else the profile's.
    private func resolveZone(profile: FitbitProfile?, path: String) throws(ImportError) -> LocalTimeZone {
        guard let name = timeZone ?? profile?.timeZone else {
            throw ImportError(
                code: .timeZone, path: path,
                message:
                    "Fitbit writes local times without an offset and this export has no Profile.csv with a "
                    + "timezone: pass --time-zone ZONE (an IANA name such as America/New_York)")
        }
        guard let zone = LocalTimeZone(identifier: name) else {
            throw ImportError(
                code: .timeZone, path: path,
                message:
                    "unknown time zone \"\(name)\"\(timeZone == nil ? " in Profile.csv" : ""): expected an IANA name")
        }
        return zone
    }

    /// Records in a skipped file: the elements of a JSON array, the data rows of a CSV, else 1.
    static func recordCount(_ file: ExportFiles.File, in export: ExportFiles) -> Int {
        if file.path.hasSuffix(".csv") {
            return max(0, CSVRecord.records(String(decoding: file.data, as: UTF8.self)).count - 1)
        }
        return (try? TakeoutJSON.forEachElement(of: file, in: export) { _, _ in }) ?? 1
    }
}
