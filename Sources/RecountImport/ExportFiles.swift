import Foundation

/// The files of an export that is a folder of many small files (a Google Takeout): the unpacked
/// folder, or the zip Takeout hands out, read in place.
///
/// Only the files an importer accepts are read, into memory (Takeout JSON files are kilobytes to
/// a few megabytes each). Paths are relative to the folder (or the zip's root), `/`-separated,
/// and the files are sorted by path, so a folder and its zip give the same files in the same
/// order whatever the file system or the archive's order. macOS's `__MACOSX/` shadow entries and
/// `._` files are never accepted.
struct ExportFiles {
    /// One file of the export.
    struct File {
        /// The path inside the export, such as `Takeout/Fitbit/Global Export Data/steps-2023-10-09.json`.
        var path: String
        /// The contents.
        var data: Data

        /// The last path component.
        var name: Substring { path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...] }
    }

    /// What errors call the export: the path given.
    let name: String
    /// The accepted files, sorted by path.
    let files: [File]

    /// Opens a folder or a zip and reads the files `accepts` picks.
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
        var files: [File]
        if isDirectory.boolValue {
            files = try readDirectory(path, accepting: accepted)
        } else {
            let prefix = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 4) } ?? Data()
            guard ExportInput.isZip(prefix) else {
                throw ImportError(
                    code: .unreadableFile, path: path,
                    message: "expected a folder or a zip (a Google Takeout), found a file that is not a zip")
            }
            do {
                files = try ZipEntryStream.readEntries(path: path, accepting: accepted).map {
                    File(path: $0.path, data: $0.data)
                }
            } catch {
                throw ImportError(code: .unreadableFile, path: path, message: "unreadable zip: \(error.message)")
            }
        }
        files.sort { $0.path < $1.path }
        return ExportFiles(name: path, files: files)
    }

    /// Reads the accepted regular files under a directory, recursively.
    private static func readDirectory(
        _ root: String, accepting accepts: (String) -> Bool
    ) throws(ImportError) -> [File] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: root) else {
            throw ImportError(code: .unreadableFile, path: root, message: "cannot list the directory")
        }
        var files: [File] = []
        while let relative = enumerator.nextObject() as? String {
            let full = (root as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                accepts(relative)
            else { continue }
            guard let data = manager.contents(atPath: full) else {
                throw ImportError(code: .unreadableFile, path: full, message: "cannot read the file")
            }
            files.append(File(path: relative, data: data))
        }
        return files
    }
}
