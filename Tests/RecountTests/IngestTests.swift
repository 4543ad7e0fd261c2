import Foundation
import RecountLog
import Synchronization
import TestSupport
import Testing

@testable import Recount

/// Ingest end to end: NDJSON lines through the decoder into a real log and back out.
@Suite struct IngestTests {
    static let clock = Instant(millis: 1_788_220_800_000, offsetSeconds: 0)

    func withLog<T>(_ body: (Log, String) throws -> T) throws -> T {
        try withTemporaryDirectory { directory in
            let log = try Log(directory: directory, configuration: LogConfiguration(durability: .none))
            defer { try? log.close() }
            return try body(log, directory)
        }
    }

    func ingest(
        _ text: String, into log: Log, directory: String, batchBytes: Int = Ingestor.frameBytes,
        rejected: ((IngestRejection) -> Void)? = nil
    ) throws -> IngestReport {
        let file = directory + "/input.ndjson"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        var report = IngestReport()
        try Ingestor(log: log, batchSize: 3, batchBytes: batchBytes, clock: ReceiptClock(now: { Self.clock })).ingest(
            try LineReader(path: file), source: "input.ndjson", into: &report, rejected: rejected)
        return report
    }

    func envelopes(_ log: Log) throws -> [(UInt64, Envelope)] {
        var out: [(UInt64, Envelope)] = []
        try log.reader().forEach { record in out.append((record.position, try EnvelopeCodec.decode(record.bytes))) }
        return out
    }

    static func sample(_ id: String, _ type: String, _ start: String, _ end: String? = nil, extra: String = "")
        -> String
    {
        "{\"id\":\"\(id)\",\"type\":\"\(type)\",\"start\":\"\(start)\"" + (end.map { ",\"end\":\"\($0)\"" } ?? "")
            + extra + ",\"origin\":\"com.example\"}"
    }

    static func upsert(_ samples: [String], user: String = "u1", receivedAt: String? = "2026-07-14T08:00:00Z") -> String
    {
        "{\"kind\":\"samples.upsert\",\"user\":\"\(user)\"" + (receivedAt.map { ",\"receivedAt\":\"\($0)\"" } ?? "")
            + ",\"provider\":\"fitbit\",\"samples\":[\(samples.joined(separator: ","))]}"
    }

    @Test func validLinesAreAppendedAndRejectedLinesChangeNothing() throws {
        try withLog { log, directory in
            let good = Self.upsert([
                Self.sample(
                    "a", "steps", "2026-07-13T10:00:00-07:00", "2026-07-13T10:05:00-07:00",
                    extra: ",\"value\":12,\"unit\":\"count\"")
            ])
            let bad = Self.upsert([
                Self.sample(
                    "b", "steps", "2026-07-13T10:00:00-07:00", "2026-07-13T09:00:00-07:00",
                    extra: ",\"value\":12,\"unit\":\"count\"")
            ])
            let report = try ingest(
                [
                    good, bad, "", "not json", good.replacingOccurrences(of: "\"a\"", with: "\"c\""),
                    "{\"kind\":\"checkin\"}",
                ].joined(separator: "\n") + "\n", into: log, directory: directory)
            #expect(report.appended == 2)
            #expect(report.samples == 2)
            #expect(report.blankLines == 1)
            #expect(report.positions == 1..<3)
            #expect(report.rejected.map(\.error.line) == [2, 4, 6])
            #expect(report.rejected.map(\.error.code) == [.endBeforeStart, .invalidJSON, .missingField])
            #expect(report.rejected[0].description == "input.ndjson: line 2: samples[0].end is before start")
            #expect(report.rejected[1].error.path == "$")
            #expect(report.rejected[2].error.description == "line 6: user is required")
            #expect(try envelopes(log).map { $0.1.samples.map(\.id) } == [["a"], ["c"]])
        }
    }

