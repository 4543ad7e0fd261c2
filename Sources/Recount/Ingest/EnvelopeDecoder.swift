/// Turns one NDJSON line into a validated `EnvelopeInput`, or says exactly why not.
///
/// Every rule of contract §1 and `schemas/` is checked here; the schema-agreement test runs
/// the same corpus through this decoder and a JSON Schema validator.
package struct EnvelopeDecoder {
    /// The time-zone cache sample `timeZone` names are checked with.
    let zones: ZoneOffsets
    private let scanning: Bool

    /// - Parameters:
    ///   - zones: the time-zone cache to check `timeZone` names with.
    ///   - scanning: read each line with `EnvelopeScan` (the fast path); `false` parses every line
    ///     as a JSON tree and scans the tree's text written back (the reference the tests compare
    ///     the fast path with: the line's own bytes against a canonical text of them).
    package init(zones: ZoneOffsets = ZoneOffsets(), scanning: Bool = true) {
        self.zones = zones
        self.scanning = scanning
    }

    /// What a caller decoding many lines keeps from one line to the next: the strings its
    /// samples repeat, and the room of the scan.
    package struct Scratch {
        var repeats = SampleRepeats()
        var scan = EnvelopeScan()
        /// The ids of one sample array, to refuse a repeat.
        var ids = IdSet()

        package init() {}
    }

    /// Decodes line `line` of an input.
    package func decode(line bytes: UnsafeRawBufferPointer, number line: Int) throws(IngestError) -> EnvelopeInput {
        var scratch = Scratch()
        return try decode(line: bytes, number: line, scratch: &scratch)
    }

    /// Decodes line `line` of an input, working in `scratch`, which a caller decoding many
    /// lines keeps from one to the next.
    package func decode(line bytes: UnsafeRawBufferPointer, number line: Int, scratch: inout Scratch)
        throws(IngestError) -> EnvelopeInput
    {
        guard bytes.count <= EnvelopeLimits.lineBytes else {
            throw IngestError(
                .lineTooLong, line: line, path: "$",
                reason: "is \(bytes.count) bytes; lines of at most \(EnvelopeLimits.lineBytes) bytes are accepted")
        }
        if scanning, scratch.scan.rescan(bytes, maxDepth: EnvelopeLimits.depth) {
            return try decodeScanned(line: line, scratch: &scratch)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: EnvelopeLimits.depth)
        } catch {
            // A duplicate key or a lone surrogate is a fault of one field; anything else breaks the line.
            let ofField = error.code == .duplicateKey || error.code == .loneSurrogate
            let at = ofField || error.path == "$" ? "" : " in \(error.path)"
            throw IngestError(
                error.code == .duplicateKey ? .duplicateKey : .invalidJSON, line: line,
                path: ofField ? error.path : "$",
                reason: "is not valid JSON: \(error.reason)\(at) (byte \(error.offset + 1))")
        }
        guard case .object = value else {
            throw IngestError(.wrongType, line: line, path: "$", reason: "must be an object")
        }
        // Valid JSON the scan gave up on (a second member that is no field), or any line when
        // not scanning: the tree's text repeats no key, so its scan reads every member.
        var text: [UInt8] = []
        JSONWriter.write(value, into: &text)
        let decoded = text.withUnsafeBytes { text in
            Result { () throws(IngestError) in
                guard scratch.scan.rescan(text, maxDepth: EnvelopeLimits.depth, keysUnique: true) else {
                    throw IngestError(.invalidJSON, line: line, path: "$", reason: "could not be read back")
                }
                return try decodeScanned(line: line, scratch: &scratch)
            }
        }
        return try decoded.get()
    }

    /// Decodes the line `scratch.scan` holds.
    private func decodeScanned(line: Int, scratch: inout Scratch) throws(IngestError) -> EnvelopeInput {
        do {
            return try decode(scratch.scan, repeats: &scratch.repeats, ids: &scratch.ids)
        } catch {
            throw IngestError(error.code, line: line, path: error.path, reason: error.reason)
        }
    }

    /// Decodes a scanned envelope.
    private func decode(_ scan: EnvelopeScan, repeats: inout SampleRepeats, ids: inout IdSet) throws(FieldError)
        -> EnvelopeInput
    {
        try withUnsafePointer(to: scan.root) { fields throws(FieldError) in
            try decode(RootInput(fields: fields, bytes: scan.bytes), scan: scan, repeats: &repeats, ids: &ids)
        }
    }

    /// Decodes the envelope whose root is `root` and whose sample arrays `scan` lifted.
    private func decode(_ root: RootInput, scan: EnvelopeScan, repeats: inout SampleRepeats, ids: inout IdSet)
        throws(FieldError) -> EnvelopeInput
    {
        let kindSpan = try root.required(.kind)
        guard let named = try root.withText(kindSpan, { Kind(name: $0) }) else {
            throw FieldError(.wrongType, path: "kind", reason: "must be a string")
        }
        guard let kind = named else {
            throw FieldError(
                .unknownKind, path: "kind",
                reason: "is not a known kind (\(Kind.allCases.map(\.name).joined(separator: ", ")))")
        }
        let user: String
        if try root.withText(try root.required(.user), { $0.count == 1 && $0[0] == UInt8(ascii: "*") }) == true {
            guard kind.isConfig else {
                throw FieldError(
                    .invalidCharacters, path: "user", reason: "is \"*\", which only config.* kinds may use")
            }
            user = "*"
        } else {
            user = try root.string(.user, .user)
        }
        let receivedAt = try root.optionalInstant(.receivedAt)
        let body: Envelope.Body
        switch kind {
        case .healthKitDelivery:
            try root.allowOnly(Kind.healthKitDelivery.fields)
            let type = try metricName(root, .type, repeats: &repeats)
            let anchorSpan = try root.required(.anchor)
            let anchor = anchorSpan.isNull(in: root.bytes) ? nil : try base64(root, anchorSpan, path: "anchor")
            let newAnchor = try base64(root, try root.required(.newAnchor), path: "newAnchor")
            let added = try samples(
                root, .added, scan: scan, repeats: &repeats, seen: &ids, allowed: { $0 == type.metric },
                mismatch: "must be a \(type.metric.name) sample, like the delivery's type")
            var deleted: [HealthKitDeletion] = []
            var seen = IdSet()
            for (index, item) in try root.array(.deleted).enumerated() {
                let path = "deleted[\(index)]"
                let deletion = try ObjectReader(item, path: path)
                try deletion.allowOnly(["uuid", "metadata"])
                let uuid = try deletion.string("uuid", .id)
                guard seen.insert(uuid) else {
                    throw FieldError(
                        .duplicateId, path: path + ".uuid", reason: "repeats an id deleted earlier in this envelope")
                }
                var metadata: String? = nil
                if let value = try deletion.optional("metadata") {
                    guard case .object = value else {
                        throw FieldError(.wrongType, path: path + ".metadata", reason: "must be an object")
                    }
                    metadata = JSONWriter.string(value)
                }
                deleted.append(HealthKitDeletion(uuid: uuid, metadataJSON: metadata))
            }
            body = .healthKitDelivery(
                HealthKitDelivery(type: type, anchor: anchor, newAnchor: newAnchor, added: added, deleted: deleted))
        case .healthConnectChanges:
            try root.allowOnly(Kind.healthConnectChanges.fields)
            let recordTypes = try metricNames(root, .recordTypes)
            let token = try root.string(.token, .token)
            let next = try root.string(.nextChangesToken, .token)
            let hasMore = try root.bool(.hasMore)
            let expired = try root.bool(.changesTokenExpired)
            var metrics = MetricSet()
            for type in recordTypes { metrics.insert(type.metric) }
            var changes: [HealthConnectChanges.Change] = []
            var samples: [Sample] = []
            var upserted = IdSet()
            var deleted = IdSet()
            func upsert(_ sample: consuming Sample, at index: Int) throws(FieldError) {
                guard metrics.contains(sample.type.metric) else {
                    throw FieldError(
                        .typeMismatch, path: "changes[\(index)].upsertion.type",
                        reason: "is not among the page's recordTypes")
                }
                guard upserted.insert(sample.id) else {
                    throw FieldError(
                        .duplicateId, path: "changes[\(index)].upsertion.id",
                        reason: "repeats an id upserted earlier in this envelope")
                }
                changes.append(.upsertion)
                samples.append(sample)
            }
            func delete(_ id: String, at index: Int) throws(FieldError) {
                guard deleted.insert(id) else {
                    throw FieldError(
                        .duplicateId, path: "changes[\(index)].deletion.recordId",
                        reason: "repeats an id deleted earlier in this envelope")
                }
                changes.append(.deletion(recordId: id))
            }
            if let lifted = scan.changes {
                try root.checkCount(.changes, lifted.changes.count)
                changes.reserveCapacity(lifted.changes.count)
                samples.reserveCapacity(lifted.upsertions.count)
                for (index, change) in lifted.changes.enumerated() {
                    switch change {
                    case .upsertion(let upsertion):
                        let path = ElementPath(array: "changes", index: index, member: "upsertion")
                        try lifted.upsertions.withUnsafeBufferPointer { upsertions throws(FieldError) in
                            let input = SampleInput(
                                fields: upsertions.baseAddress! + upsertion, bytes: scan.bytes, element: path)
                            try upsert(try sample(input, repeats: &repeats), at: index)
                        }
                    case .deletion(let span):
                        let id = try StringRule.id.string(
                            utf8: span.text(in: scan.bytes), path: "changes[\(index)].deletion.recordId")
                        try delete(id, at: index)
                    }
                }
            } else {
                for (index, item) in try root.array(.changes).enumerated() {
                    let path = "changes[\(index)]"
                    let change = try ObjectReader(item, path: path)
                    try change.allowOnly(["upsertion", "deletion"])
                    guard change.object.members.count == 1 else {
                        throw FieldError(
                            .invalidChange, path: path, reason: "must hold exactly one of upsertion or deletion")
                    }
                    if let value = try change.optional("upsertion") {
                        let path = ElementPath(array: "changes", index: index, member: "upsertion")
                        try upsert(try sample(value, at: path, repeats: &repeats), at: index)
                    } else {
                        let deletion = try ObjectReader(try change.required("deletion"), path: path + ".deletion")
                        try deletion.allowOnly(["recordId"])
                        try delete(try deletion.string("recordId", .id), at: index)
                    }
                }
            }
            body = .healthConnectChanges(
                HealthConnectChanges(
                    recordTypes: recordTypes, token: token, nextChangesToken: next, hasMore: hasMore,
                    changesTokenExpired: expired, changes: changes, upserted: samples))
        case .samplesUpsert:
            try root.allowOnly(Kind.samplesUpsert.fields)
            let provider = try root.string(.provider, .provider)
            body = .samplesUpsert(
                provider: provider,
                samples: try samples(
                    root, .samples, scan: scan, repeats: &repeats, seen: &ids, allowed: { _ in true }, mismatch: ""))
        case .samplesDelete:
            try root.allowOnly(Kind.samplesDelete.fields)
            let provider = try root.string(.provider, .provider)
            var ids: [String] = []
            var seen = IdSet()
            for (index, item) in try root.array(.ids).enumerated() {
                let id = try StringRule.id.check(item, path: "ids[\(index)]")
                guard seen.insert(id) else {
                    throw FieldError(
                        .duplicateId, path: "ids[\(index)]", reason: "repeats an id earlier in this envelope")
                }
                ids.append(id)
            }
            body = .samplesDelete(provider: provider, ids: ids)
        case .checkin:
            try root.allowOnly(Kind.checkin.fields)
            body = .checkin(
                provider: try root.string(.provider, .provider), metrics: try metricNames(root, .metrics),
                at: try root.instant(.at))
        case .reconcile:
            try root.allowOnly(Kind.reconcile.fields)
            let provider = try root.string(.provider, .provider)
            let metric = try metricName(root, .metric, repeats: &repeats)
            let window = try root.object(.window)
            try window.allowOnly(["from", "to"])
            let from = try window.instant("from")
            let to = try window.instant("to")
            guard
                from.millis < to.millis
                    || (from.millis == to.millis
                        && window.fractionBeyondMillis("from") <= window.fractionBeyondMillis("to"))
            else {
                throw FieldError(.windowReversed, path: "window.from", reason: "is after window.to")
            }
            let samples = try samples(
                root, .samples, scan: scan, repeats: &repeats, seen: &ids, allowed: { $0 == metric.metric },
                mismatch: "must be a \(metric.metric.name) sample, like the reconcile's metric")
            body = .reconcile(Reconcile(provider: provider, metric: metric, from: from, to: to, samples: samples))
        case .configSources:
            try root.allowOnly(Kind.configSources.fields)
            let metric = try metricName(root, .metric, repeats: &repeats)
            body = .configSources(metric: metric, priority: try strings(root, .priority, .text))
        case .configProvider:
            try root.allowOnly(Kind.configProvider.fields)
            body = .configProvider(
                provider: try root.string(.provider, .provider),
                expectedCheckinSeconds: try root.integer(.expectedCheckinSeconds, in: 1...31_622_400),
                cohort: try root.optionalString(.cohort, .cohort))
        case .configOwnOrigins:
            try root.allowOnly(Kind.configOwnOrigins.fields)
            body = .configOwnOrigins(origins: try strings(root, .origins, .text))
        }
        return EnvelopeInput(user: user, receivedAt: receivedAt, body: body)
    }

    func metricName(_ value: JSONValue, path: @autoclosure () -> String) throws(FieldError) -> MetricName {
        guard case .string(let text) = value else {
            throw FieldError(.wrongType, path: path(), reason: "must be a type name string")
        }
        guard let name = MetricName(text) else {
            throw FieldError(
                .unknownType, path: path(),
                reason: "is not a known type (\(text)); accepted: \(Metric.acceptedTypeNames.joined(separator: ", "))")
        }
        return name
    }

    /// The type name of root member `field`, built once while consecutive envelopes and
    /// samples repeat its text.
    private func metricName(_ root: RootInput, _ field: RootFields.Field, repeats: inout SampleRepeats)
        throws(FieldError) -> MetricName
    {
        let span = try root.required(field)
        return try repeats.type.value(of: span, in: root.bytes) { () throws(FieldError) in
            try metricName(root.value(span), path: root.path(field))
        }
    }

    private func metricNames(_ root: RootInput, _ field: RootFields.Field) throws(FieldError) -> [MetricName] {
        var names: [MetricName] = []
        for (index, item) in try root.array(field, minimum: 1).enumerated() {
            names.append(try metricName(item, path: "\(root.path(field))[\(index)]"))
        }
        return names
    }

    private func strings(_ root: RootInput, _ field: RootFields.Field, _ rule: StringRule) throws(FieldError)
        -> [String]
    {
        var strings: [String] = []
        for (index, item) in try root.array(field).enumerated() {
            strings.append(try rule.check(item, path: "\(root.path(field))[\(index)]"))
        }
        return strings
    }

    private func base64(_ root: RootInput, _ span: JSONSpan, path: String) throws(FieldError) -> String {
        // Canonical base64 of at most the rule's length meets the rule: one pass over an anchor
        // settles both. Anything else goes through the rule, which names a wrong type, length or
        // character before the padding is blamed.
        let text = span.text(in: root.bytes)
        guard span.kind == .string, text.count <= StringRule.base64.maximum, Base64.isCanonical(text) else {
            _ = try StringRule.base64.check(root.value(span), path: path)
            throw FieldError(.invalidBase64, path: path, reason: "is not padded standard base64")
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Kind {
    /// The members an envelope of this kind may have (contract §1).
    fileprivate var fields: RootFields.FieldSet { Self.fieldsByKind[Int(rawValue) - 1] }

    /// `fields` of each kind, by code, made once.
    private static let fieldsByKind: [RootFields.FieldSet] = allCases.map { kind in
        let own: [RootFields.Field] =
            switch kind {
            case .healthKitDelivery: [.type, .anchor, .newAnchor, .added, .deleted]
            case .healthConnectChanges:
                [.recordTypes, .token, .nextChangesToken, .hasMore, .changesTokenExpired, .changes]
            case .samplesUpsert: [.provider, .samples]
            case .samplesDelete: [.provider, .ids]
            case .checkin: [.provider, .metrics, .at]
            case .reconcile: [.provider, .metric, .window, .samples]
            case .configSources: [.metric, .priority]
            case .configProvider: [.provider, .expectedCheckinSeconds, .cohort]
            case .configOwnOrigins: [.origins]
            }
        return RootFields.FieldSet([.kind, .user, .receivedAt] + own)
    }
}

/// Checks standard, padded base64 (RFC 4648 §4).
enum Base64 {
    /// The base64 alphabet without its padding.
    private static let alphabet = ASCIISet.alphanumerics(and: "+/")

    /// Whether the UTF-8 text `bytes` is standard base64 with its padding.
    static func isCanonical(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count % 4 == 0 else { return false }
        // At most two `=`, all at the end.
        var end = bytes.count
        while end > 0, bytes.count - end < 2, bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
        // Eight bytes at a time, then the rest one by one: a byte's test was about 12
        // instructions, two anchors a HealthKit delivery (1.4% of an ingest).
        var start = 0
        while start + 8 <= end {
            guard inAlphabet(bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)) else { return false }
            start += 8
        }
        return bytes[start..<end].allSatisfy { alphabet.contains($0) }
    }

    /// Whether each byte of `word` is in the alphabet: `A`–`Z` and `a`–`z` (one range once
    /// case is folded), `/` and `0`–`9` (one range), or `+`.
    private static func inAlphabet(_ word: UInt64) -> Bool {
        let letters = ByteLanes.within(word | ByteLanes.ones &* 0x20, 0x61, 0x7A)
        let digitsAndSlash = ByteLanes.within(word, 0x2F, 0x39)
        let plus = ByteLanes.within(word, 0x2B, 0x2B)
        return word & ByteLanes.tops == 0 && letters | digitsAndSlash | plus == ByteLanes.tops
    }
}
