import Foundation
import Recount
import RecountLog

/// The commands that answer from the projections: `recompute`, `rollups`, `samples`, `dirty`,
/// `digest`, `replay` and `verify`.
enum ProjectionCommands {
    /// Runs `body` on the engine of an existing data directory (a mistyped `--data` is "no log
    /// at", not a new log), and closes it. Queries open it read-only, so they answer while
    /// another process ingests, and a query about one `user` folds only that user's records
    /// rather than loading every user's projections; `writing` takes the writer's lock.
    static func withEngine<T>(
        _ invocation: Invocation, writing: Bool = false, recompute: Bool = true, user: String? = nil,
        _ body: (RecountEngine) throws -> T
    ) throws -> T {
        let engine: RecountEngine
        let progress = progress(invocation)
        if writing {
            try requireLog(invocation)
            engine = try RecountEngine(
                directory: invocation.dataDirectory, memoryLimit: invocation.memoryLimit(), progress: progress)
            // Opening for writing cuts a torn tail (keeping a copy): say so, as ingest does.
            Output.opened(engine, json: invocation.json)
        } else if let user {
            engine = try RecountEngine(readingDirectory: invocation.dataDirectory, user: user, progress: progress)
        } else {
            engine = try RecountEngine(
                readingDirectory: invocation.dataDirectory, recompute: recompute, memoryLimit: invocation.memoryLimit(),
                progress: progress)
        }
        let result = try body(engine)
        try engine.close()
        if writing { Output.closed(engine, json: invocation.json) } else { Output.read(engine, json: invocation.json) }
        return result
    }

    /// Throws `LogError(.noLog)` when the data directory has no log: a command that writes
    /// must not create one there.
    static func requireLog(_ invocation: Invocation) throws {
        _ = try RecountEngine.logReader(directory: invocation.dataDirectory)
    }

    static func recompute(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let days = try withEngine(invocation, writing: true) { try $0.recompute() }
        if invocation.json {
            Output.jsonLine([("daysRecomputed", .int(Int64(days)))])
        } else {
            print("recomputed \(days.counted("day"))")
        }
        return .success
    }

    static func rollups(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user", "metric", "from", "to", "as-of"])
        let user = try invocation.requireUser()
        let metric = try invocation.require("metric")
        let rows = try withEngine(invocation, user: user) {
            try $0.rollups(
                user: user, metric: metric, from: invocation.options["from"], to: invocation.options["to"],
                asOf: invocation.options["as-of"])
        }
        if rows.count == Projections.defaultQueryDays,
            invocation.options["from"] == nil || invocation.options["to"] == nil
        {
            Output.notice(
                "at most \(rows.count) days are shown at once; --from and --to ask for others", event: "truncated",
                [("days", .int(Int64(rows.count)))], json: invocation.json)
        }
        if invocation.json {
            for row in rows { Output.jsonLine(fields(row)) }
        } else {
            Output.table(
                ["date", "state", "values", "why not known", "unit", "version"],
                rows.map { row in
                    let (values, reason) = parts(row.reading)
                    return [
                        row.date, row.state.rawValue,
                        values.map { "\($0.name) \(Output.text(of: $0.value))" }.joined(separator: ", "),
                        reason?.rawValue ?? "", row.unit, row.version.map(String.init) ?? "",
                    ]
                })
        }
        return .success
    }

    /// The figures of a known or partial day; `nil` for an unknown one.
    static func figures(_ reading: RollupRow.Reading) -> [RollupRow.Value]? {
        reading.state == .unknown ? nil : parts(reading).0
    }

    /// A row's figures and the reason it is not known.
    static func parts(_ reading: RollupRow.Reading) -> ([RollupRow.Value], RollupRow.Reason?) {
        switch reading {
        case .known(let values), .partial(let values, _): (values, reading.reason)
        case .unknown: ([], reading.reason)
        }
    }

