import Foundation

/// Keeps an exact copy of bytes the log is about to cut off, beside the file they came from.
enum LogCut {
    /// Copies `path`'s bytes from `offset` to its end, byte for byte, to a file beside it
    /// (`FILE.cut-OFFSET`, numbered `.1`, `.2` … if that exists), durably.
    ///
    /// A copy an earlier attempt left with the same bytes is kept rather than made again (a
    /// repair retried on a full disk made another copy of the same bytes each time). A copy
    /// that fails part-way is removed: it would hold the space a full disk needs back, under a
    /// name that says it is exact.
    ///
    /// - Returns: the copy's path.
    static func save(
        _ path: String, file: any LogFile, from offset: Int64, fileSystem: any LogFileSystem
    ) throws(LogError) -> String {
        let end = try file.size()
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
        let saved = try fileSystem.open(target, writable: true, create: true)
        do {
            var at = offset
            while at < end {
                let chunk = try file.read(Int(min(end - at, chunkBytes)), at: at)
                guard !chunk.isEmpty else { break }
                try saved.write(chunk, at: at - offset)
                at += Int64(chunk.count)
            }
            try saved.sync()
        } catch {
            try? fileSystem.remove(target)
            throw error
        }
        try fileSystem.syncDirectory(parentDirectory(of: path))
        return target
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
