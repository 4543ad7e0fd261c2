/// Why one input line was rejected: a code to switch on, the line, the JSON path of the field,
/// and the reason in words.
///
/// Programs switch on `code` (and may read `path`); `reason` is for people and may be reworded.
public struct IngestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What rule the line broke; more codes may be added, and a code never changes meaning.
    ///
    /// The codes, with a reason each gives:
    ///
    /// | code | example reason |
    /// |---|---|
    /// | `lineTooLong` | `$ is 9000000 bytes; lines of at most 8388608 bytes are accepted` |
    /// | `invalidJSON` | `$ is not valid JSON: trailing comma (byte 17)` |
    /// | `duplicateKey` | `added[0].id is not valid JSON: duplicate key "id" (byte 52)` |
    /// | `unknownField` | `recievedAt is not a known field` |
    /// | `missingField` | `user is required` |
    /// | `nullField` | `cohort must not be null (leave it out)` |
    /// | `wrongType` | `hasMore must be true or false` |
    /// | `unknownKind` | `kind is not a known kind (…)` |
    /// | `unknownType` | `type is not a known type (Stepz); accepted: …` |
    /// | `typeMismatch` | `added[2].type must be a steps sample, like the delivery's type` |
    /// | `unknownUnit` | `samples[0].unit is not a unit of weight (m); accepted: …` |
    /// | `unknownStage` | `samples[0].stage must be one of inBed, asleep, …` |
    /// | `unknownTimeZone` | `samples[0].timeZone is not a known IANA time zone (Mars/Base)` |
    /// | `invalidTime` | `at is not an RFC 3339 date-time with an offset (…)` |
    /// | `endBeforeStart` | `added[3].end is before start` |
    /// | `spanTooLong` | `samples[0].end is more than 366 days after start` |
    /// | `windowReversed` | `window.from is after window.to` |
    /// | `outOfRange` | `samples[0].value is out of range (not a finite number)` |
    /// | `belowMinimum` | `samples[0].value must not be negative for steps` |
    /// | `fieldNotUsed` | `samples[0].value is not used by sleep samples` |
    /// | `duplicateId` | `ids[4] repeats an id earlier in this envelope` |
    /// | `tooManyItems` | `samples has 50001 items; at most 50000 are accepted` |
    /// | `emptyArray` | `metrics must not be empty` |
    /// | `invalidLength` | `user must be 1 to 128 characters` |
    /// | `invalidCharacters` | `provider must be letters, digits and . _ -` |
    /// | `invalidBase64` | `newAnchor is not padded standard base64` |
    /// | `invalidChange` | `changes[0] must hold exactly one of upsertion or deletion` |
    /// | `recordTooLarge` | `$ makes a log record of 70000000 bytes; at most 67108864 fit in one log frame` |
    /// | `receivedInFuture` | `receivedAt is 2099-01-01T00:00:00Z, more than 5 minutes after this engine's clock (…)` |
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as listed above.
        public var description: String { name }

        /// The line is longer than ingest accepts.
        public static let lineTooLong = Code("lineTooLong")
        /// The line is not one strict JSON value (RFC 8259; nesting at most 64 deep).
        public static let invalidJSON = Code("invalidJSON")
        /// An object names the same member twice.
        public static let duplicateKey = Code("duplicateKey")
        /// A member that the envelope or sample does not have (a typo never drops data silently).
        public static let unknownField = Code("unknownField")
        /// A required member is absent.
        public static let missingField = Code("missingField")
        /// An optional member is an explicit `null`.
        public static let nullField = Code("nullField")
        /// A member has the wrong JSON type (a number for a string, an integer with a fraction, …).
        public static let wrongType = Code("wrongType")
        /// `kind` names no envelope kind.
        public static let unknownKind = Code("unknownKind")
        /// A type or metric name is not in the catalogue.
        public static let unknownType = Code("unknownType")
        /// A sample's metric is not the one its envelope is about.
        public static let typeMismatch = Code("typeMismatch")
        /// A unit that is not a unit of the sample's metric.
        public static let unknownUnit = Code("unknownUnit")
        /// A sleep stage that is not one of the contract's.
        public static let unknownStage = Code("unknownStage")
        /// A workout `activity` that names no activity (normalised, HealthKit or Health Connect).
        public static let unknownActivity = Code("unknownActivity")
        /// A `timeZone` that is not an IANA zone name.
        public static let unknownTimeZone = Code("unknownTimeZone")
        /// A time that is not an RFC 3339 date-time with an offset.
        public static let invalidTime = Code("invalidTime")
        /// A sample ends before it starts.
        public static let endBeforeStart = Code("endBeforeStart")
        /// A sample lasts longer than 366 days.
        public static let spanTooLong = Code("spanTooLong")
        /// A reconcile window starts after it ends.
        public static let windowReversed = Code("windowReversed")
        /// A number outside its range: not finite, not finite once converted, or an integer
        /// beyond its bounds.
        public static let outOfRange = Code("outOfRange")
        /// A quantity below its metric's least value: negative for a cumulative metric (`steps`,
        /// `distance`, `active_energy`), 0 or less for `heart_rate`, `weight`, `blood_glucose`.
        public static let belowMinimum = Code("belowMinimum")
        /// A member the sample's metric does not use (`value` on sleep, `stage` on steps, …).
        public static let fieldNotUsed = Code("fieldNotUsed")
        /// An id repeats within one list of the envelope.
        public static let duplicateId = Code("duplicateId")
        /// An array holds more items than ingest accepts.
        public static let tooManyItems = Code("tooManyItems")
        /// An array that must have items is empty.
        public static let emptyArray = Code("emptyArray")
        /// A string is shorter or longer than its field allows.
        public static let invalidLength = Code("invalidLength")
        /// A string holds characters its field does not allow.
        public static let invalidCharacters = Code("invalidCharacters")
        /// An anchor is not padded standard base64.
        public static let invalidBase64 = Code("invalidBase64")
        /// A Health Connect change is neither one upsertion nor one deletion.
        public static let invalidChange = Code("invalidChange")
        /// The envelope's log record alone is larger than one log frame holds.
        public static let recordTooLarge = Code("recordTooLarge")
        /// `receivedAt` lies more than `ReceiptClock.maximumSkew` after the engine's clock: an
        /// envelope cannot have been received yet, and a check-in then would make days known
        /// before they end.
        public static let receivedInFuture = Code("receivedInFuture")
    }

    /// The rule the line broke.
    public var code: Code
    /// The 1-based line number in its input.
    public var line: Int
    /// The JSON path of the offending field: `kind`, `added[3].end`, `$` for the whole line.
    public var path: String
    /// Why the line was rejected, in words (for people; switch on `code`).
    public var reason: String

    /// The most characters `path` and `reason` keep: a reason quotes the offending value,
    /// which may be megabytes long, and a report keeps a hundred rejections.
    package static let textLimit = 512

    package init(_ code: Code, line: Int, path: String, reason: String) {
        self.code = code
        self.line = line
        self.path = Self.clipped(path)
        self.reason = Self.clipped(reason)
    }

    /// `line 12: added[3].end is before start`, with control characters escaped (`\n`,
    /// `\u{1B}`): an input's line break or terminal escape in a quoted value must not forge
    /// another line of the report.
    public var description: String { "line \(line): \(Self.printable(path)) \(Self.printable(reason))" }

    /// `text`, or its first `textLimit` characters and how much was left out.
    private static func clipped(_ text: String) -> String {
        guard text.utf8.count > textLimit,
            let end = text.index(text.startIndex, offsetBy: textLimit, limitedBy: text.endIndex),
            end < text.endIndex
        else { return text }
        return text[..<end] + "… (\(text.utf8.count - text[..<end].utf8.count) more bytes)"
    }

    /// `text` with its control characters (C0, DEL, C1, and the line and paragraph separators)
    /// written as escapes.
    private static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

/// A rejection found while decoding one envelope, before the line number is known.
struct FieldError: Error {
    var code: IngestError.Code
    var path: String
    var reason: String

    init(_ code: IngestError.Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// A required member the object left out.
    static func missing(at path: String) -> FieldError { FieldError(.missingField, path: path, reason: "is required") }

    /// A member that names no field of its object.
    static func unknown(at path: String) -> FieldError {
        FieldError(.unknownField, path: path, reason: "is not a known field")
    }

    /// A member given as `null`, where it should be left out.
    static func nullGiven(at path: String) -> FieldError {
        FieldError(.nullField, path: path, reason: "must not be null (leave it out)")
    }
}
