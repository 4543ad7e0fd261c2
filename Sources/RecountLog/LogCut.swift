import Foundation

/// Keeps an exact copy of bytes the log is about to cut off, beside the file they came from.
enum LogCut {
    /// Copies `path`'s bytes from `offset` to its end, byte for byte, to a new file beside it
    /// (`FILE.cut-OFFSET`, numbered `.1`, `.2` … if that exists), durably.
    ///
    /// - Returns: the copy's path.
    static func save(
        _ path: String, file: any LogFile, from offset: Int64, fileSystem: any LogFileSystem
    ) throws(LogError) -> String {
        var target = "\(path).cut-\(offset)"
        var copy = 1
        while FileManager.default.fileExists(atPath: target) {
            target = "\(path).cut-\(offset).\(copy)"
            copy += 1
        }
        let saved = try fileSystem.open(target, writable: true, create: true)
        var at = offset
        let end = try file.size()
        while at < end {
            let chunk = try file.read(Int(min(end - at, 1 << 20)), at: at)
            guard !chunk.isEmpty else { break }
            try saved.write(chunk, at: at - offset)
            at += Int64(chunk.count)
        }
        try saved.sync()
        try fileSystem.syncDirectory(parentDirectory(of: path))
        return target
    }
}
