import Recount

/// Packs samples into `samples.upsert` envelopes of at most `batchSize` samples, checks each
/// sample with ingest's own rules (`SampleValidator`), and hands each envelope, as one line of
/// JSON without a trailing newline, to a closure: as UTF-8 bytes, or as a `String` for callers
/// that want one.
///
/// Envelopes are written by `EnvelopeJSON`, as `recount log dump` writes them:
/// `{"kind":"samples.upsert","user":U,"receivedAt":T,"provider":P,"samples":[…]}`;
/// `receivedAt` is left out unless the importer knows the export's date (the engine then stamps
/// it). Every importer writes through this one class: Apple Health (`healthkit`), Fitbit
/// (`fitbit`), Google Fit (`google_fit`).
///
/// Ingest takes an envelope whole or not at all, so one sample it refuses (a unit it does not
/// know, a negative step count) would sink its neighbours. Each sample is therefore checked as it
/// is added, with the decoder's own sample rules; a sample refused is left out and kept in
/// `rejections` with the decoder's code and reason (it still counts toward its envelope's
/// `batchSize`), and the rest is written. Each sample's JSON is appended to one reused buffer as
/// it is added. The envelope's own limits (line length, samples per array) are the decoder's to
/// judge: it reads an envelope only when one might be exceeded.
final class EnvelopeWriter {
    /// A sample ingest refused, with the record it came from.
    struct Rejection {
        /// The record's type, as the importer counts it.
        var type: String
        /// The file inside a multi-file export the record came from (`nil` for `export.xml`).
        var file: String?
        /// The record's line in the export (its 1-based index in `file`, for JSON files).
        var line: Int
        /// Why: `rejected by ingest (unknownUnit): unit is not a unit of distance (furlong); …`.
        var reason: String
    }

    /// The envelopes' user.
    private let user: String
    /// The envelopes' provider.
    private let provider: String
    /// Most samples per envelope.
    private let batchSize: Int
    /// Where finished lines go, as UTF-8 bytes valid only during the call.
    private let emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    /// `receivedAt` of the envelopes to come (the export's `ExportDate`).
    var receivedAt: Instant?

    /// The envelope being built.
    private var body: Body
    /// Samples accepted into the envelope being built.
    private var samplesInBody = 0
    /// Samples taken into the envelope being built, refused ones included (`batchSize` counts them).
    private var samplesTaken = 0
    /// Samples written so far.
    private(set) var samplesWritten = 0
    /// Envelopes written so far.
    private(set) var envelopesWritten = 0
    /// Samples dropped because their id was already in the same envelope.
    private(set) var duplicatesDropped = 0
    /// Samples the decoder refused since the last `takeRejections()`.
    private var rejections: [Rejection] = []
    /// Whether samples were refused since the last `takeRejections()`: a flag beside the
    /// array, so that the test after every sample is a plain load (reading the array is checked
    /// for exclusivity at run time).
    private(set) var hasRejections = false

    /// Creates a writer.
    /// - Parameters:
    ///   - user: the envelopes' user (already validated).
    ///   - provider: the envelopes' provider (`healthkit`, `fitbit`, `google_fit`).
    ///   - batchSize: most samples per envelope, at least 1.
    ///   - emit: receives each envelope line.
    convenience init(user: String, provider: String, batchSize: Int, emit: @escaping (String) throws -> Void) {
        self.init(user: user, provider: provider, batchSize: batchSize) {
            try emit(String(decoding: $0, as: UTF8.self))
        }
    }