    /// The contract's JSON row: figures only for known and partial days, a reason when not known.
    static func fields(_ row: RollupRow) -> [(String, Output.Value)] {
        let (values, reason) = parts(row.reading)
        var fields: [(String, Output.Value)] = [
            ("user", .string(row.user)), ("metric", .string(row.metric)), ("date", .string(row.date)),
            ("state", .string(row.state.rawValue)),
        ]
        fields += values.map { ($0.name, Output.number($0.value)) }
        if let reason { fields.append(("reason", .string(reason.rawValue))) }
        fields.append(("unit", .string(row.unit)))
        fields.append(("version", row.version.map { .int(Int64($0)) } ?? .null))
        return fields
    }

    static func samples(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user", "metric", "day"])
        let (user, metric, day) = (
            try invocation.requireUser(), try invocation.require("metric"), try invocation.require("day")
        )
        let rows = try withEngine(invocation, user: user) { try $0.samples(user: user, metric: metric, day: day) }
        // The unit of `value` (the query named a known metric, or it failed above).
        let unit = Metric.resolve(typeName: metric)?.canonicalUnit ?? ""
        if invocation.json {
            for row in rows {
                Output.jsonLine([
                    ("provider", .string(row.provider)), ("id", .string(row.id)), ("start", .string(row.start)),
                    ("end", .string(row.end)), ("timeZone", row.timeZone.map { .string($0) } ?? .null),
                    ("value", row.value.map(Output.number) ?? .null),
                    ("unit", row.value == nil ? .null : .string(unit)),
                    ("originalValue", row.originalValue.map(Output.number) ?? .null),
                    ("originalUnit", row.originalUnit.map { .string($0) } ?? .null),
                    ("stage", row.stage.map { .string($0) } ?? .null), ("origin", .string(row.origin)),
                    ("device", row.device.map { .string($0) } ?? .null), ("position", .int(Int64(row.position))),
                    ("activity", row.activity.map { .string($0) } ?? .null),
                    ("distance", row.distance.map(Output.number) ?? .null),
                    ("energy", row.energy.map(Output.number) ?? .null),
                ])
            }
        } else {
            // Workouts get a column with their activity and totals; samples that named a zone,
            // one with it (their times are in it).
            let workouts = rows.contains { $0.activity != nil }
            let zones = rows.contains { $0.timeZone != nil }
            Output.table(
                ["start", "end"] + (zones ? ["zone"] : []) + ["value", "stage"] + (workouts ? ["workout"] : []) + [
                    "origin", "device", "provider", "id",
                ],
                rows.map { row in
                    let workout = [
                        row.activity, row.distance.map { "\(Output.text(of: $0)) m" },
                        row.energy.map { "\(Output.text(of: $0)) kcal" },
                    ].compactMap { $0 }.joined(separator: " ")
                    // The value in the metric's unit, and as written when that was another unit.
                    var written = ""
                    if let original = row.originalValue, let symbol = row.originalUnit, symbol != unit {
                        written = " (\(Output.text(of: original)) \(symbol))"
                    }
                    let value = row.value.map { "\(Output.text(of: $0)) \(unit)\(written)" } ?? ""
                    return [row.start, row.end] + (zones ? [row.timeZone ?? ""] : []) + [value, row.stage ?? ""]
                        + (workouts ? [workout] : []) + [row.origin, row.device ?? "", row.provider, row.id]
                })
        }
        return .success
    }

    static func audit(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user", "metric", "day"])
        let (user, metric, day) = (
            try invocation.requireUser(), try invocation.require("metric"), try invocation.require("day")
        )
        let (audit, row) = try withEngine(invocation, user: user) { engine in
            let audit = try engine.audit(user: user, metric: metric, day: day)
            return (
                audit, audit == nil ? try engine.rollups(user: user, metric: metric, from: day, to: day).first : nil
            )
        }
        if let audit {
            if invocation.json { printJSON(audit) } else { printText(audit) }
        } else {
            printNoRollup(user: user, metric: metric, day: day, row: row, json: invocation.json)
        }
        return .success
    }

