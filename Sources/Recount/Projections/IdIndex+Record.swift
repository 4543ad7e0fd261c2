extension IdIndex {
    /// What the index holds for one id number: a live sample, a tombstone, or nothing yet.
    struct Record: Sendable {
        enum State: UInt8, Sendable {
            /// The id was looked up for an upsert that kept nothing: as if absent.
            case empty
            case live
            case deleted
        }

        var state: State = .empty
        var metric: Metric = .steps
        var stage: SleepStage?
        /// Which optional fields are present: 1 value, 2 original value, 4 lastModified,
        /// 8 sync version, 16 workout distance, 32 workout energy, 64 a tombstone's
        /// `reconciled` (flags and raw words keep a record at 112 bytes, not 160; the index
        /// stores it in 80, `RecordStore`).
        fileprivate var present: UInt8 = 0
        /// A workout's activity as written: its code + 1 (0: none written).
        fileprivate var activityCode: UInt8 = 0
        var startOffset: Int32 = 0
        var endOffset: Int32 = 0
        /// Interned strings as id + 1 (0: none).
        var zone: UInt32 = 0
        var syncIdentifier: UInt32 = 0
        var unitSymbol: UInt32 = 0
        var source = SourceID(0)
        var startMillis: Int64 = 0
        var endMillis: Int64 = 0
        var position: UInt64 = 0
        var receivedAt: Int64 = 0
        fileprivate var valueBits: UInt64 = 0
        fileprivate var originalValueBits: UInt64 = 0
        fileprivate var lastModifiedMillis: Int64 = 0
        fileprivate var syncVersionNumber: Int64 = 0
        fileprivate var distanceBits: UInt64 = 0
        fileprivate var energyBits: UInt64 = 0

        init(state: State = .empty, metric: Metric = .steps, stage: SleepStage? = nil) {
            self.state = state
            self.metric = metric
            self.stage = stage
        }

        /// Every field at once, for `RecordStore` to rebuild a record from its row and details.
        fileprivate init(
            state: State, metric: Metric, stage: SleepStage?, present: UInt8, activityCode: UInt8,
            startOffset: Int32, endOffset: Int32, zone: UInt32, syncIdentifier: UInt32, unitSymbol: UInt32,
            source: SourceID, startMillis: Int64, endMillis: Int64, position: UInt64, receivedAt: Int64,
            valueBits: UInt64, originalValueBits: UInt64, lastModifiedMillis: Int64, syncVersionNumber: Int64,
            distanceBits: UInt64, energyBits: UInt64
        ) {
            (self.state, self.metric, self.stage, self.present, self.activityCode) =
                (state, metric, stage, present, activityCode)
            (self.startOffset, self.endOffset, self.zone, self.syncIdentifier, self.unitSymbol, self.source) =
                (startOffset, endOffset, zone, syncIdentifier, unitSymbol, source)
            (self.startMillis, self.endMillis, self.position, self.receivedAt) =
                (startMillis, endMillis, position, receivedAt)
            (self.valueBits, self.originalValueBits, self.lastModifiedMillis, self.syncVersionNumber) =
                (valueBits, originalValueBits, lastModifiedMillis, syncVersionNumber)
            (self.distanceBits, self.energyBits) = (distanceBits, energyBits)
        }

        var value: Double? {
            get { present & 1 != 0 ? Double(bitPattern: valueBits) : nil }
            set { (valueBits, present) = Self.store(newValue?.bitPattern, bit: 1, present) }
        }
        var originalValue: Double? {
            get { present & 2 != 0 ? Double(bitPattern: originalValueBits) : nil }
            set { (originalValueBits, present) = Self.store(newValue?.bitPattern, bit: 2, present) }
        }
        var lastModified: Int64? {
            get { present & 4 != 0 ? lastModifiedMillis : nil }
            set { (lastModifiedMillis, present) = Self.store(newValue, bit: 4, present) }
        }
        var syncVersion: Int64? {
            get { present & 8 != 0 ? syncVersionNumber : nil }
            set { (syncVersionNumber, present) = Self.store(newValue, bit: 8, present) }
        }

        /// What a reconcile's deletion leaves: the reconcile's `receivedAt`, the time of the
        /// version it deleted (its `lastModified`, else its `receivedAt`), and that version's
        /// metric, start and receipt, which tell whether a reconcile received earlier would
        /// have deleted it first.
        struct Reconciled: Equatable {
            var at: Int64
            var deletedVersion: Int64
            var metric: Metric
            var deletedStart: Int64
            var deletedReceivedAt: Int64
            /// The deleted version's content key (`Projections.contentKey`).
            var deletedContent: UInt64
        }

        /// For a tombstone a reconcile left (kept in `receivedAt`, `lastModifiedMillis`,
        /// `metric`, `startMillis`, the deleted version's receipt in `endMillis` and its content
        /// key in `valueBits`): a write received at or after the reconcile, at least as new as
        /// the version it deleted, brings the id back. `nil` for a tombstone for ever.
        var reconciled: Reconciled? {
            get {
                guard present & 64 != 0 else { return nil }
                return Reconciled(
                    at: receivedAt, deletedVersion: lastModifiedMillis, metric: metric, deletedStart: startMillis,
                    deletedReceivedAt: endMillis, deletedContent: valueBits)
            }
            set {
                (receivedAt, present) = Self.store(newValue?.at, bit: 64, present)
                lastModifiedMillis = newValue?.deletedVersion ?? 0
                metric = newValue?.metric ?? .steps
                startMillis = newValue?.deletedStart ?? 0
                endMillis = newValue?.deletedReceivedAt ?? 0
                valueBits = newValue?.deletedContent ?? 0
            }
        }

        /// A tombstone: for ever, or, `reconciled`, a reconcile's.
        static func tombstone(_ reconciled: Reconciled?) -> Record {
            var tombstone = Record(state: .deleted)
            tombstone.reconciled = reconciled
            return tombstone
        }

        /// A workout's activity as written (`nil`: none, which counts as `other`).
        var activity: WorkoutActivity? {
            get { activityCode == 0 ? nil : WorkoutActivity(rawValue: activityCode - 1) }
            set { activityCode = newValue.map { $0.rawValue + 1 } ?? 0 }
        }
        /// A workout's distance total, in m.
        var distance: Double? {
            get { present & 16 != 0 ? Double(bitPattern: distanceBits) : nil }
            set { (distanceBits, present) = Self.store(newValue?.bitPattern, bit: 16, present) }
        }
        /// A workout's energy total, in kcal.
        var energy: Double? {
            get { present & 32 != 0 ? Double(bitPattern: energyBits) : nil }
            set { (energyBits, present) = Self.store(newValue?.bitPattern, bit: 32, present) }
        }

        private static func store<T: FixedWidthInteger>(_ value: T?, bit: UInt8, _ present: UInt8) -> (T, UInt8) {
            guard let value else { return (0, present & ~bit) }
            return (value, present | bit)
        }

        /// Whether two live records hold the same content: everything but position and
        /// receivedAt (doubles by bit pattern; interning gives equal strings equal ids).
        func hasSameContent(as other: Record) -> Bool {
            metric == other.metric && startMillis == other.startMillis && startOffset == other.startOffset
                && endMillis == other.endMillis && endOffset == other.endOffset && zone == other.zone
                && value?.bitPattern == other.value?.bitPattern && stage == other.stage && source == other.source
                && lastModified == other.lastModified && syncIdentifier == other.syncIdentifier
                && syncVersion == other.syncVersion && unitSymbol == other.unitSymbol
                && originalValue?.bitPattern == other.originalValue?.bitPattern && activityCode == other.activityCode
                && distance?.bitPattern == other.distance?.bitPattern && energy?.bitPattern == other.energy?.bitPattern
        }
    }

    /// The records by id number, each stored as an 80-byte `Row` of the fields every sample
    /// has, and, for the few that need them, `Details` in a second array: a sync identity, a
    /// value written in another unit than the canonical one, a workout's activity and totals.
    /// A row keeps its details' slot once given one, for the number's later records. Reading
    /// a record joins the two; the index's hundreds of megabytes shrink by the 32 bytes a
    /// record of plain samples does not use.
    struct RecordStore: Sendable {
        private struct Row {
            var state: Record.State
            var metric: Metric
            var stage: SleepStage?
            var present: UInt8
            /// Whether the original value differs from the value and so is in the details.
            var originalInDetails: Bool
            var startOffset: Int32
            var endOffset: Int32
            var zone: UInt32
            var unitSymbol: UInt32
            var source: SourceID
            /// The slot of the number's details + 1 (0: none yet).
            var details: UInt32
            var startMillis: Int64
            var endMillis: Int64
            var position: UInt64
            var receivedAt: Int64
            var valueBits: UInt64
            var lastModifiedMillis: Int64
        }

        private struct Details {
            var originalValueBits: UInt64 = 0
            var syncVersionNumber: Int64 = 0
            var distanceBits: UInt64 = 0
            var energyBits: UInt64 = 0
            var syncIdentifier: UInt32 = 0
            var activityCode: UInt8 = 0
        }

        private var rows = GrowableArray<Row>()
        private var details = GrowableArray<Details>()

        var count: Int { rows.count }
        var indices: Range<Int> { 0..<rows.count }

        /// The state of record `number`, without reading the rest.
        func state(_ number: Int) -> Record.State { rows[number].state }

        subscript(number: Int) -> Record {
            @inline(__always) get {
                let row = rows[number]
                let more = row.details == 0 ? Details() : details[Int(row.details) - 1]
                return Record(
                    state: row.state, metric: row.metric, stage: row.stage, present: row.present,
                    activityCode: more.activityCode, startOffset: row.startOffset, endOffset: row.endOffset,
                    zone: row.zone, syncIdentifier: more.syncIdentifier, unitSymbol: row.unitSymbol, source: row.source,
                    startMillis: row.startMillis, endMillis: row.endMillis, position: row.position,
                    receivedAt: row.receivedAt, valueBits: row.valueBits,
                    originalValueBits: row.originalInDetails
                        ? more.originalValueBits : row.present & 2 != 0 ? row.valueBits : 0,
                    lastModifiedMillis: row.lastModifiedMillis, syncVersionNumber: more.syncVersionNumber,
                    distanceBits: more.distanceBits, energyBits: more.energyBits)
            }
            set {
                var row = Self.row(newValue, details: rows[number].details)
                store(newValue, in: &row)
                rows[number] = row
            }
        }

        @inline(__always)
        mutating func append(_ record: Record) {
            var row = Self.row(record, details: 0)
            store(record, in: &row)
            rows.append(row)
        }

        mutating func reserveCapacity(_ capacity: Int) { rows.reserveCapacity(capacity) }

        /// A record's row, its details left to `store`.
        @inline(__always)
        private static func row(_ record: Record, details: UInt32) -> Row {
            Row(
                state: record.state, metric: record.metric, stage: record.stage,
                present: record.present,
                originalInDetails: record.originalValue.map { $0.bitPattern != record.valueBits } ?? false,
                startOffset: record.startOffset, endOffset: record.endOffset, zone: record.zone,
                unitSymbol: record.unitSymbol, source: record.source, details: details,
                startMillis: record.startMillis, endMillis: record.endMillis, position: record.position,
                receivedAt: record.receivedAt, valueBits: record.valueBits,
                lastModifiedMillis: record.lastModifiedMillis)
        }

        /// Writes the record's details into the row's slot, giving it one when it has none and
        /// the record has details (a slot left holds zeros, which read as none).
        @inline(__always)
        private mutating func store(_ record: Record, in row: inout Row) {
            let hasDetails =
                row.originalInDetails || record.syncVersion != nil || record.distance != nil || record.energy != nil
                || record.syncIdentifier != 0 || record.activityCode != 0
            guard hasDetails || row.details != 0 else { return }
            let more = Details(
                originalValueBits: row.originalInDetails ? record.originalValueBits : 0,
                syncVersionNumber: record.syncVersionNumber, distanceBits: record.distanceBits,
                energyBits: record.energyBits, syncIdentifier: record.syncIdentifier,
                activityCode: record.activityCode)
            if row.details != 0 {
                details[Int(row.details) - 1] = more
            } else {
                details.append(more)
                row.details = UInt32(details.count)
            }
        }
    }
}

