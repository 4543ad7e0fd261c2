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

    private static func string(user: String, receivedAt: Instant?, body: Envelope.Body) -> String {
        var out = JSONObjectText()
        out.string("kind", body.kind.name)
        out.string("user", user)
        if let receivedAt { out.string("receivedAt", receivedAt.rfc3339) }
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
                    item.raw("upsertion", Self.sample(upserted))
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
            out.raw("samples", array(samples.map(sample)))
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
        var out = JSONObjectText()
        out.string("id", sample.id.text)
        out.string("type", sample.type.name)
        out.string("start", sample.start.rfc3339)
        if let end = sample.end { out.string("end", end.rfc3339) }
        if let zone = sample.timeZone { out.string("timeZone", zone) }
        if let value = sample.value { out.raw("value", number(value)) }
        if let unit = sample.unit { out.string("unit", unit.symbol) }
        if let stage = sample.stage { out.string("stage", stage.name) }
        out.string("origin", sample.origin)
        if let device = sample.device { out.string("device", device) }
        if let syncIdentifier = sample.syncIdentifier { out.string("syncIdentifier", syncIdentifier) }
        if let syncVersion = sample.syncVersion { out.raw("syncVersion", String(syncVersion)) }
        if let lastModified = sample.lastModified { out.string("lastModified", lastModified.rfc3339) }
        return out.text
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

    private static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
}

/// Builds one JSON object's text, members in the order added.
struct JSONObjectText {
    private var members: [String] = []

    mutating func string(_ key: String, _ value: String) { raw(key, EnvelopeJSON.quote(value)) }
    mutating func raw(_ key: String, _ json: String) { members.append(EnvelopeJSON.quote(key) + ":" + json) }
    var text: String { "{" + members.joined(separator: ",") + "}" }
}