    /// A day no sample ever counted towards: an answer, not a failure, read as `rollups` gives
    /// its row (a known day's zeros with a count of 0, an unknown day's reason; in JSON an
    /// unknown day has no figures, where `rollups` gives `"value": 0`).
    private static func printNoRollup(user: String, metric: String, day: String, row: RollupRow?, json: Bool) {
        let state = row?.state ?? .unknown
        if json {
            let cell: [(String, Output.Value)] =
                if let row { fields(row) } else {
                    [
                        ("user", .string(user)), ("metric", .string(metric)), ("date", .string(day)),
                        ("state", .string(state.rawValue)), ("version", .null),
                    ]
                }
            Output.jsonLine([("line", .string("cell"))] + cell)
            return
        }
        let values: [RollupRow.Value] = row.flatMap { Self.figures($0.reading) } ?? []
        let shown = values.map { "\($0.name) \(Output.text(of: $0.value))" }.joined(separator: ", ")
        let reading =
            state == .unknown ? "unknown (\(row?.reading.reason?.rawValue ?? ""))" : "\(state.rawValue): \(shown)"
        print("no rollup for \(day): no sample has counted towards it; \(reading)")
    }

    /// An audit as JSON lines: the cell, each version, each source.
    private static func printJSON(_ audit: CellAudit) {
        Output.jsonLine(
            [
                ("line", .string("cell")), ("user", .string(audit.user)), ("metric", .string(audit.metric)),
                ("date", .string(audit.date)), ("state", .string(audit.state.rawValue)),
            ]
                // As `rollups`: an unknown day has no value, it is not 0.
                + (audit.state == .unknown ? [] : audit.values.map { ($0.name, Output.number($0.value)) })
                + (audit.reason.map { [("reason", .string($0.rawValue))] } ?? [])
                + [("unit", .string(audit.unit)), ("version", .int(Int64(audit.version)))])
        for version in audit.history {
            Output.jsonLine(
                [
                    ("line", .string("version")), ("version", .int(Int64(version.version))),
                    ("kind", .string(version.kind)), ("receivedAt", .string(version.receivedAt)),
                ] + version.values.map { ($0.name, Output.number($0.value)) } + [
                    ("added", Output.array(version.added)), ("removed", Output.array(version.removed)),
                ])
        }
        for share in audit.sources {
            Output.jsonLine([
                ("line", .string("source")), ("origin", .string(share.origin)),
                ("device", share.device.map { .string($0) } ?? .null),
                ("samples", .int(Int64(share.samples))), ("counted", Output.number(share.counted)),
                ("countedSeconds", Output.number(share.countedSeconds)),
                ("suppressed", Output.number(share.suppressed)),
                ("suppressedSeconds", Output.number(share.suppressedSeconds)),
                ("suppressedBy", share.suppressedBy.map { .string($0) } ?? .null),
                ("suppressedByOrigin", share.suppressedByOrigin.map { .string($0) } ?? .null),
                ("suppressedByDevice", share.suppressedByDevice.map { .string($0) } ?? .null),
            ])
        }
    }

    /// An audit as text: the cell, a table of its versions, the ids each moved, the sources.
    private static func printText(_ audit: CellAudit) {
        switch (audit.state, audit.reason) {
        case (.unknown, let reason):
            print(
                "\(audit.metric) \(audit.date): unknown (\(reason?.rawValue ?? "")), no sample counts "
                    + "towards it (version \(audit.version))")
        case (.partial, let reason):
            print("\(audit.summary) (version \(audit.version)); partial: \(reason?.rawValue ?? "")")
        case (.known, _):
            print("\(audit.summary) (version \(audit.version))")
        }
        print("\nversions:")
        Output.table(
            ["version", "event", "received", "values", "samples in", "samples out"],
            audit.history.map { version in
                [
                    String(version.version), version.kind, version.receivedAt,
                    version.values.map { "\($0.name) \(Output.text(of: $0.value))" }.joined(separator: ", "),
                    String(version.added.count), String(version.removed.count),
                ]
            })
        // The ids below the table: a delivery of hundreds of samples made its cells lines of
        // thousands of characters, and every other row as wide.
        let moves = audit.history.flatMap { version in
            [("in", version.added), ("out", version.removed)].filter { !$0.1.isEmpty }.map {
                ("version \(version.version) \($0.0)", $0.1)
            }
        }
        if !moves.isEmpty {
            print("\nsamples in and out:")
            let width = moves.map(\.0.count).max() ?? 0
            for (label, ids) in moves {
                for (place, line) in Output.wrapped(ids, width: 100 - width).enumerated() {
                    print(Output.padded(place == 0 ? label : "", to: width) + "  " + line)
                }
            }
        }
        if !audit.sources.isEmpty {
            print("\nsources now:")
            Output.table(
                ["origin", "device", "samples", "counted", "suppressed", "suppressed by"],
                audit.sources.map { share in
                    [
                        share.origin, share.device ?? "", String(share.samples), Output.text(of: share.counted),
                        Output.text(of: share.suppressed), share.suppressedBy ?? "",
                    ]
                })
        }
    }

