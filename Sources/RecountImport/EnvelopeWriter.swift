import Recount

/// Packs samples into `samples.upsert` envelopes of at most `batchSize` samples, checks each
/// envelope with ingest's own `EnvelopeDecoder`, and hands it, as one line of JSON without a
/// trailing newline, to a closure.
///
/// Envelopes are written by `EnvelopeJSON`, as `recount log dump` writes them:
/// `{"kind":"samples.upsert","user":U,"receivedAt":T,"provider":P,"samples":[…]}`;
/// `receivedAt` is left out unless the importer knows the export's date (the engine then stamps
/// it). Every importer writes through this one class: Apple Health (`healthkit`), Fitbit
/// (`fitbit`), Google Fit (`google_fit`).
///
/// Ingest takes an envelope whole or not at all, so one sample it refuses (a unit it does not
/// know, a negative step count) would sink its neighbours. When the decoder refuses an envelope,
/// each of its samples is checked alone; the ones refused are left out and kept in `rejections`
/// with the decoder's code and reason, and the rest is written.
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

    /// A sample waiting in the envelope being built.
    private struct Pending {
        var sample: Sample
        var type: String
        var file: String?
        var line: Int
    }

    /// The envelopes' user.
    private let user: String
    /// The envelopes' provider.
    private let provider: String
    /// Most samples per envelope.
    private let batchSize: Int
    /// Where finished lines go.
    private let emit: (String) throws -> Void
    /// Ingest's decoder, which every envelope passes before it is emitted.
    private let decoder = EnvelopeDecoder()
    /// `receivedAt` of the envelopes to come (the export's `ExportDate`).
    var receivedAt: Instant?

    /// The samples of the envelope being built.
    private var body: [Pending] = []
    /// Ids in the envelope being built, to drop exact duplicates within it.
    private var idsInBody: Set<SampleID> = []
    /// Samples written so far.
    private(set) var samplesWritten = 0
    /// Envelopes written so far.
    private(set) var envelopesWritten = 0
    /// Samples dropped because their id was already in the same envelope.
    private(set) var duplicatesDropped = 0
    /// Samples the decoder refused since the last `takeRejections()`.
    private var rejections: [Rejection] = []

    /// Creates a writer.
    /// - Parameters:
    ///   - user: the envelopes' user (already validated).
    ///   - provider: the envelopes' provider (`healthkit`, `fitbit`, `google_fit`).
    ///   - batchSize: most samples per envelope, at least 1.
    ///   - emit: receives each envelope line.
    init(user: String, provider: String, batchSize: Int, emit: @escaping (String) throws -> Void) {
        self.user = user
        self.provider = provider
        self.batchSize = batchSize
        self.emit = emit
    }

    /// Adds a sample, emitting the envelope when it is full.
    ///
    /// A sample whose id is already in the envelope being built is dropped (the export repeated
    /// the record), so no envelope holds one id twice.
    /// - Parameters:
    ///   - sample: the sample.
    ///   - type: its record's type, for `rejections`.
    ///   - file: its record's file in a multi-file export, for `rejections`.
    ///   - line: its record's line (or index in `file`), for `rejections`.
    /// - Throws: whatever `emit` throws, or `ImportError.envelopeRejected`.
    func add(_ sample: Sample, type: String, file: String? = nil, line: Int) throws {
        guard idsInBody.insert(sample.id).inserted else {
            duplicatesDropped += 1
            return
        }
        body.append(Pending(sample: sample, type: type, file: file, line: line))
        if body.count >= batchSize {
            try flush()
        }
    }

    /// Emits the envelope being built, if it holds any sample ingest accepts.
    /// - Throws: whatever `emit` throws; `ImportError.envelopeRejected` when the
    ///   decoder refuses an envelope whose samples it each accepts alone.
    func flush() throws {
        guard !body.isEmpty else { return }
        var line = envelopeLine(body.map(\.sample))
        if check(line) != nil {
            body.removeAll { pending in
                guard let error = check(envelopeLine([pending.sample])) else { return false }
                let field = error.path.drop { $0 != "." }.dropFirst()
                rejections.append(
                    Rejection(
                        type: pending.type, file: pending.file, line: pending.line,
                        reason:
                            "rejected by ingest (\(error.code)): \(field.isEmpty ? "sample" : field) \(error.reason)"
                    ))
                return true
            }
            if body.isEmpty {
                idsInBody.removeAll(keepingCapacity: true)
                return
            }
            line = envelopeLine(body.map(\.sample))
            if let error = check(line) {
                throw ImportError(
                    code: .envelopeRejected, message: "an envelope of \(body.count) samples: \(error)")
            }
        }
        let count = body.count
        body.removeAll(keepingCapacity: true)
        idsInBody.removeAll(keepingCapacity: true)
        try emit(line)
        samplesWritten += count
        envelopesWritten += 1
    }

    /// The rejections since the last call, in the order they were found.
    func takeRejections() -> [Rejection] {
        defer { rejections.removeAll() }
        return rejections
    }

    /// One `samples.upsert` line.
    private func envelopeLine(_ samples: [Sample]) -> String {
        EnvelopeJSON.string(
            EnvelopeInput(
                user: user, receivedAt: receivedAt, body: .samplesUpsert(provider: provider, samples: samples))
        )
    }

    /// The decoder's verdict on a line: `nil` when ingest would append it.
    private func check(_ line: String) -> IngestError? {
        var line = line
        return line.withUTF8 { bytes -> IngestError? in
            do throws(IngestError) {
                _ = try decoder.decode(line: UnsafeRawBufferPointer(bytes), number: 1)
                return nil
            } catch {
                return error
            }
        }
    }
}
