import Foundation
import Recount

/// A file the generators write in 1 MiB chunks, counting its bytes.
final class GeneratedFile {
    /// The open file.
    private let handle: FileHandle
    /// Text not written yet.
    private var pending = ""
    /// Bytes written so far.
    private var written = 0

    /// Creates the file (and its folders), empty.
    init(path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw CocoaError(.fileWriteNoPermission) }
        self.handle = handle
    }

    /// Bytes written or pending.
    var size: Int { written + pending.utf8.count }

    /// Appends text.
    func append(_ text: String) throws {
        pending += text
        if pending.utf8.count > 1 << 20 { try flush() }
    }

    /// Writes what is pending and closes the file.
    func close() throws {
        try flush()
        try handle.close()
    }

    /// Writes what is pending.
    private func flush() throws {
        written += pending.utf8.count
        try handle.write(contentsOf: Data(pending.utf8))
        pending.removeAll(keepingCapacity: true)
    }
}

/// Civil dates and times of the generators' timestamps, without Foundation's calendars (and so
/// without the machine's zone).
enum Civil {
    /// The fields of a time given as seconds since 1970-01-01T00:00 (UTC, or local wall-clock
    /// seconds for formats without an offset).
    struct Fields {
        var year: Int64
        var month: Int64
        var day: Int64
        var hour: Int64
        var minute: Int64
        var second: Int64

        /// `2024-01-31`.
        var date: String { String(format: "%04lld-%02lld-%02lld", year, month, day) }
        /// `13:05:00`.
        var time: String { String(format: "%02lld:%02lld:%02lld", hour, minute, second) }
        /// `01/31/24`: Fitbit's date.
        var fitbitDate: String { String(format: "%02lld/%02lld/%02lld", month, day, year % 100) }
    }

    /// The fields of a time.
    static func fields(_ seconds: Int64) -> Fields {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        let (year, month, day) = CivilDay.civilFromDays(days)
        return Fields(
            year: year, month: month, day: day, hour: second / 3600, minute: second / 60 % 60, second: second % 60)
    }
}