    static func cursor(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user", "provider", "metric"])
        let (user, provider, metric) = (
            try invocation.requireUser(), try invocation.require("provider"), try invocation.require("metric")
        )
        let row = try withEngine(invocation, user: user) {
            try $0.cursor(user: user, provider: provider, metric: metric)
        }
        // No cursor is an answer, not a failure: the client starts from a nil anchor.
        guard let row else {
            if invocation.json {
                Output.jsonLine([
                    ("user", .string(user)), ("provider", .string(provider)), ("metric", .string(metric)),
                    ("cursor", .null), ("state", .string("none")),
                ])
            } else {
                print("no cursor: \(provider) never synced \(metric) for \(user) (a client starts from a nil anchor)")
            }
            return .success
        }
        func optional(_ text: String?) -> Output.Value { text.map { .string($0) } ?? .null }
        func windows(_ windows: [TimeWindow]) -> Output.Value {
            .raw(
                "["
                    + windows.map { Output.json([("from", .string($0.from)), ("to", .string($0.to))]) }.joined(
                        separator: ",") + "]")
        }
        let fields: [(String, Output.Value)] = [
            ("user", .string(row.user)), ("provider", .string(row.provider)), ("metric", .string(row.metric)),
            ("cursor", optional(row.cursor)), ("kind", optional(row.kind)), ("state", .string(row.state)),
            ("recoveryWindows", windows(row.recoveryWindows)), ("unrecoverable", windows(row.unrecoverable)),
            ("lastCheckinAt", optional(row.lastCheckinAt)), ("lastSampleAt", optional(row.lastSampleAt)),
            ("fullRedeliveries", .int(Int64(row.fullRedeliveries))),
            ("lastFullRedeliveryNew", row.lastFullRedelivery.map { .int(Int64($0.new)) } ?? .null),
            ("lastFullRedeliveryKnown", row.lastFullRedelivery.map { .int(Int64($0.known)) } ?? .null),
            ("stuck", .bool(row.stuck)),
        ]
        if invocation.json {
            Output.jsonLine(fields)
        } else {
            // As the other tables: strings unquoted, windows as `FROM to TO`.
            func text(_ windows: [TimeWindow]) -> String {
                windows.isEmpty ? "none" : windows.map { "\($0.from) to \($0.to)" }.joined(separator: ", ")
            }
            let windowTexts = ["recoveryWindows": text(row.recoveryWindows), "unrecoverable": text(row.unrecoverable)]
            for (name, value) in fields {
                print(Output.padded(name, to: 24) + (windowTexts[name] ?? Output.plainText(value)))
            }
        }
        return .success
    }

    static func stats(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        // What the projections hold: days left dirty (`ingest --no-recompute`) are counted as
        // such, not recomputed first (which made `dirtyDays` always 0).
        let stats = try withEngine(invocation, recompute: false) { try $0.stats() }
        let totals: [(String, Int)] = [
            ("users", stats.users), ("liveSamples", stats.liveSamples), ("deletedIds", stats.deletedIds),
            ("rollups", stats.rollups), ("dirtyDays", stats.dirtyDays),
        ]
        if invocation.json {
            Output.jsonLine([("position", .int(Int64(stats.position)))] + totals.map { ($0, .int(Int64($1))) })
            for row in stats.providers {
                Output.jsonLine(
                    [("provider", .string(row.provider))]
                        + providerFigures(row).map { ($0, .int(Int64($1))) })
            }
        } else {
            print("position \(stats.position)")
            Output.table(["", "count"], totals.map { [$0, String($1)] })
            print("")
            Output.table(
                ["provider"] + providerFigures(EngineStats.ProviderStats(provider: "")).map(\.0),
                stats.providers.map { row in [row.provider] + providerFigures(row).map { String($1) } })
        }
        return .success
    }

