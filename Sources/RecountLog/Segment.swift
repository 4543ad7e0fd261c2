import Foundation

/// One segment file of the log: its first record's position, path, and the extent of its frames.
package struct Segment: Sendable, Equatable {
    /// The position of the segment's first record; the file is named after it.
    package var firstPosition: UInt64
    /// The segment file's path.
    package var path: String
    /// How many bytes of the file hold whole frames (committed ones, for a reader).
    package var length: Int64
    /// The position after the last record of those frames.
    package var endPosition: UInt64

    package init(firstPosition: UInt64, path: String, length: Int64, endPosition: UInt64) {
        self.firstPosition = firstPosition
        self.path = path
        self.length = length
        self.endPosition = endPosition
    }

    /// The sparse index file beside the segment.
    package var indexPath: String { Self.indexPath(forSegment: path) }

    /// `00000000000000004096.seg`: twenty digits, so names sort like positions.
    package static func fileName(firstPosition: UInt64) -> String {
        let digits = String(firstPosition)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".seg"
    }

    /// The first position a segment file name stands for, or `nil` when it is not a segment's name.
    package static func firstPosition(fileName: String) -> UInt64? {
        guard fileName.hasSuffix(".seg") else { return nil }
        let digits = fileName.dropLast(4)
        guard digits.count == 20, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(digits)
    }

    package static func indexPath(forSegment path: String) -> String {
        String(path.dropLast(4)) + ".idx"
    }

    /// Whether `path` is an existing directory (the log's, or the projections' beside it); throws
    /// `.notADirectory` when it is something else.
    package static func directoryExists(_ path: String) throws(LogError) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        guard isDirectory.boolValue else {
            throw LogError(.notADirectory, "the path is not a directory", path: path)
        }
        return true
    }

    /// The segment files in `directory`, in position order, with their current file sizes (their
    /// end positions unknown until scanned).
    package static func list(in directory: String) throws(LogError) -> [Segment] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw LogError(.io, "cannot list the log directory: \(error)", path: directory)
        }
        var segments: [Segment] = []
        for name in names where name.hasSuffix(".seg") {
            let path = directory + "/" + name
            guard let first = firstPosition(fileName: name) else {
                throw LogError(
                    .corruptSegment,
                    "a file ends in .seg but is not named by a position (20 digits, at most 18446744073709551615)",
                    path: path)
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
            segments.append(Segment(firstPosition: first, path: path, length: Int64(size), endPosition: first))
        }
        return segments.sorted { $0.firstPosition < $1.firstPosition }
    }
}