    /// A `receivedAt` more than five minutes after the engine's clock cannot have been received
    /// yet: the line is refused, and the lines around it are appended. A check-in received in
    /// 2099 made every day until then known, today's and tomorrow's zeros included (an oracle run).
    @Test func aReceivedAtInTheFutureIsRefused() throws {
        try withLog { log, directory in
            let limit = Self.clock.millis + ReceiptClock.maximumSkew
            let report = try ingest(
                [limit, limit + 1, 4_070_908_800_000].map {
                    Self.upsert([], receivedAt: RFC3339.format(millis: $0, offsetSeconds: 0))
                }.joined(separator: "\n"), into: log, directory: directory)
            #expect(report.appended == 1)
            #expect(report.rejected.map(\.error.code) == [.receivedInFuture, .receivedInFuture])
            #expect(
                report.rejected.last?.description
                    == "input.ndjson: line 3: receivedAt is 2099-01-01T00:00:00Z, more than 5 minutes after this "
                    + "engine's clock (2026-09-01T00:00:00Z): it cannot have been received yet")
            #expect(try envelopes(log).map(\.1.receivedAt.millis) == [limit])
        }
    }

    @Test func missingReceivedAtIsStampedBeforeAppend() throws {
        try withLog { log, directory in
            _ = try ingest(Self.upsert([], receivedAt: nil) + "\n" + Self.upsert([]), into: log, directory: directory)
            let stored = try envelopes(log).map(\.1.receivedAt)
            #expect(stored == [Self.clock, Instant(rfc3339: "2026-07-14T08:00:00Z")])
        }
    }

    /// The stamps of one user's envelopes move on by a millisecond within one millisecond of
    /// the clock, up to a second ahead of it, and never go back; another user's start at the clock.
    @Test func oneUsersStampsKeepTheOrderOfItsEnvelopes() {
        let clock = Mutex(Self.clock.millis)
        let stamps = ReceiptClock(now: { Instant(millis: clock.withLock { $0 }, offsetSeconds: 0) })
        let first = (0..<1002).map { _ in stamps.stamp(user: "a").millis - Self.clock.millis }
        #expect(Array(first.prefix(3)) == [0, 1, 2] && first.suffix(3) == [999, 1000, 1000])
        #expect(stamps.stamp(user: "b").millis == Self.clock.millis)
        clock.withLock { $0 += 400 }
        #expect(stamps.stamp(user: "a").millis == Self.clock.millis + 1001)
        clock.withLock { $0 += 5000 }
        #expect(stamps.stamp(user: "a").millis == Self.clock.millis + 5400)
    }

    /// A closing engine waits until the clock has passed its stamps, so that the next engine,
    /// which starts from the clock alone, stamps after them (a `recount ingest` right after an
    /// upload of 300 envelopes stamped before its last ones, and its revision was dropped; an
    /// oracle run).
    @Test func theClockPassesEveryStampBeforeTheNextEngine() {
        let stamps = ReceiptClock(now: RecountEngine.now)
        // Nothing stamped: nothing to wait for.
        stamps.waitUntilStampsPass()
        let last = (0..<300).map { _ in stamps.stamp(user: "a").millis }.max()!
        stamps.waitUntilStampsPass()
        #expect(RecountEngine.now().millis > last)
    }

    @Test func dumpWritesBackWhatWasIngested() throws {
        try withLog { log, directory in
            let corpus = try String(
                contentsOf: EnvelopeCorpusTests.corpus.appendingPathComponent("valid.ndjson"), encoding: .utf8)
            let report = try ingest(corpus, into: log, directory: directory)
            #expect(report.rejected.isEmpty)
            let decoder = EnvelopeDecoder()
            // Each logged envelope is its line decoded alone: the ingest decodes and encodes its
            // lines in buffers it keeps from one to the next, and none may carry anything over.
            let lines = corpus.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
            let logged = try envelopes(log)
            #expect(logged.count == lines.count)
            // One user's envelopes stamped in one millisecond are a millisecond apart.
            let stamps = ReceiptClock(now: { Self.clock })
            for (index, (position, envelope)) in logged.enumerated() {
                #expect(position == UInt64(index + 1))
                let alone = try Array(lines[index].utf8).withUnsafeBytes { try decoder.decode(line: $0, number: 1) }
                #expect(alone.stamped(at: stamps.stamp(user: alone.user)) == envelope, "line \(index + 1)")
                let json = Array(EnvelopeJSON.string(envelope).utf8)
                let again = try json.withUnsafeBytes { try decoder.decode(line: $0, number: 1) }
                #expect(again.stamped(at: Self.clock) == envelope)
            }
        }
    }

    /// `-0` is read as `0`, in values and workout totals: JSON writes both `0`, so a log dumped
    /// and ingested again holds the same bits (the projections' digest tells the signs apart).
    @Test func aNegativeZeroIsReadAsZero() throws {
        try withLog { log, directory in
            let line = Self.upsert([
                Self.sample(
                    "z", "steps", "2026-07-14T08:00:00Z", "2026-07-14T08:10:00Z", extra: #","value":-0,"unit":"count""#),
                Self.sample(
                    "w", "HKWorkoutTypeIdentifier", "2026-07-14T09:00:00Z", "2026-07-14T09:30:00Z",
                    extra:
                        #","activity":"HKWorkoutActivityTypeRunning","distance":-0.0,"energy":{"value":-0,"unit":"kJ"}"#
                ),
            ])
            #expect(try ingest(line, into: log, directory: directory).rejected.isEmpty)
            let samples = try #require(try envelopes(log).first).1.samples
            #expect(samples[0].value == 0 && samples[0].value?.sign == .plus)
            #expect(samples[1].workout?.distance?.value.sign == .plus)
            #expect(samples[1].workout?.energy?.value.sign == .plus)
        }
    }

    /// Every catalogue metric under every type name, and every unit, converted exactly.
    @Test func everyMetricAliasAndUnitIsAccepted() throws {
        let decoder = EnvelopeDecoder()
        for metric in Metric.allCases {
            for name in metric.typeNames {
                let units = MeasureUnit.accepted(for: metric)
                let extras: [String] =
                    switch metric.kind {
                    case .quantity: units.map { ",\"value\":2.5,\"unit\":\"\($0.symbol)\"" }
                    case .sleep: [",\"stage\":\"asleep\""]
                    case .workout: [""]
                    }
                for extra in extras {
                    let line = Array(
                        Self.upsert([
                            Self.sample(
                                "x", name, "2026-07-13T10:00:00-07:00", "2026-07-13T10:30:00-07:00", extra: extra)
                        ]).utf8)
                    let envelope = try line.withUnsafeBytes { try decoder.decode(line: $0, number: 1) }
                    let sample = try #require(envelope.samples.first)
                    #expect(sample.type.metric == metric)
                    if let unit = sample.unit {
                        #expect(sample.canonicalValue == MeasureUnit.parse(unit.symbol)!.toCanonical(2.5))
                        #expect(unit.unit == MeasureUnit.parse(unit.symbol))
                    }
                }
            }
        }
        let line = Array(
            Self.upsert([
                Self.sample("x", "weight", "2026-07-13T10:00:00-07:00", extra: ",\"value\":2,\"unit\":\"furlong\"")
            ]).utf8)
        #expect { try line.withUnsafeBytes { try decoder.decode(line: $0, number: 4) } } throws: { error in
            (error as? IngestError)?.code == .unknownUnit
                && (error as? IngestError)?.description
                    == "line 4: samples[0].unit is not a unit of weight (furlong); accepted: kg, g, lb, st, oz"
        }
    }

    /// Line-level faults carry codes too: a program tells a duplicate key (a fault of one field,
    /// named at its path) from a broken line without reading the message.
    @Test func lineFaultsHaveCodes() {
        func rejection(_ text: [UInt8]) -> IngestError? {
            text.withUnsafeBytes { bytes in
                do throws(IngestError) {
                    _ = try EnvelopeDecoder().decode(line: bytes, number: 1)
                    return nil
                } catch { return error }
            }
        }
        let duplicate = rejection(Array(#"{"kind":"checkin","user":"u1","user":"u2"}"#.utf8))
        #expect(duplicate?.code == .duplicateKey)
        #expect(duplicate?.path == "user")
        let surrogate = rejection(Array(#"{"kind":"checkin","user":"\uD800"}"#.utf8))
        #expect(surrogate?.code == .invalidJSON)
        #expect(surrogate?.path == "user")
        let broken = rejection(Array(#"{"kind":"checkin","#.utf8))
        #expect(broken?.code == .invalidJSON)
        #expect(broken?.path == "$")
        let long = rejection([UInt8](repeating: UInt8(ascii: " "), count: EnvelopeLimits.lineBytes + 1))
        #expect(long?.code == .lineTooLong)
        #expect(long?.description == "line 1: $ is 8388609 bytes; lines of at most 8388608 bytes are accepted")
    }

    /// A rejection cannot be made to read as something else, nor to hold megabytes: a member
    /// name that is not a plain name is quoted in its path, control characters are escaped in
    /// the message, and a quoted value is cut.
    @Test func rejectionMessagesAreQuotedEscapedAndBounded() {
        func rejection(_ line: String) -> IngestError? {
            Array(line.utf8).withUnsafeBytes { bytes in
                do throws(IngestError) {
                    _ = try EnvelopeDecoder().decode(line: bytes, number: 7)
                    return nil
                } catch { return error }
            }
        }
        let checkin =
            #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T09:00:00Z""#
        #expect(rejection(checkin + #","a.b":1}"#)?.path == #"["a.b"]"#)
        #expect(rejection(checkin + #","":1}"#)?.path == #"[""]"#)
        let forged = rejection(checkin + #","x\nline 8: user is required\u001b[2K":1}"#)
        #expect(forged?.code == .unknownField)
        #expect(forged?.description == #"line 7: ["x\nline 8: user is required\u001b[2K"] is not a known field"#)
        // A value a reason quotes, escaped in the message (the reason itself keeps it).
        let quoted = rejection(Self.upsert([Self.sample("a", #"x\ny\u0085"#, "2026-07-13T10:00:00Z")]))
        #expect(quoted?.reason.contains("x\ny\u{85}") == true)
        #expect(quoted?.description.contains(#"x\ny\u{85}"#) == true)
        let sample = Self.sample("a", "steps", "2026-07-13T10:00:00Z", extra: #","value":1,"unit":"count","x\ty":2"#)
        #expect(rejection(Self.upsert([sample]))?.path == #"samples[0]["x\ty"]"#)
        let huge = String(repeating: "Z", count: 1 << 20)
        let long = rejection(Self.upsert([Self.sample("a", huge, "2026-07-13T10:00:00Z")]))
        #expect(long?.code == .unknownType)
        #expect((long?.reason.utf8.count ?? .max) < 2 * IngestError.textLimit)
        #expect(long?.reason.hasSuffix("more bytes)") == true)
        // Cut short, the accepted names still begin with the catalogue's own.
        let misspelt = rejection(Self.upsert([Self.sample("a", "stepz", "2026-07-13T10:00:00Z")]))
        #expect(misspelt?.description.contains("accepted: steps, distance, active_energy, heart_rate") == true)
        // `*` names every user in config envelopes only; elsewhere the message says so.
        let star = rejection(checkin.replacingOccurrences(of: #""u1""#, with: #""*""#) + "}")
        #expect(star?.code == .invalidCharacters && star?.reason == #"is "*", which only config.* kinds may use"#)
    }

    /// Seed stories: a glucose reading at 07:00 local stays on its local date whatever the
    /// server's zone; a step sample 23:50–00:10 splits 50/50 across two days.
    @Test func seedStoriesCivilDaysComeFromTheSampleNotTheServer() throws {
        let decoder = EnvelopeDecoder()
        let text = Self.upsert([
            Self.sample(
                "g", "HKQuantityTypeIdentifierBloodGlucose", "2026-03-08T07:00:00-08:00",
                extra: ",\"value\":99,\"unit\":\"mg/dL\""),
            Self.sample(
                "s", "StepsRecord", "2026-07-13T23:50:00-07:00", "2026-07-14T00:10:00-07:00",
                extra: ",\"value\":400,\"unit\":\"count\""),
            Self.sample(
                "z", "steps", "2026-03-08T01:30:00-08:00", "2026-03-08T03:30:00-07:00",
                extra: ",\"timeZone\":\"America/Los_Angeles\",\"value\":60,\"unit\":\"count\""),
        ])
        let samples = try Array(text.utf8).withUnsafeBytes { try decoder.decode(line: $0, number: 1) }.samples
        let zones = ZoneOffsets()
        #expect(samples[0].days(zones: zones) == [DayShare(day: CivilDay(parsing: "2026-03-08")!, fraction: 1)])
        #expect(abs(samples[0].canonicalValue! - 99 / 18.0156) < 1e-12)
        #expect(
            samples[1].days(zones: zones) == [
                DayShare(day: CivilDay(parsing: "2026-07-13")!, fraction: 0.5),
                DayShare(day: CivilDay(parsing: "2026-07-14")!, fraction: 0.5),
            ])
        #expect(samples[2].days(zones: zones).map(\.day.description) == ["2026-03-08"])
    }

    /// Thousands of mutated envelopes: each is accepted or rejected with a message naming its
    /// line; the accepted ones land in a log that stays readable and decodes back.
    @Test func mutatedEnvelopesAreAcceptedOrRejectedWithAMessage() throws {
        var random = SplitMix64(seed: testSeed(20_261_129))
        let corpus = try String(
            contentsOf: EnvelopeCorpusTests.corpus.appendingPathComponent("valid.ndjson"), encoding: .utf8)
        let lines = corpus.split(separator: "\n").map { Array($0.utf8) }
        var input: [UInt8] = []
        let count = 3000
        for _ in 0..<count {
            var line = lines[Int(random.next() % UInt64(lines.count))]
            switch random.next() % 5 {
            case 0: line = Array(line.prefix(Int(random.next() % UInt64(line.count))))
            case 1:
                let at = Int(random.next() % UInt64(line.count))
                line[at] ^= UInt8(1 << (random.next() % 8))
            case 2:
                let at = Int(random.next() % UInt64(line.count))
                line.insert(
                    contentsOf: Array(
                        [",", "1", "\"", "{", "[", "null", "-", "\u{00}", "é"].randomElement(using: &random)!.utf8),
                    at: at)
            case 3:
                // Swap a value's type: strings become numbers and numbers strings.
                let text = String(decoding: line, as: UTF8.self)
                line = Array(
                    (random.next() % 2 == 0
                        ? text.replacingOccurrences(of: ":\"", with: ":1,\"x\":\"")
                        : text.replacingOccurrences(of: ":1", with: ":\"1\"")).utf8)
            default: break
            }
            line.removeAll { $0 == UInt8(ascii: "\n") }
            input += line + [UInt8(ascii: "\n")]
        }
        try withLog { log, directory in
            let file = directory + "/fuzz.ndjson"
            try Data(input).write(to: URL(fileURLWithPath: file))
            var report = IngestReport()
            var rejections: [IngestRejection] = []
            try Ingestor(log: log, clock: ReceiptClock(now: { Self.clock })).ingest(
                try LineReader(path: file), source: "fuzz", into: &report, rejected: { rejections.append($0) })
            #expect(report.appended + report.rejectedLines + report.blankLines == count)
            #expect(report.appended > 0 && report.rejectedLines > 0)
            #expect(rejections.count == report.rejectedLines)
            #expect(
                report.rejected.map(\.description) == rejections.prefix(IngestReport.rejectionsKept).map(\.description))
            for rejection in rejections {
                #expect(
                    rejection.error.line >= 1 && rejection.error.line <= count && !rejection.error.reason.isEmpty
                        && !rejection.error.path.isEmpty)
            }
            try log.sync()  // a reader of the directory sees what is committed
            let stats = try LogReader(directory: log.directory).check()
            #expect(stats.records == UInt64(report.appended))
            #expect(try envelopes(log).count == report.appended)
        }
    }

    /// Frames are cut by bytes as well as by count: records that together pass the frame limit
    /// go into several frames, and only a record that cannot fit alone is rejected, as its line.
    /// An ingest that stops part-way says where: every line before `stoppedAt` was appended,
    /// rejected or blank, and none from it on was appended (the input to send again).
    @Test func anIngestThatStopsSaysFromWhichLineNothingWasAppended() throws {
        let good = { (id: String) in
            Self.upsert([
                Self.sample(id, "steps", "2026-07-13T10:00:00-07:00", extra: ",\"value\":1,\"unit\":\"count\"")
            ])
        }
        // Batches of three: lines 1, 4, 5, then (after the rejected line 6) 7, 8, 9.
        let lines = [good("a"), "bad", "", good("c"), good("d"), "bad", good("e"), good("f"), good("g"), good("h")]
        // The log fails the second batch's append; the fold of the first fails after it is appended.
        for failing in ["append", "fold"] {
            try withTemporaryDirectory { directory in
                let log = try Log(directory: directory + "/log", configuration: LogConfiguration(durability: .none))
                let file = directory + "/input.ndjson"
                try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
                var report = IngestReport()
                struct FoldFailed: Error {}
                let reader = try LineReader(path: file)
                do {
                    try Ingestor(log: log, batchSize: 3, clock: ReceiptClock(now: { Self.clock })).ingest(
                        reader, source: "input.ndjson", into: &report,
                        appended: { _, _, _ in
                            if failing == "fold" { throw FoldFailed() }
                            try log.close()
                        })
                    Issue.record("the \(failing) did not fail")
                } catch {}
                #expect(report.appended == 3, "\(failing)")
                #expect(report.rejectedLines == 1 + (failing == "append" ? 1 : 0), "\(failing)")
                #expect(report.stoppedAt == InputLine(source: "input.ndjson", line: failing == "append" ? 7 : 6))
                #expect(report.stoppedAt?.description == "input.ndjson line \(failing == "append" ? 7 : 6)")
                try? log.close()
            }
        }
        // An ingest that reads everything stopped nowhere.
        try withLog { log, directory in
            let report = try ingest(lines.joined(separator: "\n"), into: log, directory: directory)
            #expect(report.appended == 7 && report.stoppedAt == nil)
        }
    }

    @Test func batchesAreCutByBytesAndARecordTooLargeForAFrameIsRejected() throws {
        try withLog { log, directory in
            let small = Self.upsert([
                Self.sample("a", "steps", "2026-07-13T10:00:00-07:00", extra: ",\"value\":1,\"unit\":\"count\"")
            ])
            let large = Self.upsert(
                (0..<40).map {
                    Self.sample(
                        "id-\($0)", "steps", "2026-07-13T10:00:00-07:00", extra: ",\"value\":1,\"unit\":\"count\"")
                })
            var recordBytes: [UInt8] = []
            let envelope = try Array(small.utf8).withUnsafeBytes {
                try EnvelopeDecoder().decode(line: $0, number: 1).stamped(at: Self.clock)
            }
            EnvelopeCodec.encode(envelope, into: &recordBytes)
            // Two small records fit in a frame, three do not.
            let limit = 2 * (recordBytes.count + 1) + 1
            let report = try ingest(
                [small, small, small, large, small].joined(separator: "\n"), into: log, directory: directory,
                batchBytes: limit)
            #expect(report.appended == 4)
            #expect(report.positions == 1..<5)
            #expect(report.rejected.map(\.error.line) == [4])
            let reason = try #require(report.rejected.first?.error.reason)
            #expect(
                reason.hasPrefix("makes a log record of ")
                    && reason.hasSuffix("; at most \(limit) fit in one log frame"))
            #expect(try log.reader().check().frames == 2)
        }
    }

    /// A line past the limit is skipped to its end (in chunks, never held whole) and rejected
    /// with its real length; the lines after it go through.
    @Test func anOverlongLineIsRejectedWithItsLength() throws {
        try withLog { log, directory in
            let good = Self.upsert([])
            let long = String(repeating: "x", count: 3 * EnvelopeLimits.lineBytes + 5)
            let text = [good, long, good, long + "\r", good, long].joined(separator: "\n")
            let report = try ingest(text, into: log, directory: directory)
            #expect(report.appended == 3)
            let length = 3 * EnvelopeLimits.lineBytes + 5
            #expect(
                report.rejected.map(\.description)
                    == [2, 4, 6].map {
                        "input.ndjson: line \($0): $ is \(length) bytes; lines of at most \(EnvelopeLimits.lineBytes) bytes are accepted"
                    })
        }
    }

    /// Rejections reach the callback as they are found; the report counts them all and keeps
    /// the first ones only.
    @Test func rejectionsStreamAndTheReportKeepsTheFirst() throws {
        try withLog { log, directory in
            let lines = (0..<250).map { _ in "not json" } + [Self.upsert([])]
            var streamed: [Int] = []
            let report = try ingest(
                lines.joined(separator: "\n"), into: log, directory: directory,
                rejected: { streamed.append($0.error.line) })
            #expect(streamed == Array(1...250))
            #expect(report.rejectedLines == 250)
            #expect(report.rejected.map(\.error.line) == Array(1...IngestReport.rejectionsKept))
            #expect(report.appended == 1)
        }
    }
}

extension IngestTests {
    /// The byte sets the string rules check: every byte value against the characters each
    /// rule names, and base64's padding rules.
    @Test func stringRulesAcceptExactlyTheirCharacters() {
        let alphanumeric = Set(Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))
        let rules: [(StringRule, String)] = [
            (.user, ".-_:@"), (.provider, "._-"), (.cohort, "._:-"), (.timeZone, "_+-/"), (.base64, "+/="),
        ]
        for (rule, others) in rules {
            let allowed = alphanumeric.union(others.utf8)
            for byte in UInt8.min...UInt8.max {
                #expect(rule.ascii?.contains(byte) == allowed.contains(byte), "byte \(byte) for \(rule.describe)")
            }
        }
        for text in ["", "QQ==", "QUI=", "QUJD", "YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb24="] {
            #expect(Array(text.utf8).withUnsafeBytes { Base64.isCanonical($0) }, "\(text)")
        }
        for text in ["Q", "QQ=", "Q===", "====", "QQ=A", "Q=Q=", "QUJD-", "QUJ_", "QUJ\u{C9}"] {
            #expect(!Array(text.utf8).withUnsafeBytes { Base64.isCanonical($0) }, "\(text)")
        }
    }
}

extension IngestTests {
    /// An ingest keeps the values its samples' repeated fields were built into from one line to
    /// the next (a few per field): every logged envelope must still hold exactly what its line
    /// decodes to alone, with more distinct types, units, origins, devices and zones than are kept,
    /// in an order that returns to evicted ones, devices around the longest text kept, and a
    /// rejected line in between.
    @Test func repeatedFieldsKeptAcrossLinesDecodeAsEachLineAlone() throws {
        let kinds: [(type: String, unit: String)] = [
            ("steps", "count"), ("heart_rate", "count/min"), ("distance", "m"), ("distance", "km"),
            ("active_energy", "kcal"), ("active_energy", "kJ"), ("weight", "kg"), ("weight", "lb"),
        ]
        let zones = ["America/Los_Angeles", "Europe/Paris", "Asia/Tokyo", "UTC", "Australia/Sydney", "Africa/Cairo"]
        // Texts around the longest whose value is kept, some differing only in their last byte.
        let longest = RepeatedField<String>.longestText
        let devices =
            (0..<5).map { "device \($0)" }
            + [longest - 2, longest - 2, longest - 1, longest - 1, longest + 5, longest + 5].enumerated().map {
                String(repeating: "d", count: $1) + "\($0 % 2)"
            }
        var lines: [String] = []
        for index in 0..<60 {
            let kind = kinds[(index * 5) % kinds.count]
            let samples = (0..<3).map { part in
                "{\"id\":\"s-\(index)-\(part)\",\"type\":\"\(kind.type)\",\"start\":\"2026-07-13T10:0\(part):00Z\","
                    + "\"timeZone\":\"\(zones[(index + part) % zones.count])\",\"value\":\(index + 1),"
                    + "\"unit\":\"\(kind.unit)\",\"origin\":\"origin.\((index * 7 + part) % 9)\","
                    + "\"device\":\"\(devices[(index * 3 + part) % devices.count])\"}"
            }
            lines.append(Self.upsert(samples))
            if index == 30 { lines.append(Self.upsert([Self.sample("bad", "steps", "not a time")])) }
        }
        try withLog { log, directory in
            let report = try ingest(lines.joined(separator: "\n") + "\n", into: log, directory: directory)
            #expect(report.appended == 60 && report.rejectedLines == 1)
            let logged = try envelopes(log).map(\.1)
            let alone = try lines.filter { !$0.contains("not a time") }.map { line in
                try Array(line.utf8).withUnsafeBytes { try EnvelopeDecoder().decode(line: $0, number: 1) }
                    .stamped(at: Self.clock)
            }
            #expect(logged == alone)
        }
    }
}

extension IngestTests {
    /// An anchor is checked by the base64 rule's type, length and characters before its padding.
    @Test(arguments: [
        (#"12"#, "wrongType", "must be a string"),
        (#""QQ-=""#, "invalidBase64", "must be base64"),
        (#""QQ\u00e9=""#, "invalidBase64", "must be base64"),
        (#""QQ=A""#, "invalidBase64", "is not padded standard base64"),
        (#""QQ=""#, "invalidBase64", "is not padded standard base64"),
        ("\"" + String(repeating: "A", count: 65_540) + "\"", "invalidLength", "must be 0 to 65536 characters"),
    ])
    func anchorsNameTheirFirstFault(anchor: String, code: String, reason: String) {
        let line =
            #"{"kind":"healthkit.delivery","user":"u1","type":"steps","anchor":"#
            + anchor + #","newAnchor":"QQ==","added":[],"deleted":[]}"#
        #expect {
            try Array(line.utf8).withUnsafeBytes { try EnvelopeDecoder().decode(line: $0, number: 1) }
        } throws: { error in
            guard let error = error as? IngestError else { return false }
            return error.path == "anchor" && error.code.description == code && error.reason == reason
        }
    }

    /// Base64 is checked eight bytes at a time: every byte value, at every place of a word and
    /// of the bytes after the last whole word, is judged as the alphabet says, one byte alone.
    @Test func everyByteAtEveryPlaceOfABase64TextIsJudgedByTheAlphabet() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var misjudged: [String] = []
        for place in 0..<20 {
            for byte in UInt8(0)...UInt8(255) where byte != UInt8(ascii: "=") {
                var bytes = Array("QUJDREVGR0hJSktMTU5P".utf8)
                bytes[place] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                // A byte that is not UTF-8 alone becomes three, so the text is no longer base64.
                let expected = text.utf8.count == 20 && alphabet.contains(byte)
                if Array(text.utf8).withUnsafeBytes({ Base64.isCanonical($0) }) != expected {
                    misjudged.append("\(byte) at \(place)")
                }
            }
        }
        #expect(misjudged == [])
    }
}

extension IngestTests {
    /// Root members are matched to the kind's fields by their bytes on the scan's fast path too:
    /// an escaped spelling of a field is that field, an unknown or a canonically equivalent but
    /// different spelling is refused by name.
    @Test(arguments: [
        (#""\u0074ype":"steps""#, nil),
        (#""typo":"steps""#, "typo"),
        (#""type":"steps","anchor2":null"#, "anchor2"),
        (#""type":"steps","recordTypes":[]"#, "recordTypes"),
        ("\"type\":\"steps\",\"u\u{0301}ser\":null", "[\"u\u{0301}ser\"]"),
    ])
    func rootMembersAreMatchedByTheirBytes(members: String, unknown: String?) throws {
        let line =
            #"{"kind":"healthkit.delivery","user":"u1","#
            + members + #","anchor":null,"newAnchor":"QQ==","added":[],"deleted":[]}"#
        let decoded = Array(line.utf8).withUnsafeBytes { bytes in
            Result { () throws(IngestError) -> EnvelopeInput in try EnvelopeDecoder().decode(line: bytes, number: 1) }
        }
        switch (decoded, unknown) {
        case (.success, nil): break
        case (.failure(let error), let unknown?):
            #expect(error.path == unknown && error.reason == "is not a known field", "\(error)")
        default: Issue.record("\(members): \(decoded)")
        }
    }
}
