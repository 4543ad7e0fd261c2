/// Records gathered for one `Log.append`: they become one frame, appended all or nothing.
///
/// The batch keeps the frame's raw payload as it is built (each record as a LEB128 length and
/// its bytes), so appending copies each record once and allocates nothing per record.
public struct LogBatch: Sendable {
    package private(set) var payload: [UInt8] = []
    /// How many records the batch holds.
    public private(set) var count = 0

    /// An empty batch.
    public init() {}

    /// An empty batch with room for `bytes` of records.
    public init(reservingCapacity bytes: Int) { payload.reserveCapacity(bytes) }

    /// `true` when the batch has no records.
    public var isEmpty: Bool { count == 0 }

    /// The raw payload size in bytes, length prefixes included.
    public var byteCount: Int { payload.count }

    /// Adds a record.
    public mutating func append(_ record: UnsafeRawBufferPointer) {
        appendLength(record.count)
        payload.append(contentsOf: record)
        count += 1
    }

    /// Adds a record.
    public mutating func append(_ record: some Collection<UInt8>) {
        appendLength(record.count)
        payload.append(contentsOf: record)
        count += 1
    }

    /// Removes every record, keeping the capacity.
    public mutating func removeAll() {
        payload.removeAll(keepingCapacity: true)
        count = 0
    }

    private mutating func appendLength(_ length: Int) {
        var value = UInt64(length)
        while value >= 0x80 {
            payload.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        payload.append(UInt8(value))
    }
}