    /// A provider's figures by name, in column order.
    private static func providerFigures(_ row: EngineStats.ProviderStats) -> [(String, Int)] {
        [
            ("channels", row.channels), ("users", row.users), ("needsRecovery", row.needsRecovery),
            ("unrecoverable", row.unrecoverable), ("stuck", row.stuck), ("fullRedeliveries", row.fullRedeliveries),
            ("redeliveredNew", row.redeliveredNew), ("redeliveredKnown", row.redeliveredKnown),
        ]
    }

    static func stale(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["as-of"])
        let report = try withEngine(invocation) { try $0.stale(asOf: invocation.options["as-of"]) }
        if invocation.json {
            for row in report.rows {
                Output.jsonLine([
                    ("user", .string(row.user)), ("provider", .string(row.provider)), ("metric", .string(row.metric)),
                    ("cohort", row.cohort.map { .string($0) } ?? .null),
                    ("lastCheckinAt", row.lastCheckinAt.map { .string($0) } ?? .null),
                    ("silenceSeconds", row.silenceSeconds.map { .int($0) } ?? .null),
                    ("expectedSeconds", .int(row.expectedSeconds)),
                ])
            }
            for fraction in report.fractions {
                Output.jsonLine([
                    ("provider", .string(fraction.provider)), ("cohort", fraction.cohort.map { .string($0) } ?? .null),
                    ("users", .int(Int64(fraction.users))), ("staleUsers", .int(Int64(fraction.staleUsers))),
                    ("fraction", .double(fraction.fraction)),
                ])
            }
        } else {
            print("as of \(report.asOf)")
            Output.table(
                ["user", "provider", "metric", "cohort", "last check-in", "silence (s)", "expected (s)"],
                report.rows.map { row in
                    [
                        row.user, row.provider, row.metric, row.cohort ?? "", row.lastCheckinAt ?? "never",
                        row.silenceSeconds.map(String.init) ?? "", String(row.expectedSeconds),
                    ]
                })
            print("")
            Output.table(
                ["provider", "cohort", "users", "stale", "fraction"],
                report.fractions.map { fraction in
                    [
                        fraction.provider, fraction.cohort ?? "", String(fraction.users), String(fraction.staleUsers),
                        String(format: "%.3f", fraction.fraction),
                    ]
                })
        }
        return .success
    }

    static func changes(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["since", "user"])
        guard let since = UInt64(try invocation.require("since")) else {
            throw UsageError(message: "--since needs a version (a log position)")
        }
        let user = try invocation.user()
        let rows = try withEngine(invocation, user: user) { try $0.changes(since: since, user: user) }
        func text(_ values: [RollupRow.Value]?) -> String {
            values.map { $0.map { "\($0.name) \(Output.text(of: $0.value))" }.joined(separator: ", ") } ?? "none"
        }
        // The old reading with its state when it was not known: a partial day's figures alone
        // read as known.
        func was(_ old: RollupRow.Reading) -> String {
            switch old {
            case .known: text(figures(old))
            case .partial(_, let why): "\(text(figures(old))) (partial: \(why.rawValue))"
            case .unknown(let why): "unknown (\(why.rawValue))"
            }
        }
        if invocation.json {
            for row in rows {
                func object(_ values: [RollupRow.Value]?) -> Output.Value {
                    values.map { .raw(Output.json($0.map { ($0.name, Output.number($0.value)) })) } ?? .null
                }
                let reason = parts(row.new).1
                var fields: [(String, Output.Value)] = [
                    ("user", .string(row.user)), ("metric", .string(row.metric)), ("date", .string(row.date)),
                    ("version", .int(Int64(row.version))), ("old", object(figures(row.old))),
                    ("oldState", .string(row.old.state.rawValue)),
                ]
                if let reason = row.old.reason { fields.append(("oldReason", .string(reason.rawValue))) }
                fields += [
                    ("new", object(figures(row.new))), ("state", .string(row.new.state.rawValue)),
                ]
                if let reason { fields.append(("reason", .string(reason.rawValue))) }
                Output.jsonLine(fields)
            }
        } else {
            Output.table(
                ["user", "metric", "date", "version", "old", "new", "state", "why not known"],
                rows.map { row in
                    let reason = parts(row.new).1
                    return [
                        row.user, row.metric, row.date, String(row.version),
                        was(row.old), text(figures(row.new)), row.new.state.rawValue, reason?.rawValue ?? "",
                    ]
                })
        }
        return .success
    }

    static func dirty(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let rows = try withEngine(invocation, recompute: false) { try $0.dirtyDays() }
        if invocation.json {
            for row in rows {
                Output.jsonLine([
                    ("user", .string(row.user)), ("provider", .string(row.provider)), ("metric", .string(row.metric)),
                    ("date", .string(row.date)), ("position", .int(Int64(row.position))),
                ])
            }
        } else {
            Output.table(
                ["user", "provider", "metric", "date", "position"],
                rows.map { [$0.user, $0.provider, $0.metric, $0.date, String($0.position)] })
        }
        return .success
    }

    static func digest(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        let digest = try withEngine(invocation) { try $0.digest() }
        if invocation.json { Output.jsonLine([("digest", .string(digest))]) } else { print(digest) }
        return .success
    }

    static func replay(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["user", "until"])
        let until = try invocation.options["until"].map { text throws(UsageError) -> UInt64 in
            guard let value = UInt64(text) else { throw UsageError(message: "--until needs a log position") }
            return value
        }
        let result = try RecountEngine.replay(
            directory: invocation.dataDirectory, user: try invocation.user(), until: until,
            progress: progress(invocation))
        if invocation.json {
            Output.jsonLine(fields(result))
        } else {
            print(
                "replayed \(result.records.counted("record")) (\(result.samples.counted("sample"))) up to position \(result.lastPosition) "
                    + "with tz data \(result.zoneDataVersion)"
                    + (result.userGroups > 1 ? ", \(result.userGroups) groups of users one after another" : "")
                    + "\ndigest \(result.digest)")
        }
        return .success
    }

    static func verify(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly([])
        try requireLog(invocation)
        let result = try RecountEngine.verify(
            directory: invocation.dataDirectory, memoryLimit: invocation.memoryLimit(), progress: progress(invocation))
        if invocation.json {
            Output.jsonLine(
                [
                    ("ok", .bool(result.matches)), ("logRecords", .int(Int64(result.log.records))),
                    ("stored", .string(result.stored)),
                    ("uncommittedTail", result.uncommittedTail.map { .string($0.description) } ?? .null),
                    ("unusableCheckpoints", Output.array(result.unusableCheckpoints.map(\.description))),
                ]
                    + fields(result.replay))
        } else {
            print("log ok: \(result.log.records) records, every checksum matches")
            if let tail = result.uncommittedTail { print(LogCommands.uncommittedTailLine(tail)) }
            for checkpoint in result.unusableCheckpoints { print(checkpoint) }
            print("stored projections  \(result.stored)")
            print("replay from scratch \(result.replay.digest) (tz data \(result.replay.zoneDataVersion))")
            print(result.matches ? "verify ok: the digests match" : "verify FAILED: the digests differ")
        }
        return result.matches ? .success : .verificationFailed
    }

    static func fields(_ result: ReplayResult) -> [(String, Output.Value)] {
        [
            ("records", .int(Int64(result.records))), ("samples", .int(Int64(result.samples))),
            ("lastPosition", .int(Int64(result.lastPosition))), ("digest", .string(result.digest)),
            ("tzdata", .string(result.zoneDataVersion)), ("userGroups", .int(Int64(result.userGroups))),
        ]
    }

    /// A progress line on standard error for each million records read or samples folded from
    /// the log (opening an engine over a long tail, a replay, a query about one user), when it
    /// is a terminal.
    static func progress(_ invocation: Invocation) -> (@Sendable (ReplayProgress) -> Void)? {
        guard isatty(2) != 0 else { return nil }
        return { sofar in
            Output.notice(
                "read \(sofar.records) log records, folded \(sofar.samples) samples", event: "progress",
                [("records", .int(Int64(sofar.records))), ("samples", .int(Int64(sofar.samples)))],
                json: invocation.json)
        }
    }
}
