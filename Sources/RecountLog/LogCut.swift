import Foundation

/// Keeps an exact copy of bytes the log is about to cut off, beside the file they came from.
enum LogCut {
    /// Copies `path`'s bytes from `offset` to its end, byte for byte, to a file beside it
    /// (`FILE.cut-OFFSET`, numbered `.1`, `.2` … if that exists), durably.
    ///
    /// The copy is written as `TARGET.partial` and renamed once synced, so a file under the
    /// copy's name is always whole: a crash during the copy leaves only the `.partial`, which
    /// the next copy of this file's bytes removes. A copy an earlier attempt left with the same
    /// bytes is kept rather than made again (a repair retried on a full disk made another copy
    /// of the same bytes each time). A copy that fails part-way is removed: it would hold the
    /// space a full disk needs back.
    ///
    /// - Returns: the copy's path.
    static func save(
        _ path: String, file: any LogFile, from offset: Int64, fileSystem: any LogFileSystem
    ) throws(LogError) -> String {
        let end = try file.size()
        try removePartialCopies(of: path, fileSystem: fileSystem)
        var target = "\(path).cut-\(offset)"
        var copy = 1
        while FileManager.default.fileExists(atPath: target) {
            if let earlier = try? fileSystem.open(target, writable: true, create: false),
                try holds(earlier, file, from: offset, to: end)
            {
                try earlier.sync()
                try fileSystem.syncDirectory(parentDirectory(of: path))
                return target
            }
            target = "\(path).cut-\(offset).\(copy)"
            copy += 1
        }
        let partial = target + partialSuffix
        do {
            let saved = try fileSystem.open(partial, writable: true, create: true)
            try saved.truncate(to: 0)
            var at = offset
            while at < end {
                let chunk = try file.read(Int(min(end - at, chunkBytes)), at: at)
                guard !chunk.isEmpty else { break }
                try saved.write(chunk, at: at - offset)
                at += Int64(chunk.count)
            }
            try saved.sync()
            try fileSystem.rename(partial, to: target)
        } catch {
            try? fileSystem.remove(partial)
            throw error
        }
        try fileSystem.syncDirectory(parentDirectory(of: path))
        return target
    }

    /// The whole copies of `path`'s bytes cut at `offset` that earlier cuts made, in name order.
    static func copies(of path: String, from offset: Int64) -> [String] {
        let directory = parentDirectory(of: path)
        let name = URL(fileURLWithPath: path).lastPathComponent + ".cut-\(offset)"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0 == name || ($0.hasPrefix(name + ".") && !$0.hasSuffix(partialSuffix)) }.sorted().map {
            directory + "/" + $0
        }
    }

    /// The suffix of a copy being written.
    private static let partialSuffix = ".partial"

    /// Removes the copies of `path`'s cut bytes that a crash left half-written (any offset):
    /// only the writer, which holds the log's lock, copies cut bytes.
    private static func removePartialCopies(of path: String, fileSystem: any LogFileSystem) throws(LogError) {
        let directory = parentDirectory(of: path)
        let prefix = URL(fileURLWithPath: path).lastPathComponent + ".cut-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(partialSuffix) {
            try fileSystem.remove(directory + "/" + name)
        }
    }

    /// The bytes read and compared at a time.
    private static let chunkBytes: Int64 = 1 << 20

    /// Whether `copy` holds exactly `file`'s bytes from `offset` to `end`.
    private static func holds(_ copy: any LogFile, _ file: any LogFile, from offset: Int64, to end: Int64)
        throws(LogError) -> Bool
    {
        guard try copy.size() == end - offset else { return false }
        var at = offset
        while at < end {
            let count = Int(min(end - at, chunkBytes))
            let chunk = try file.read(count, at: at)
            guard chunk.count == count, try copy.read(count, at: at - offset) == chunk else { return false }
            at += Int64(count)
        }
        return true
    }
}
