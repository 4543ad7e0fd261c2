/// The committed extent of a log at one moment: its segments and the position after its last record.
///
/// A snapshot is a value: reading through it sees exactly these records, however much is
/// appended meanwhile.
public struct LogSnapshot: Sendable, Equatable {
    /// The log directory.
    public let directory: String
    /// The segments in position order, each with its committed length.
    package var segments: [Segment]
    /// The position the next appended record will get.
    public var endPosition: UInt64

    /// The position of the first record in the log.
    public var startPosition: UInt64 { segments.first?.firstPosition ?? Log.firstPosition }

    /// The number of records in the snapshot (positions in a gap that `repair` left hold none).
    public var recordCount: UInt64 {
        segments.reduce(0) { $0 + ($1.endPosition - $1.firstPosition) }
    }
}

/// A frame that a crash left half written at the end of the last segment, which recovery cuts off.
public struct TornTail: Sendable, Equatable, CustomStringConvertible {
    /// The segment file.
    public var segment: String
    /// The byte offset where the whole frames end.
    public var offset: Int64
    /// The position the lost frame would have started with.
    public var position: UInt64
    /// How many bytes followed the whole frames.
    public var bytes: Int64
    /// Why those bytes are not a frame.
    public var reason: String
    /// The file the cut bytes were saved to before the segment was cut (trailing zeros left
    /// out), so that a frame that was whole but damaged can still be examined; `nil` for a
    /// reader, which cuts nothing.
    public var savedTo: String? = nil

    public var description: String {
        "\(bytes) bytes at \(segment) offset \(offset) (from position \(position)): \(reason)"
            + (savedTo.map { "; saved to \($0)" } ?? "")
    }
}
