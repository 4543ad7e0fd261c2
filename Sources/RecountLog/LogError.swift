/// An error from the log: what went wrong, and where on disk.
public struct LogError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A committed frame failed its checks (or an uncommitted one shows no sign of a torn
        /// write): the log is damaged; `Log.repair` cuts it back to the last good frame.
        public static let corruptFrame = Code("corruptFrame")
        /// A segment file is missing, has the wrong length, is not listed, or is not named as
        /// the log names them.
        public static let corruptSegment = Code("corruptSegment")
        /// The manifest or the commit record is missing, damaged, or disagrees with the other.
        public static let corruptManifest = Code("corruptManifest")
        /// A write was asked of something opened to read only.
        public static let readOnly = Code("readOnly")
        /// There is no log at the path (a read found no directory, manifest or segment).
        public static let noLog = Code("noLog")
        /// Another writer holds the log directory's lock.
        public static let locked = Code("locked")
        /// A read or write failed in the operating system.
        public static let io = Code("io")
        /// An earlier sync failed; the log refuses appends until it is reopened.
        public static let failStopped = Code("failStopped")
        /// The log was closed.
        public static let closed = Code("closed")
        /// A batch or record is larger than the log accepts.
        public static let tooLarge = Code("tooLarge")
        /// A position beyond the end of the log was asked for.
        public static let positionOutOfRange = Code("positionOutOfRange")
        /// The path is not a log directory.
        public static let notADirectory = Code("notADirectory")
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String
    /// The file involved, when there is one.
    public var path: String?
    /// The byte offset in `path`, when it matters.
    public var offset: Int64?
    /// The operating system's `errno`, for `.io`.
    public var errno: Int32?
    /// For a failed sync: the positions written since the last commit, which the log may or
    /// may not keep (the next writer to open it keeps the frames that reached the disk whole).
    public var unsynced: Range<UInt64>?

    package init(
        _ code: Code, _ message: String, path: String? = nil, offset: Int64? = nil,
        errno: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.errno = errno
    }

    /// A damaged frame: `.corruptFrame`, the reason prefixed with "log corrupted: ".
    package static func corruption(_ reason: String, path: String, offset: Int64) -> LogError {
        LogError(.corruptFrame, "log corrupted: \(reason)", path: path, offset: offset)
    }

    /// Whether this error reports damage to the log (exit 4 for a check), as opposed to a
    /// failure to reach it.
    public var isDamage: Bool { [.corruptFrame, .corruptSegment, .corruptManifest].contains(code) }

    public var description: String {
        var text = message
        if let path { text += " (\(path)" + (offset.map { " at byte \($0)" } ?? "") + ")" }
        return text
    }
}

/// Runs `body`, passing a `LogError` through and wrapping anything else as `.io` on `path`.
@discardableResult
package func withLogErrors<T>(path: String, _ body: () throws -> T) throws(LogError) -> T {
    do { return try body() } catch let error as LogError { throw error } catch {
        throw LogError(.io, "\(error)", path: path)
    }
}
