/// How a log writes: segment size, index density and durability.
public struct LogConfiguration: Sendable {
    /// When appended data reaches the disk.
    public enum Durability: Sendable, Equatable {
        /// Every `append` fsyncs its frame before returning: what `append` returned is durable.
        case everyBatch
        /// `append` fsyncs once `maxBytes` are unsynced or the oldest unsynced batch is older
        /// than `maxDelay`, and a timer syncs every `maxDelay` when appends stop. When `append`
        /// returns, every batch before the last sync is durable; at most `maxBytes` of batches,
        /// none older than about twice `maxDelay`, are not. `sync()` and `close()` make
        /// everything durable.
        case groupCommit(maxBytes: Int, maxDelay: Duration)
        /// Nothing is fsynced until `sync()` or `close()`; for benchmarks and bulk loads.
        case none
    }

    /// A segment is rolled before a frame would take it past this many bytes (a frame larger
    /// than this gets a segment of its own).
    public var segmentBytes: Int64 = 64 << 20
    /// Bytes of segment between sparse index entries.
    public var indexInterval: Int64 = 64 << 10
    /// When appended data reaches the disk.
    public var durability: Durability = .everyBatch
    /// The file layer; tests inject faults here.
    package var fileSystem: any LogFileSystem = PosixFileSystem()

    /// The defaults: 64 MiB segments, an index entry per 64 KiB, an fsync per batch.
    public init() {}

    /// A configuration with the given values.
    public init(segmentBytes: Int64 = 64 << 20, indexInterval: Int64 = 64 << 10, durability: Durability = .everyBatch) {
        self.segmentBytes = segmentBytes
        self.indexInterval = indexInterval
        self.durability = durability
    }
}
