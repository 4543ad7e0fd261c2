/// Packs samples into `samples.upsert` envelopes of at most `batchSize` samples and hands each
/// envelope, as one line of JSON without a trailing newline, to a closure.
///
/// Envelope shape, fields in this order:
/// `{"kind":"samples.upsert","user":U,"provider":"healthkit","receivedAt":T,"samples":[…]}`;
/// `receivedAt` is left out when the export has no `ExportDate` (the engine then stamps it).
final class EnvelopeWriter {
    /// The envelopes' user.
    private let user: String
    /// Most samples per envelope.
    private let batchSize: Int
    /// Where finished lines go.
    private let emit: (String) throws -> Void
    /// `receivedAt` of the envelopes to come (the export's `ExportDate`).
    var receivedAt: String?

    /// The samples of the envelope being built, comma-separated JSON objects.
    private var body = ""
    /// Ids in the envelope being built, to drop exact duplicates within it.
    private var idsInBody: Set<String> = []
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
    func add(_ sample: HealthSample) throws {
        guard idsInBody.insert(sample.id).inserted else {
            duplicatesDropped += 1
            return
        }
        if idsInBody.count > 1 { body.append(",") }
        sample.appendJSON(to: &body)
        if idsInBody.count >= batchSize {
            try flush()
        }
    }

    /// Emits the envelope being built, if it holds any sample.
    /// - Throws: whatever `emit` throws.
    func flush() throws {
        guard !idsInBody.isEmpty else { return }
        var line = "{\"kind\":\"samples.upsert\",\"user\":"
        JSONText.appendQuoted(user, to: &line)
        line.append(",\"provider\":\"healthkit\"")
        if let receivedAt {
            line.append(",\"receivedAt\":")
            JSONText.appendQuoted(receivedAt, to: &line)
        }
        line.append(",\"samples\":[")
        line.append(body)
        line.append("]}")
        let count = idsInBody.count
        body = ""
        idsInBody.removeAll(keepingCapacity: true)
        try emit(line)
        samplesWritten += count
        envelopesWritten += 1
    }
}
