internal import CArchive
import Foundation

/// An `InputStream` over one entry of a zip archive, decompressed as it is read, and
/// `forEachEntry` for archives of many small files: the only door to libarchive.
///
/// The archive is read front to back (from a file, or from any `InputStream` such as standard
/// input) and nothing is unpacked to disk; memory stays at libarchive's buffers however large the
/// entry. Creating the stream finds the entry, so a zip without it fails before anything is read.
/// A read error later (a truncated archive, a bad CRC) makes `read` return -1 and leaves
/// libarchive's message in `failure`.
final class ZipEntryStream: InputStream {
    /// Why an archive could not be read, or lacks the entry.
    struct Failure: Error, Equatable {
        /// Whether the archive was read but holds no entry the predicate accepted.
        var entryMissing: Bool
        /// libarchive's message, or the entries seen when `entryMissing`.
        var message: String
    }

    /// The archive handle; `nil` once freed.
    private var archive: OpaquePointer?
    /// The source the archive's bytes come from, when not a file (kept alive for the callbacks).
    private let source: Source?
    /// The path of the entry found.
    let entryPath: String
    /// libarchive's message after a failed read.
    private(set) var failure: String?
    /// Whether the entry's end was reached.
    private var reachedEnd = false

    /// Opens a zip file and finds its first entry whose path `accepts`.
    /// - Parameters:
    ///   - path: the zip file.
    ///   - accepts: picks the entry, given its path in the archive.
    /// - Throws: `Failure` when the file is not a readable zip or has no such entry.
    init(path: String, accepting accepts: (String) -> Bool) throws(Failure) {
        source = nil
        let archive = try Self.newArchive()
        entryPath = try Self.seek(archive, opened: archive_read_open_filename(archive, path, 1 << 16), accepts)
        self.archive = archive
        super.init(data: Data())
    }

    /// Reads a zip from a stream (standard input) and finds its first entry whose path `accepts`.
    /// - Parameters:
    ///   - stream: the archive's bytes, read front to back; opened here.
    ///   - accepts: picks the entry, given its path in the archive.
    /// - Throws: `Failure` when the bytes are not a readable zip or have no such entry.
    init(reading stream: InputStream, accepting accepts: (String) -> Bool) throws(Failure) {
        let source = Source(stream)
        self.source = source
        let archive = try Self.newArchive()
        stream.open()
        let opened = archive_read_open(
            archive, Unmanaged.passUnretained(source).toOpaque(), nil,
            { _, context, buffer in
                guard let context, let buffer else { return -1 }
                return Unmanaged<Source>.fromOpaque(context).takeUnretainedValue().next(buffer)
            }, nil)
        entryPath = try Self.seek(archive, opened: opened, accepts)
        self.archive = archive
        super.init(data: Data())
    }

    deinit {
        if let archive { archive_read_free(archive) }
    }

    override func open() {}

    override func close() {}

    override var hasBytesAvailable: Bool { !reachedEnd && failure == nil }

    override var streamError: (any Error)? {
        failure.map { Failure(entryMissing: false, message: $0) }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard let archive, failure == nil else { return -1 }
        if reachedEnd { return 0 }
        let count = archive_read_data(archive, buffer, len)
        if count < 0 {
            failure = Self.message(archive)
            return -1
        }
        if count == 0 { reachedEnd = true }
        return count
    }

    /// The paths of the entries `accepts` picks, in archive order, reading only the headers (for
    /// exports of many small files, such as a Google Takeout).
    /// - Parameters:
    ///   - path: the zip file.
    ///   - accepts: picks the entries, given their paths in the archive.
    /// - Throws: `Failure` when the file is not a readable zip (`entryMissing` is never set: an
    ///   archive without accepted entries gives an empty array).
    static func entryPaths(path: String, accepting accepts: (String) -> Bool) throws(Failure) -> [String] {
        var paths: [String] = []
        do {
            try walkEntries(path: path, accepting: accepts) { entryPath, _ in paths.append(entryPath) }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(entryMissing: false, message: "\(error)")
        }
        return paths
    }

    /// Reads the entries `accepts` picks one at a time, in archive order, handing each to `body`
    /// whole; an entry's bytes are released once `body` returns, so memory stays at the largest
    /// entry however large the archive.
    /// - Parameters:
    ///   - path: the zip file.
    ///   - accepts: picks the entries, given their paths in the archive.
    ///   - entryLimit: the most bytes an entry may inflate to: a zip of a few megabytes can
    ///     inflate to gigabytes, which would be held whole.
    ///   - body: receives each entry's path and contents.
    /// - Throws: `Failure` when the file is not a readable zip or an entry inflates past
    ///   `entryLimit`, or what `body` threw.
    static func forEachEntry(
        path: String, accepting accepts: (String) -> Bool, entryLimit: Int, _ body: (String, Data) throws -> Void
    ) throws {
        var block = [UInt8](repeating: 0, count: 1 << 16)
        try walkEntries(path: path, accepting: accepts) { entryPath, archive in
            var data = Data()
            while true {
                let count = block.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                if count == 0 { break }
                guard count > 0 else {
                    throw Failure(entryMissing: false, message: "\(entryPath): \(message(archive))")
                }
                guard data.count + count <= entryLimit else {
                    throw Failure(
                        entryMissing: false,
                        message: "\(entryPath) inflates to more than \(entryLimit >> 20) MiB, more than an import holds"
                    )
                }
                data.append(contentsOf: block[0..<count])
            }
            try body(entryPath, data)
        }
    }

