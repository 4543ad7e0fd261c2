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
        let files = export.files.map { (kind: FitbitFile(path: $0.path), file: $0) }
        guard files.contains(where: \.kind.isImported) else {
            throw ImportError(
                code: .notAnExport, path: path,
                message:
                    "expected a Fitbit export (Google Takeout's Fitbit/Global Export Data, or the account "
                    + "archive): found no steps-, distance-, heart_rate-, sleep-, weight- or exercise-*.json file")
        }
        let profile = files.first { $0.kind == .profile }.map {
            FitbitProfile(csv: String(decoding: $0.file.data, as: UTF8.self))
        }
        let zone = try resolveZone(profile: profile, path: path)
        return try withoutActuallyEscaping(emit) { emit in
            let session = ImportSession(
                writer: EnvelopeWriter(user: user, provider: "fitbit", batchSize: batchSize, emit: emit))
            let records = FitbitRecords(session: session, zone: zone)
            records.heightMetres = profile?.heightMetres
            for (kind, file) in files where kind == .height {
                records.readHeights(try TakeoutJSON.array(of: file, in: export))
            }
            for (kind, file) in files {
                if kind.isImported {
                    let array = try TakeoutJSON.array(of: file, in: export)
                    session.tally.recordsSeen += array.count
                    try records.read(kind, records: array, file: file.path)
                } else if kind != .profile {
                    session.skip(kind.reportType, count: Self.recordCount(file))
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
                    "\(records.sleepLogsWithoutStages) sleep logs have no levels.data: imported as inBed only")
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
    static func recordCount(_ file: ExportFiles.File) -> Int {
        if file.path.hasSuffix(".csv") {
            return max(0, CSVRecord.records(String(decoding: file.data, as: UTF8.self)).count - 1)
        }
        return (try? JSONSerialization.jsonObject(with: file.data) as? [Any])?.count ?? 1
    }
}
