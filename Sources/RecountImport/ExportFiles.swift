import Foundation

/// The files of an export that is a folder of many small files (a Google Takeout): the unpacked
/// folder, or the zip Takeout hands out, read in place.
///
/// Opening lists the files an importer accepts; `forEach` then reads them one at a time, each
/// released before the next is read, so memory stays at the largest file however large the
/// export. Paths are relative to the folder (or the zip's root), `/`-separated, and files are
/// visited sorted by path, so a folder and its zip give the same files in the same order whatever
/// the file system or the archive's order. macOS's `__MACOSX/` shadow entries and `._` files are
/// never accepted.
struct ExportFiles {
    /// The most bytes of a zip's files that wait in memory for their turn in path order: 1 GiB.
    static let waitingLimit = 1 << 30
    /// The most bytes one file of a zip may inflate to: 1 GiB. An export's files are megabytes
    /// (a Google Fit stream of years, some hundreds), and a zip of 2 MB can inflate to 2 GiB,
    /// which would be held whole.
    static let zipFileLimit = 1 << 30

    /// One file of the export.
    struct File {
        /// The path inside the export, such as `Takeout/Fitbit/Global Export Data/steps-2023-10-09.json`.
        var path: String
        /// The contents.
        var data: Data

        /// The last path component.
        var name: Substring { Self.name(of: path) }

        /// The last path component of a path.
        static func name(of path: String) -> Substring {
            path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...]
        }
    }

    /// Where the files are.
    private enum Location {
        /// An unpacked folder.
        case directory
        /// A zip.
        case zip
    }

    /// What errors call the export: the path given.
    let name: String
    /// The accepted files' paths, sorted.
    let paths: [String]
    /// Whether `name` is a folder or a zip.
    private let location: Location

    /// Opens a folder or a zip and lists the files `accepts` picks.
    /// - Parameters:
    ///   - path: a directory, or a zip file (told by its first bytes, not its name).
    ///   - accepts: picks files by their relative path.
    /// - Throws: `ImportError` `.unreadableFile` when the path cannot be read, is a file that is
    ///   not a zip, or is a zip libarchive cannot read.
    static func open(path: String, accepting accepts: (String) -> Bool) throws(ImportError) -> ExportFiles {
        let accepted = { (relative: String) -> Bool in
            guard !relative.hasPrefix("__MACOSX/"), !relative.hasSuffix("/") else { return false }
            let name = relative.split(separator: "/").last ?? ""
            return !name.hasPrefix("._") && accepts(relative)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(code: .unreadableFile, path: path, message: "no such file or directory")
        }
        if isDirectory.boolValue {
            return ExportFiles(
                name: path, paths: try listDirectory(path, accepting: accepted).sorted(), location: .directory)
        }
        let prefix = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 4) } ?? Data()
        guard ExportInput.isZip(prefix) else {
            throw ImportError(
                code: .unreadableFile, path: path,
                message: "expected a folder or a zip (a Google Takeout), found a file that is not a zip")
        }
        do {
            return ExportFiles(
                name: path, paths: try ZipEntryStream.entryPaths(path: path, accepting: accepted).sorted(),
                location: .zip)
        } catch {
            throw unreadableZip(path, error)
        }
    }

    /// Reads the files `selects` picks one at a time, in path order, handing each to `body`; a
    /// file's bytes are released before the next file is read.
    ///
    /// A folder's files are read one by one. A zip is read once front to back; an entry that
    /// comes before its turn in path order (an archive not written in path order) waits in
    /// memory until then, so only a zip out of path order holds more than one file at a time,
    /// and at most `waitingLimit` bytes of them (a small zip can hold gigabytes).
    /// - Parameters:
    ///   - selects: picks files among `paths`.
    ///   - waitingLimit: the most bytes of a zip's files that may wait for their turn.
    ///   - zipFileLimit: the most bytes one file of a zip may inflate to.
    ///   - body: receives each file.
    /// - Throws: `ImportError` `.unreadableFile` when a file cannot be read, a zip's file inflates
    ///   past `zipFileLimit` or the files waiting would pass `waitingLimit`, or what `body` threw.
    func forEach(
        where selects: (String) -> Bool = { _ in true }, waitingLimit: Int = ExportFiles.waitingLimit,
        zipFileLimit: Int = ExportFiles.zipFileLimit, _ body: (File) throws -> Void
    ) throws {
        let selected = paths.filter(selects)
        guard !selected.isEmpty else { return }
        switch location {
        case .directory:
            for relative in selected {
                let full = (name as NSString).appendingPathComponent(relative)
                guard let data = FileManager.default.contents(atPath: full) else {
                    throw ImportError(code: .unreadableFile, path: full, message: "cannot read the file")
                }
                try body(File(path: relative, data: data))
            }
        case .zip:
            let wanted = Set(selected)
            var next = 0
            var early: [String: [Data]] = [:]
            var waitingBytes = 0
            do {
                try ZipEntryStream.forEachEntry(path: name, accepting: wanted.contains, entryLimit: zipFileLimit) {
                    path, data in
                    early[path, default: []].append(data)
                    waitingBytes += data.count
                    while next < selected.count, var waiting = early[selected[next]], !waiting.isEmpty {
                        let data = waiting.removeFirst()
                        early[selected[next]] = waiting.isEmpty ? nil : waiting
                        waitingBytes -= data.count
                        try body(File(path: selected[next], data: data))
                        next += 1
                    }
                    guard waitingBytes <= waitingLimit else {
                        throw ImportError(
                            code: .unreadableFile, path: name,
                            message:
                                "the zip's files are not stored in path order, and more than \(waitingLimit >> 20) MiB "
                                + "of them would wait in memory for their turn: unzip it and import the folder")
                    }
                }
            } catch let failure as ZipEntryStream.Failure {
                throw Self.unreadableZip(name, failure)
            }
            guard next == selected.count else {
                throw ImportError(
                    code: .unreadableFile, path: name, message: "unreadable zip: \(selected[next]) changed while read")
            }
        }
    }

    /// The error for a zip libarchive cannot read.
    private static func unreadableZip(_ path: String, _ failure: ZipEntryStream.Failure) -> ImportError {
        ImportError(code: .unreadableFile, path: path, message: "unreadable zip: \(failure.message)")
    }

    /// Lists the accepted regular files under a directory, recursively.
    private static func listDirectory(
        _ root: String, accepting accepts: (String) -> Bool
    ) throws(ImportError) -> [String] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: root) else {
            throw ImportError(code: .unreadableFile, path: root, message: "cannot list the directory")
        }
        var paths: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let full = (root as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                accepts(relative)
            else { continue }
            paths.append(relative)
        }
        return paths
    }
}