extension IdIndex.Record.Reconciled {
    /// What a reconcile received at `at` leaves of the version `deleted`, received at `received`,
    /// whose content key is `content`.
    init(at: Int64, deleting deleted: IdIndex.Record, received: Int64, content: UInt64) {
        self.init(
            at: at, deletedVersion: deleted.lastModified ?? received, metric: deleted.metric,
            deletedStart: deleted.startMillis, deletedReceivedAt: received, deletedContent: content)
    }
}

extension IdIndex.Record {
    /// The bytes `write(_:)` takes: every field of a fixed size, so a checkpoint stores the
    /// records by column.
    static let checkpointSize = 109

    /// Writes the record, fields in declaration order (a tombstone or empty record as its state
    /// and zeros).
    func write(_ out: inout CanonicalBytes.ColumnWriter) {
        out.put(state.rawValue)
        out.put(metric.rawValue)
        out.put(stage.map { $0.rawValue + 1 } ?? 0)
        out.put(present)
        out.put(activityCode)
        for field in [startOffset, endOffset] { out.put(field) }
        for field in [zone, syncIdentifier, unitSymbol, source.rawValue] { out.put(field) }
        for field in [startMillis, endMillis] { out.put(field) }
        for field in [position, UInt64(bitPattern: receivedAt), valueBits, originalValueBits] { out.put(field) }
        for field in [lastModifiedMillis, syncVersionNumber] { out.put(field) }
        for field in [distanceBits, energyBits] { out.put(field) }
    }

    /// Reads what `write(_:)` wrote; `nil` for codes no record has.
    init?(reading input: inout CheckpointReader.ColumnReader) {
        guard let state = State(rawValue: input.take()), let metric = Metric(rawValue: input.take()) else {
            return nil
        }
        let stageCode: UInt8 = input.take()
        let stage = stageCode == 0 ? nil : SleepStage(rawValue: stageCode - 1)
        guard stageCode == 0 || stage != nil else { return nil }
        self.init(state: state, metric: metric, stage: stage)
        present = input.take()
        activityCode = input.take()
        guard present & ~0x7F == 0, activityCode == 0 || WorkoutActivity(rawValue: activityCode - 1) != nil else {
            return nil
        }
        startOffset = input.take()
        endOffset = input.take()
        zone = input.take()
        syncIdentifier = input.take()
        unitSymbol = input.take()
        source = SourceID(input.take())
        startMillis = input.take()
        endMillis = input.take()
        position = input.take()
        receivedAt = input.take()
        valueBits = input.take()
        originalValueBits = input.take()
        lastModifiedMillis = input.take()
        syncVersionNumber = input.take()
        distanceBits = input.take()
        energyBits = input.take()
    }
}
