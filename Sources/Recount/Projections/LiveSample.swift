/// A live sample as the projections keep it: times as milliseconds with their written offsets,
/// the value in the metric's canonical unit, origin and device as interned ids.
package struct LiveSample: Equatable, Sendable {
    /// The provider's id of the sample.
    package var id: SampleID
    package var metric: Metric
    package var startMillis: Int64
    /// The offset written on `start`, seconds east of UTC.
    package var startOffset: Int32
    /// The end (`startMillis` for an instantaneous sample).
    package var endMillis: Int64
    /// The offset written on the end (`startOffset` when it had none).
    package var endOffset: Int32
    /// The IANA zone that decides the civil date, when the sample named one.
    package var zone: String?
    /// The value in the metric's canonical unit (quantity metrics only).
    package var value: Double?
    /// The sleep stage (sleep only).
    package var stage: SleepStage?
    /// Who wrote it: the origin (app) and device, interned; the overlap merge ranks sources.
    package var source: SourceID
    /// The log position of the envelope that last wrote it.
    package var position: UInt64

    package init(
        id: SampleID, metric: Metric, startMillis: Int64, startOffset: Int32, endMillis: Int64, endOffset: Int32,
        zone: String? = nil, value: Double? = nil, stage: SleepStage? = nil, source: SourceID, position: UInt64
    ) {
        self.id = id
        self.metric = metric
        self.startMillis = startMillis
        self.startOffset = startOffset
        self.endMillis = endMillis
        self.endOffset = endOffset
        self.zone = zone
        self.value = value
        self.stage = stage
        self.source = source
        self.position = position
    }
}

/// An interned (origin, device) pair: the unit the overlap merge ranks.
package struct SourceID: Hashable, Comparable, Sendable, BitwiseCopyable {
    package var rawValue: UInt32
    package init(_ rawValue: UInt32) { self.rawValue = rawValue }
    package static func < (a: SourceID, b: SourceID) -> Bool { a.rawValue < b.rawValue }
}

/// A source's origin and device, as written.
package struct Source: Hashable, Sendable {
    /// The bundle id or package name of the app that wrote the samples.
    package var origin: String
    /// The device name or model, when given.
    package var device: String?

    package init(origin: String, device: String?) {
        self.origin = origin
        self.device = device
    }

    /// Whether this source's name orders before `other`'s: by origin, then device (none
    /// first), strings compared by their UTF-8 bytes.
    package func namePrecedes(_ other: Source) -> Bool {
        let origin = compareBytes(self.origin, other.origin)
        if origin != 0 { return origin < 0 }
        switch (device, other.device) {
        case (nil, .some): return true
        case (.some(let x), .some(let y)): return compareBytes(x, y) < 0
        case (.some, nil), (nil, nil): return false
        }
    }
}

/// Compares two strings by their UTF-8 bytes: negative, zero or positive.
private func compareBytes(_ a: String, _ b: String) -> Int {
    var x = a.utf8.makeIterator()
    var y = b.utf8.makeIterator()
    while true {
        switch (x.next(), y.next()) {
        case (nil, nil): return 0
        case (nil, .some): return -1
        case (.some, nil): return 1
        case (.some(let p), .some(let q)): if p != q { return p < q ? -1 : 1 }
        }
    }
}