    /// Reads the archive's headers front to back, handing each accepted entry's path to `visit`
    /// with the archive positioned at its data (left unread, it is skipped).
    private static func walkEntries(
        path: String, accepting accepts: (String) -> Bool, _ visit: (String, OpaquePointer) throws -> Void
    ) throws {
        let archive = try newArchive()
        defer { archive_read_free(archive) }
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            throw Failure(entryMissing: false, message: message(archive))
        }
        var entry: OpaquePointer?
        while true {
            let status = nextHeader(archive, &entry)
            if status == ARCHIVE_EOF { return }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw Failure(entryMissing: false, message: message(archive))
            }
            let name = entryPath(entry)
            if accepts(name) { try visit(name, archive) }
        }
    }

    /// The locale libarchive converts entry names into while it reads a header: names the zip
    /// marks as UTF-8 (as Python, Java, 7-Zip, Windows and Google Takeout write non-ASCII names)
    /// are converted to the locale's character set, and in the C locale a process runs in until it
    /// calls `setlocale` that failed: `Toutes les données/…` read as a nameless entry and a French
    /// Takeout was "not an export" (an attack run). Made once, never freed, only read.
    private nonisolated(unsafe) static let utf8Locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// `archive_read_next_header` with this thread in the UTF-8 locale, so that entry names read
    /// as UTF-8 (an archive keeps the character set it first converted names to).
    private static func nextHeader(_ archive: OpaquePointer, _ entry: inout OpaquePointer?) -> Int32 {
        guard let utf8Locale else { return archive_read_next_header(archive, &entry) }
        let previous = uselocale(utf8Locale)
        defer { uselocale(previous) }
        return archive_read_next_header(archive, &entry)
    }

    /// An entry's path as the header named it.
    private static func entryPath(_ entry: OpaquePointer) -> String {
        archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
    }

    /// A new archive handle reading zip only.
    private static func newArchive() throws(Failure) -> OpaquePointer {
        guard let archive = archive_read_new() else {
            throw Failure(entryMissing: false, message: "libarchive could not allocate a reader")
        }
        archive_read_support_format_zip(archive)
        return archive
    }

    /// Advances a just-opened archive to the first entry whose path `accepts`; frees the archive
    /// when it did not open or has no such entry.
    /// - Parameters:
    ///   - archive: the archive.
    ///   - opened: what opening it returned.
    ///   - accepts: picks the entry.
    /// - Returns: the entry's path.
    private static func seek(
        _ archive: OpaquePointer, opened: Int32, _ accepts: (String) -> Bool
    ) throws(Failure) -> String {
        guard opened == ARCHIVE_OK else {
            let message = message(archive)
            archive_read_free(archive)
            throw Failure(entryMissing: false, message: message)
        }
        var seen: [String] = []
        var entry: OpaquePointer?
        while true {
            let status = nextHeader(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                let message = message(archive)
                archive_read_free(archive)
                throw Failure(entryMissing: false, message: message)
            }
            let path = entryPath(entry)
            if accepts(path) { return path }
            seen.append(path)
        }
        archive_read_free(archive)
        let listed = seen.prefix(5).joined(separator: ", ") + (seen.count > 5 ? ", …" : "")
        throw Failure(entryMissing: true, message: seen.isEmpty ? "the zip is empty" : "entries: " + listed)
    }

    /// libarchive's last error message.
    private static func message(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unreadable zip"
    }

    /// Hands libarchive the bytes of a stream, one block at a time.
    private final class Source {
        /// Bytes per block.
        private static let blockSize = 1 << 16
        /// The stream.
        private let stream: InputStream
        /// The block the last read went into (libarchive reads it until the next call).
        private let block = UnsafeMutablePointer<UInt8>.allocate(capacity: blockSize)

        init(_ stream: InputStream) {
            self.stream = stream
        }

        deinit {
            block.deallocate()
        }

        /// Reads the next block: its length (0 at the end, -1 on an error) and its address.
        func next(_ address: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
            address.pointee = UnsafeRawPointer(block)
            let count = stream.read(block, maxLength: Self.blockSize)
            return count < 0 ? -1 : count
        }
    }
}
