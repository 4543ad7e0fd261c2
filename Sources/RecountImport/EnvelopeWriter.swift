import Recount

/// Packs samples into `samples.upsert` envelopes of at most `batchSize` samples and hands each
/// envelope, as one line of JSON without a trailing newline, to a closure.
///
/// Envelopes are written by `EnvelopeJSON`, as `recount log dump` writes them:
/// `{"kind":"samples.upsert","user":U,"receivedAt":T,"provider":"healthkit","samples":[…]}`;
/// `receivedAt` is left out when the export has no `ExportDate` (the engine then stamps it).
final class EnvelopeWriter {
    /// The envelopes' user.
    private let user: String
    /// Most samples per envelope.
    private let batchSize: Int
    /// Where finished lines go.
    private let emit: (String) throws -> Void
    /// `receivedAt` of the envelopes to come (the export's `ExportDate`).
    var receivedAt: Instant?

    /// The samples of the envelope being built.
    private var body: [Sample] = []
    /// Ids in the envelope being built, to drop exact duplicates within it.
    private var idsInBody: Set<SampleID> = []
    /// Samples written so far.
    private(set) var samplesWritten = 0
    /// Envelopes written so far.
    private(set) var envelopesWritten = 0
    /// Samples dropped because their id was already in the same envelope.
    private(set) var duplicatesDropped = 0

    /// Creates a writer.
    /// - Parameters:
    ///   - user: the envelopes' user (already validated).
    ///   - batchSize: most samples per envelope, at least 1.
    ///   - emit: receives each envelope line.
    init(user: String, batchSize: Int, emit: @escaping (String) throws -> Void) {
        self.user = user
        self.batchSize = batchSize
        self.emit = emit
    }

    /// Adds a sample, emitting the envelope when it is full.
    ///
    /// A sample whose id is already in the envelope being built is dropped (the export repeated
    /// the record), so no envelope holds one id twice.
    /// - Parameter sample: the sample.
    /// - Throws: whatever `emit` throws.
    func add(_ sample: Sample) throws {
        guard idsInBody.insert(sample.id).inserted else {
            duplicatesDropped += 1
            return
        }
        body.append(sample)
        if body.count >= batchSize {
            try flush()
        }
    }

    /// Emits the envelope being built, if it holds any sample.
    /// - Throws: whatever `emit` throws.
    func flush() throws {
        guard !body.isEmpty else { return }
        let line = EnvelopeJSON.string(
            EnvelopeInput(
                user: user, receivedAt: receivedAt, body: .samplesUpsert(provider: "healthkit", samples: body)))
        let count = body.count
        body.removeAll(keepingCapacity: true)
        idsInBody.removeAll(keepingCapacity: true)
        try emit(line)
        samplesWritten += count
        envelopesWritten += 1
    }
}
