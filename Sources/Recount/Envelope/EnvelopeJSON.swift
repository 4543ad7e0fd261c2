/// Writes an envelope back as the contract's JSON (one NDJSON line), fields in contract order.
package enum EnvelopeJSON {
    /// The envelope as compact JSON text.
    package static func string(_ envelope: Envelope) -> String {
        string(user: envelope.user, receivedAt: envelope.receivedAt, body: envelope.body)
    }

    /// The envelope as compact JSON text, without `receivedAt` when it has none.
    package static func string(_ envelope: EnvelopeInput) -> String {
        string(user: envelope.user, receivedAt: envelope.receivedAt, body: envelope.body)
    }

    /// The head of a `samples.upsert` envelope as `string(_:)` writes it, up to the `[` of its
    /// `samples`: the sample objects (as `appendSample(_:to:)` writes them, separated by commas)
    /// and `]}` complete the line. An importer writes the head in front of samples it has
    /// written already, so a line of hundreds of kilobytes is never copied.
    /// - Parameters:
    ///   - user: the envelope's user.
    ///   - receivedAt: its `receivedAt`, if any.
    ///   - provider: its provider.
    /// - Returns: the head's UTF-8 bytes.
    package static func samplesUpsertHead(user: String, receivedAt: Instant?, provider: String) -> [UInt8] {
        var head = members(kind: .samplesUpsert, user: user, receivedAt: receivedAt)
        head.string("provider", provider)
        head.rawArray("samples", written: [])
        // The head ends with the empty array's `[]`: the samples go between the brackets.
        return Array(head.bytes.dropLast())
    }

    /// An envelope's first members: `kind`, `user` and `receivedAt`.
    private static func members(kind: Kind, user: String, receivedAt: Instant?) -> JSONObjectText {
        var out = JSONObjectText()
        out.string("kind", kind.name)
        out.string("user", user)
        if let receivedAt { out.string("receivedAt", receivedAt.rfc3339) }
        return out
    }

    private static func string(user: String, receivedAt: Instant?, body: Envelope.Body) -> String {
        var out = members(kind: body.kind, user: user, receivedAt: receivedAt)
        switch body {
        case .healthKitDelivery(let delivery):
            out.string("type", delivery.type.name)
            if let anchor = delivery.anchor { out.string("anchor", anchor) } else { out.raw("anchor", "null") }
            out.string("newAnchor", delivery.newAnchor)
            out.raw("added", array(delivery.added.map(sample)))
            out.raw(
                "deleted",
                array(
                    delivery.deleted.map { deletion in
                        var item = JSONObjectText()
                        item.string("uuid", deletion.uuid)
                        if let metadata = deletion.metadataJSON { item.raw("metadata", metadata) }
                        return item.text
                    }))
        case .healthConnectChanges(let page):
            out.raw("recordTypes", array(page.recordTypes.map { quote($0.name) }))
            out.string("token", page.token)
            out.string("nextChangesToken", page.nextChangesToken)
            out.raw("hasMore", page.hasMore ? "true" : "false")
            out.raw("changesTokenExpired", page.changesTokenExpired ? "true" : "false")
            var changes: [String] = []
            page.forEachChange { upserted, deletedId in
                var item = JSONObjectText()
                if let upserted {
                    item.raw("upsertion", Self.sample(page.upserted[upserted]))
                } else if let deletedId {
                    var deletion = JSONObjectText()
                    deletion.string("recordId", deletedId)
                    item.raw("deletion", deletion.text)
                }
                changes.append(item.text)
            }
            out.raw("changes", array(changes))
        case .samplesUpsert(let provider, let samples):
            out.string("provider", provider)
            out.rawArray("samples", samples) { sample, bytes in appendSample(sample, to: &bytes) }
        case .samplesDelete(let provider, let ids):
            out.string("provider", provider)
            out.raw("ids", array(ids.map(quote)))
        case .checkin(let provider, let metrics, let at):
            out.string("provider", provider)
            out.raw("metrics", array(metrics.map { quote($0.name) }))
            out.string("at", at.rfc3339)
        case .reconcile(let reconcile):
            out.string("provider", reconcile.provider)
            out.string("metric", reconcile.metric.name)
            var window = JSONObjectText()
            window.string("from", reconcile.from.rfc3339)
            window.string("to", reconcile.to.rfc3339)
            out.raw("window", window.text)
            out.raw("samples", array(reconcile.samples.map(sample)))
        case .configSources(let metric, let priority):
            out.string("metric", metric.name)
            out.raw("priority", array(priority.map(quote)))
        case .configProvider(let provider, let seconds, let cohort):
            out.string("provider", provider)
            out.raw("expectedCheckinSeconds", String(seconds))
            if let cohort { out.string("cohort", cohort) }
        case .configOwnOrigins(let origins):
            out.raw("origins", array(origins.map(quote)))
        }
        return out.text
    }

    /// One sample object.
    package static func sample(_ sample: Sample) -> String {
        var bytes: [UInt8] = []
        appendSample(sample, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one sample object's text to a byte buffer, as `sample(_:)` writes it.
    ///
    /// The object is written through a cursor into room made once for its longest possible
    /// text, then appended in one piece (the importers write every sample through here).
    /// - Parameters:
    ///   - sample: the sample.
    ///   - out: the buffer.
    package static func appendSample(_ sample: Sample, to out: inout [UInt8]) {
        out.append(atMost: maximumLength(of: sample)) { writeSample(sample, to: &$0) }
    }

    /// The most bytes `writeSample(_:to:)` writes for `sample`: its strings with every byte
    /// escaped, plus 1024 for the rest (keys and punctuation take under 260, the id 38, the
    /// instants three `RFC3339.maximumLength` and their quotes, the numbers four times 24).
    private static func maximumLength(of sample: Sample) -> Int {
        var strings = sample.type.name.utf8.count + sample.origin.utf8.count
        if sample.id.uuid == nil { strings += sample.id.text.utf8.count }
        strings += sample.timeZone?.utf8.count ?? 0
        strings += sample.unit?.symbol.utf8.count ?? 0
        strings += sample.stage?.name.utf8.count ?? 0
        strings += sample.device?.utf8.count ?? 0
        strings += sample.syncIdentifier?.utf8.count ?? 0
        if let workout = sample.workout {
            strings += workout.activity?.name.utf8.count ?? 0
            strings += workout.distance?.unit?.symbol.utf8.count ?? 0
            strings += workout.energy?.unit?.symbol.utf8.count ?? 0
        }
        return 1024 + JSONWriter.maximumStringLength(utf8Count: strings)
    }

    /// Writes one sample object's text at a cursor; each member's key is written with its comma,
    /// quotes and colon in one piece.
    private static func writeSample(_ sample: Sample, to out: inout ByteCursor) {
        func string(_ member: StaticString, _ value: String) {
            out.write(member)
            JSONWriter.writeString(value, to: &out)
        }
        func instant(_ member: StaticString, _ instant: Instant) {
            out.write(member)
            out.write(0x22)
            out.write(atMost: RFC3339.maximumLength) {
                RFC3339.write(
                    millis: instant.millis, offsetSeconds: instant.offsetSeconds,
                    offsetIsUnknown: instant.offsetIsUnknown, to: $0)
            }
            out.write(0x22)
        }
        if let (high, low, lowercase) = sample.id.uuid {
            out.write(#"{"id":""#)
            out.write(atMost: 36) {
                SampleID.writeUUIDText(high, low, lowercase: lowercase, to: $0)
                return 36
            }
            out.write(0x22)
        } else {
            string(#"{"id":"#, sample.id.text)
        }
        string(#","type":"#, sample.type.name)
        instant(#","start":"#, sample.start)
        if let end = sample.end { instant(#","end":"#, end) }
        if let zone = sample.timeZone { string(#","timeZone":"#, zone) }
        if let value = sample.value {
            out.write(#","value":"#)
            writeNumber(value, to: &out)
        }
        if let unit = sample.unit { string(#","unit":"#, unit.symbol) }
        if let stage = sample.stage { string(#","stage":"#, stage.name) }
        string(#","origin":"#, sample.origin)
        if let device = sample.device { string(#","device":"#, device) }
        if let syncIdentifier = sample.syncIdentifier { string(#","syncIdentifier":"#, syncIdentifier) }
        if let syncVersion = sample.syncVersion {
            out.write(#","syncVersion":"#)
            out.write(String(syncVersion))
        }
        if let lastModified = sample.lastModified { instant(#","lastModified":"#, lastModified) }
        if let workout = sample.workout {
            if let activity = workout.activity { string(#","activity":"#, activity.name) }
            // A total is written back as it came: a bare number, or `{"value", "unit"}`.
            func total(_ member: StaticString, _ total: WorkoutTotal?) {
                guard let total else { return }
                out.write(member)
                guard let unit = total.unit else { return writeNumber(total.value, to: &out) }
                out.write(#"{"value":"#)
                writeNumber(total.value, to: &out)
                string(#","unit":"#, unit.symbol)
                out.write(0x7D)
            }
            total(#","distance":"#, workout.distance)
            total(#","energy":"#, workout.energy)
        }
        out.write(0x7D)
    }

    /// Writes the text `number(_:)` returns (at most 24 bytes); integral values are written digit
    /// by digit without making a `String`.
    private static func writeNumber(_ value: Double, to out: inout ByteCursor) {
        guard value == value.rounded(), abs(value) < 1e15 else { return out.write(number(value)) }
        // At most 16 digits and a sign; digits are written last first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = Int64(value).magnitude
            var start = 20
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
                rest /= 10
            } while rest > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            out.write(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// A finite double as JSON: integral values without a fraction, others in Swift's shortest
    /// round-tripping form.
    package static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// `text` as a JSON string literal.
    package static func quote(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeString(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON array of items written already.
    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
}

/// Builds one JSON object's text, members in the order added, as UTF-8 bytes (`bytes`: the
/// object so far, without its closing brace).
struct JSONObjectText {
    private(set) var bytes: [UInt8] = [0x7B]

    private mutating func key(_ key: String) {
        if bytes.count > 1 { bytes.append(0x2C) }
        JSONWriter.writeString(key, into: &bytes)
        bytes.append(0x3A)
    }

    mutating func string(_ key: String, _ value: String) {
        self.key(key)
        JSONWriter.writeString(value, into: &bytes)
    }

    mutating func raw(_ key: String, _ json: String) {
        self.key(key)
        bytes.append(contentsOf: json.utf8)
    }

    /// An array whose elements `write` appends, separated by commas.
    mutating func rawArray<Element>(_ key: String, _ elements: [Element], _ write: (Element, inout [UInt8]) -> Void) {
        self.key(key)
        bytes.append(0x5B)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            write(element, &bytes)
        }
        bytes.append(0x5D)
    }

    /// An array whose elements are written already, separated by commas.
    mutating func rawArray(_ key: String, written elements: [UInt8]) {
        self.key(key)
        bytes.append(0x5B)
        bytes.append(contentsOf: elements)
        bytes.append(0x5D)
    }

    var text: String { String(decoding: bytes + [0x7D], as: UTF8.self) }
}