    /// Creates a writer that hands each line out as UTF-8 bytes, without making a `String` of it.
    /// - Parameters:
    ///   - user: the envelopes' user (already validated).
    ///   - provider: the envelopes' provider.
    ///   - batchSize: most samples per envelope, at least 1.
    ///   - emitUTF8: receives each envelope line's bytes, valid only during the call.
    init(
        user: String, provider: String, batchSize: Int,
        emitUTF8: @escaping (UnsafeBufferPointer<UInt8>) throws -> Void
    ) {
        self.user = user
        self.provider = provider
        self.batchSize = batchSize
        self.emit = emitUTF8
        // Room for the head whatever `receivedAt` is: the head without one, plus the member.
        let headWithoutDate = EnvelopeJSON.samplesUpsertHead(user: user, receivedAt: nil, provider: provider)
        body = Body(headRoom: headWithoutDate.count + #","receivedAt":"""#.utf8.count + RFC3339.maximumLength)
    }

    /// Adds a sample, emitting the envelope when it is full.
    ///
    /// A sample whose id is already in the envelope being built is dropped when it is the same
    /// sample (the export repeated the record); a different sample under that id (a conflict)
    /// starts the next envelope, so that ingest's newness rule decides between the two, as it
    /// does wherever the envelopes' boundaries fall. No envelope holds one id twice.
    /// - Parameters:
    ///   - sample: the sample.
    ///   - type: its record's type, for `rejections`.
    ///   - file: its record's file in a multi-file export, for `rejections`.
    ///   - line: its record's line (or index in `file`), for `rejections`.
    /// - Throws: whatever `emit` throws, or `ImportError.envelopeRejected`.
    func add(_ sample: Sample, type: String, file: String? = nil, line: Int) throws {
        switch body.add(sample) {
        case .duplicate:
            duplicatesDropped += 1
            return
        case .conflict:
            try flush()
            return try add(sample, type: type, file: file, line: line)
        case .accepted:
            samplesInBody += 1
        case .refused(let error):
            let field = error.path.drop { $0 != "." }.dropFirst()
            hasRejections = true
            rejections.append(
                Rejection(
                    type: type, file: file, line: line,
                    reason: "rejected by ingest (\(error.code)): \(field.isEmpty ? "sample" : field) \(error.reason)"))
        }
        samplesTaken += 1
        if samplesTaken >= batchSize {
            try flush()
        }
    }

    /// Emits the envelope being built, if it holds any sample ingest accepts.
    /// - Throws: whatever `emit` throws; `ImportError.envelopeRejected` when the decoder refuses
    ///   the envelope as a whole (a line or an array over ingest's limits).
    func flush() throws {
        guard samplesTaken > 0 else { return }
        let count = samplesInBody
        defer {
            body.removeAll()
            samplesInBody = 0
            samplesTaken = 0
        }
        guard count > 0 else { return }
        let head = EnvelopeJSON.samplesUpsertHead(user: user, receivedAt: receivedAt, provider: provider)
        try body.withLine(head: head) { line in
            if line.count > EnvelopeLimits.lineBytes || count > EnvelopeLimits.itemsPerArray,
                let error = Self.check(line)
            {
                throw ImportError(code: .envelopeRejected, message: "an envelope of \(count) samples: \(error)")
            }
            try emit(line)
        }
        samplesWritten += count
        envelopesWritten += 1
    }

    /// The envelope being built: its ids, ingest's sample rules and its samples' JSON, in one
    /// value, so that adding a sample is one access to the writer's state rather than one per
    /// member (each access to a class's stored property is checked for exclusivity at run time).
    private struct Body {
        /// What `add(_:)` did with a sample.
        enum Outcome {
            /// The same sample is in the envelope already: dropped.
            case duplicate
            /// Another sample under its id is in the envelope: not added.
            case conflict
            /// Checked and written.
            case accepted
            /// Refused by ingest's rules: left out.
            case refused(IngestError)
        }

        /// Ids in the envelope, numbered in the order first met.
        private var ids = IdSet()
        /// By id number: where the id's sample's JSON lies in `line` (`nil` while none was
        /// written: refused by the rules), to drop exact duplicates and to tell a conflict.
        private var written: [Range<Int>?] = []
        /// Ingest's sample rules, which every sample passes before it is written.
        private var validator = SampleValidator()
        /// Bytes kept free at the start of `line` for the envelope's head.
        private let headRoom: Int
        /// The envelope's line: `headRoom` bytes for its head (written when it is emitted, so
        /// the line is never copied), then the JSON of the samples accepted, separated by commas.
        private var line: [UInt8]

        /// An empty envelope.
        /// - Parameter headRoom: the most bytes the envelope's head takes.
        init(headRoom: Int) {
            self.headRoom = headRoom
            line = Array(repeating: 0, count: headRoom)
        }

        /// Checks a sample and writes it, unless its id is in the envelope already.
        mutating func add(_ sample: Sample) -> Outcome {
            let (number, isNew) = ids.number(inserting: sample.id)
            if isNew {
                written.append(nil)
            } else if let range = written[number] {
                // Written to compare with the held one, then taken back.
                let start = line.count
                EnvelopeJSON.appendSample(sample, to: &line)
                let same = line[start...].elementsEqual(line[range])
                line.removeSubrange(start...)
                return same ? .duplicate : .conflict
            }
            do throws(IngestError) {
                try validator.check(sample)
            } catch {
                return .refused(error)
            }
            if line.count > headRoom { line.append(UInt8(ascii: ",")) }
            let start = line.count
            EnvelopeJSON.appendSample(sample, to: &line)
            written[number] = start..<line.count
            return .accepted
        }

        /// Completes the line with its head and end and lends it to `body`.
        /// - Parameters:
        ///   - head: the envelope's members before its samples, at most `headRoom` bytes.
        ///   - body: reads the line, valid only during the call.
        mutating func withLine(head: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
            precondition(head.count <= headRoom, "an envelope head of \(head.count) bytes in room for \(headRoom)")
            let start = headRoom - head.count
            line.replaceSubrange(start..<headRoom, with: head)
            line.append(contentsOf: [0x5D, 0x7D])
            try line.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start...])) }
        }

        /// Empties the envelope, keeping the buffers.
        mutating func removeAll() {
            ids.removeAll()
            written.removeAll(keepingCapacity: true)
            line.removeSubrange(headRoom...)
        }
    }

    /// The rejections since the last call, in the order they were found.
    func takeRejections() -> [Rejection] {
        defer {
            rejections.removeAll()
            hasRejections = false
        }
        return rejections
    }

    /// The decoder's verdict on a whole line: `nil` when ingest would append it.
    private static func check(_ line: UnsafeBufferPointer<UInt8>) -> IngestError? {
        do throws(IngestError) {
            _ = try EnvelopeDecoder().decode(line: UnsafeRawBufferPointer(line), number: 1)
            return nil
        } catch {
            return error
        }
    }
}
