/// The binary log record of an envelope (format 3): compact, versioned, lossless against the
/// envelope's JSON, and frozen: every later version decodes it to the same envelope.
///
/// Layout: format byte, kind code, user, receivedAt, then the kind's fields. Type names are
/// written with their metric's code, and unit symbols with their unit's code, so decoding never
/// consults today's catalogue. Samples are written as a block: tables of the repeated strings in
/// order of first use, then each sample as a flags varint and its present fields, with UUID ids
/// as 16 bytes and start times as deltas from the previous sample. `docs/record-format.md` is
/// the specification; `Tests/RecountTests/Fixtures/records` holds golden records.
package enum EnvelopeCodec {
    /// The record format this code writes.
    package static let formatVersion: UInt8 = 3
    /// The record formats this code reads. Format 1 was never written outside development;
    /// format 3 added the workout fields (sample flags 10–12).
    package static let readableVersions: ClosedRange<UInt8> = 2...3

    /// Appends the record for `envelope` to `bytes`.
    /// - Returns: the envelope's samples as the block written, if it has one (which the fold
    ///   can take instead of building it again).
    @discardableResult
    package static func encode(_ envelope: Envelope, into bytes: inout [UInt8]) -> SampleBlock? {
        var block = SampleBlock([])
        return encode(envelope, into: &bytes, block: &block) ? block : nil
    }

    /// Appends the record for `envelope` to `bytes`, its samples written from `block`, which
    /// this empties and fills with them (an ingest keeps blocks from one batch to the next).
    /// - Returns: whether the envelope's kind has samples (else `block` is left empty).
    package static func encode(_ envelope: Envelope, into bytes: inout [UInt8], block: inout SampleBlock) -> Bool {
        var out = RecordWriter()
        swap(&out.bytes, &bytes)
        defer { swap(&out.bytes, &bytes) }
        out.byte(formatVersion)
        out.byte(envelope.kind.rawValue)
        out.string(envelope.user)
        writeInstant(envelope.receivedAt, &out)
        block.removeAll()
        var hasSamples = false
        func writeBlock(_ samples: [Sample]) {
            block.fill(with: samples)
            block.write(&out)
            hasSamples = true
        }
        switch envelope.body {
        case .healthKitDelivery(let delivery):
            out.metricName(delivery.type)
            writeOptionalString(delivery.anchor, &out)
            out.string(delivery.newAnchor)
            writeBlock(delivery.added)
            out.varint(UInt64(delivery.deleted.count))
            for deletion in delivery.deleted {
                out.string(deletion.uuid)
                writeOptionalString(deletion.metadataJSON, &out)
            }
        case .healthConnectChanges(let page):
            writeNames(page.recordTypes, &out)
            out.string(page.token)
            out.string(page.nextChangesToken)
            out.bool(page.hasMore)
            out.bool(page.changesTokenExpired)
            out.varint(UInt64(page.changes.count))
            for change in page.changes {
                switch change {
                case .upsertion: out.byte(0)
                case .deletion(let recordId):
                    out.byte(1)
                    out.string(recordId)
                }
            }
            writeBlock(page.upserted)
        case .samplesUpsert(let provider, let samples):
            out.string(provider)
            writeBlock(samples)
        case .samplesDelete(let provider, let ids):
            out.string(provider)
            writeStrings(ids, &out)
        case .checkin(let provider, let metrics, let at):
            out.string(provider)
            writeNames(metrics, &out)
            writeInstant(at, &out)
        case .reconcile(let reconcile):
            out.string(reconcile.provider)
            out.metricName(reconcile.metric)
            writeInstant(reconcile.from, &out)
            writeInstant(reconcile.to, &out)
            writeBlock(reconcile.samples)
        case .configSources(let metric, let priority):
            out.metricName(metric)
            writeStrings(priority, &out)
        case .configProvider(let provider, let seconds, let cohort):
            out.string(provider)
            out.signed(seconds)
            writeOptionalString(cohort, &out)
        case .configOwnOrigins(let origins):
            writeStrings(origins, &out)
        }
        return hasSamples
    }

    /// The user of the record's envelope, read from its first fields only; `nil` when the
    /// record is too damaged to tell.
    package static func user(ofRecord bytes: UnsafeRawBufferPointer) -> String? {
        var input = RecordReader(bytes)
        return try? readHeader(&input).user
    }

    /// The user of the record's envelope as its bytes (not checked to be UTF-8), read from its
    /// first fields only; `nil` when the record is too damaged to tell.
    package static func userBytes(ofRecord bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var input = RecordReader(bytes)
        guard (try? readFormatAndKind(&input)) != nil else { return nil }
        return try? input.stringBytes()
    }

    /// Reads the fields every record starts with: the format, the envelope kind and the user.
    private static func readHeader(_ input: inout RecordReader) throws(EnvelopeCodecError) -> (kind: Kind, user: String)
    {
        (try readFormatAndKind(&input), try input.repeatedString())
    }

    /// Reads a record's format (kept in `input`) and its envelope kind.
    private static func readFormatAndKind(_ input: inout RecordReader) throws(EnvelopeCodecError) -> Kind {
        let version = try input.byte()
        guard readableVersions.contains(version) else {
            throw input.malformed("unknown record format \(version)", code: .unknownFormat)
        }
        input.version = version
        guard let kind = Kind(rawValue: try input.byte()) else { throw input.malformed("unknown envelope kind") }
        return kind
    }

    /// Decodes a record written by `encode`.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(EnvelopeCodecError) -> Envelope {
        try decode(bytes) { input throws(EnvelopeCodecError) in
            let samples = try SampleBlock.read(&input)
            return (samples, samples.count)
        }
    }

    /// Decodes a record for the fold: the envelope without its samples (its sample arrays
    /// empty), which are read into `block` as the record holds them.
    /// - Parameters:
    ///   - block: replaced by the record's samples (emptied when it has none); a replay reads
    ///     every record into one block, whose arrays keep their room.
    ///   - repeated: where the strings records repeat are kept from one record to the next.
    package static func decodeBlock(
        _ bytes: UnsafeRawBufferPointer, into block: inout SampleBlock, repeated: RepeatedStrings? = nil
    ) throws(EnvelopeCodecError) -> Envelope {
        block.removeAll()
        return try decode(bytes, repeated: repeated) { input throws(EnvelopeCodecError) in
            try block.read(&input)
            return ([], block.entries.count)
        }
    }

    /// Decodes a record, reading its sample block (if any) with `readSamples`, which returns
    /// the samples to put in the envelope and how many the block held.
    private static func decode(
        _ bytes: UnsafeRawBufferPointer, repeated: RepeatedStrings? = nil,
        readSamples: (inout RecordReader) throws(EnvelopeCodecError) -> (samples: [Sample], count: Int)
    ) throws(EnvelopeCodecError) -> Envelope {
        var input = RecordReader(bytes, repeated: repeated)
        let (kind, user) = try readHeader(&input)
        let receivedAt = try readInstant(&input)
        let body: Envelope.Body
        switch kind {
        case .healthKitDelivery:
            let type = try input.metricName()
            let anchor = try readOptionalString(&input)
            let newAnchor = try input.string()
            let added = try readSamples(&input).samples
            var deleted: [HealthKitDeletion] = []
            for _ in 0..<(try input.count()) {
                deleted.append(
                    HealthKitDeletion(uuid: try input.string(), metadataJSON: try readOptionalString(&input)))
            }
            body = .healthKitDelivery(
                HealthKitDelivery(type: type, anchor: anchor, newAnchor: newAnchor, added: added, deleted: deleted))
        case .healthConnectChanges:
            let recordTypes = try readNames(&input)
            let token = try input.string()
            let next = try input.string()
            let hasMore = try input.bool()
            let expired = try input.bool()
            var changes: [HealthConnectChanges.Change] = []
            var upsertions = 0
            for _ in 0..<(try input.count()) {
                switch try input.byte() {
                case 0:
                    changes.append(.upsertion)
                    upsertions += 1
                case 1: changes.append(.deletion(recordId: try input.string()))
                default: throw input.malformed("unknown change tag")
                }
            }
            let (upserted, count) = try readSamples(&input)
            guard count == upsertions else {
                throw input.malformed("\(count) upserted samples for \(upsertions) upsertions")
            }
            body = .healthConnectChanges(
                HealthConnectChanges(
                    recordTypes: recordTypes, token: token, nextChangesToken: next, hasMore: hasMore,
                    changesTokenExpired: expired, changes: changes, upserted: upserted))
        case .samplesUpsert:
            body = .samplesUpsert(provider: try input.string(), samples: try readSamples(&input).samples)
        case .samplesDelete:
            body = .samplesDelete(provider: try input.string(), ids: try readStrings(&input))
        case .checkin:
            body = .checkin(provider: try input.string(), metrics: try readNames(&input), at: try readInstant(&input))
        case .reconcile:
            let provider = try input.string()
            let metric = try input.metricName()
            let from = try readInstant(&input)
            let to = try readInstant(&input)
            body = .reconcile(
                Reconcile(
                    provider: provider, metric: metric, from: from, to: to, samples: try readSamples(&input).samples)
            )
        case .configSources:
            body = .configSources(metric: try input.metricName(), priority: try readStrings(&input))
        case .configProvider:
            body = .configProvider(
                provider: try input.string(), expectedCheckinSeconds: try input.signed(),
                cohort: try readOptionalString(&input))
        case .configOwnOrigins:
            body = .configOwnOrigins(origins: try readStrings(&input))
        }
        guard input.isAtEnd else { throw input.malformed("trailing bytes after the envelope") }
        return Envelope(user: user, receivedAt: receivedAt, body: body)
    }

    static func writeInstant(_ instant: Instant, _ out: inout RecordWriter) {
        out.signed(instant.millis)
        out.offset(of: instant)
    }

    static func readInstant(_ input: inout RecordReader) throws(EnvelopeCodecError) -> Instant {
        try input.instant(millis: try input.signed())
    }

    private static func writeOptionalString(_ text: String?, _ out: inout RecordWriter) {
        out.bool(text != nil)
        if let text { out.string(text) }
    }

    private static func readOptionalString(_ input: inout RecordReader) throws(EnvelopeCodecError) -> String? {
        try input.bool() ? try input.string() : nil
    }

    private static func writeStrings(_ strings: [String], _ out: inout RecordWriter) {
        out.varint(UInt64(strings.count))
        for string in strings { out.string(string) }
    }

    private static func readStrings(_ input: inout RecordReader) throws(EnvelopeCodecError) -> [String] {
        var strings: [String] = []
        for _ in 0..<(try input.count()) { strings.append(try input.string()) }
        return strings
    }

    private static func writeNames(_ names: [MetricName], _ out: inout RecordWriter) {
        out.varint(UInt64(names.count))
        for name in names { out.metricName(name) }
    }

    private static func readNames(_ input: inout RecordReader) throws(EnvelopeCodecError) -> [MetricName] {
        var names: [MetricName] = []
        for _ in 0..<(try input.count()) { names.append(try input.metricName()) }
        return names
    }
}
