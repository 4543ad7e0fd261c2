import TestSupport

/// The 64-byte record a store keeps for a live sample (the fields a recompute and a query need).
struct SampleRecord {
    var start: Int64 = 0
    var end: Int64 = 0
    var value: Double = 0
    /// The log position that wrote the sample; summed as the read check.
    var version: UInt64 = 0
    var logOffset: UInt64 = 0
    var day: UInt32 = 0
    var metric: UInt32 = 0
    var source: UInt32 = 0
    var offsetSeconds: Int32 = 0
    var flags: UInt32 = 0
    var unit: UInt32 = 0

    static let size = MemoryLayout<SampleRecord>.size
}

/// The key of the id index: (user, provider, sample id), big-endian so byte order is key order.
struct IDKey {
    var user: UInt32
    var provider: UInt32
    var idHigh: UInt64
    var idLow: UInt64

    static let size = MemoryLayout<IDKey>.size
}

/// A (user, metric, day) cell, big-endian so byte order is key order.
struct CellKey: Hashable {
    var user: UInt32
    var metric: UInt32
    var day: UInt32

    init(user: Int, metric: Int, day: Int) {
        self.user = UInt32(user).bigEndian
        self.metric = UInt32(metric).bigEndian
        self.day = UInt32(day).bigEndian
    }

    static let size = MemoryLayout<CellKey>.size
}

/// A key of the cell index: the cell, then the sample's provider and id.
struct CellMemberKey {
    var cell: CellKey
    var provider: UInt32
    var idHigh: UInt64
    var idLow: UInt64

    static let size = MemoryLayout<CellMemberKey>.size
}

/// One delivered sample: where it belongs and what a store keeps of it.
struct BakeoffSample {
    var key: IDKey
    var cell: CellKey
    var record: SampleRecord

    /// The cell index key of this sample.
    var memberKey: CellMemberKey {
        CellMemberKey(cell: cell, provider: key.provider, idHigh: key.idHigh, idLow: key.idLow)
    }
}

/// What reading cells found: how many samples, and the wrapping sum of their versions (a check
/// that every store returns the same records, in whatever order).
struct ReadTotals: Equatable {
    var samples = 0
    var versionSum: UInt64 = 0

    mutating func add(_ record: SampleRecord) {
        samples += 1
        versionSum &+= record.version
    }
}

/// The workload: `samples` samples spread evenly over `users` × `days` user-days (about
/// 11 each), delivered day by day and user by user. The `k`-th sample of a user-day is steps
/// (`k` < 6), heart rate (`k` < 10) or sleep; its provider alternates; its id is 16 random
/// bytes. Every sample is a pure function of its index, so nothing is held in memory.
struct Workload {
    let users: Int
    let days: Int
    let samples: Int
    static let metrics = 3
    static let firstDay = 20_179

    var userDays: Int { users * days }
    var cells: Int { userDays * Self.metrics }

    /// The index of the first sample of user-day `userDay` (day-major).
    func firstSample(ofUserDay userDay: Int) -> Int { userDay * samples / userDays }

    /// The samples of user-day `userDay`.
    func count(ofUserDay userDay: Int) -> Int { firstSample(ofUserDay: userDay + 1) - firstSample(ofUserDay: userDay) }

    /// The metric of the `k`-th sample of a user-day.
    static func metric(_ k: Int) -> Int { k < 6 ? 0 : k < 10 ? 1 : 2 }

    /// The samples of cell `cell` (numbered user-day × 3 + metric).
    func count(ofCell cell: Int) -> Int {
        (0..<count(ofUserDay: cell / Self.metrics)).count { Self.metric($0) == cell % Self.metrics }
    }

    /// The cell key of cell `cell` (numbered as in `count(ofCell:)`).
    func cellKey(_ cell: Int) -> CellKey {
        let userDay = cell / Self.metrics
        return CellKey(user: userDay % users, metric: cell % Self.metrics, day: Self.firstDay + userDay / users)
    }

    /// Sample `index`.
    func sample(_ index: Int) -> BakeoffSample {
        // The largest user-day whose first sample is at or before `index`.
        let userDay = ((index + 1) * userDays + samples - 1) / samples - 1
        let k = index - firstSample(ofUserDay: userDay)
        let (user, day) = (userDay % users, Self.firstDay + userDay / users)
        let metric = Self.metric(k)
        let provider = 1 + k % 2
        var random = SplitMix64(seed: 0x5EED_0008 &+ UInt64(index))
        let key = IDKey(
            user: UInt32(user).bigEndian, provider: UInt32(provider).bigEndian, idHigh: random.next(),
            idLow: random.next())
        let draw = random.next()
        let start = Int64(day) * 86_400_000 + Int64(k) * 3_600_000 + Int64(draw % 3_600) * 1_000
        let record = SampleRecord(
            start: start, end: start + 60_000 * Int64(1 + (draw >> 12) % 60), value: Double((draw >> 20) % 1_000),
            version: UInt64(index + 1), logOffset: UInt64(index) * 320, day: UInt32(day), metric: UInt32(metric),
            source: UInt32(provider * 16 + k % 3), offsetSeconds: -25_200, flags: 0, unit: UInt32(metric))
        return BakeoffSample(key: key, cell: CellKey(user: user, metric: metric, day: day), record: record)
    }
}
