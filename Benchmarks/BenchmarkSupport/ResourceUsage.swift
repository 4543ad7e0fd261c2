// What a benchmark's run cost beyond time: bytes on disk and peak memory.
import Foundation

/// The bytes of the regular files under `path` (their lengths, not the blocks they occupy).
public func diskBytes(_ path: String) -> Int {
    guard let files = FileManager.default.enumerator(atPath: path) else { return 0 }
    var total = 0
    for case let file as String in files {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + file)
        if attributes?[.type] as? FileAttributeType == .typeRegular { total += attributes?[.size] as? Int ?? 0 }
    }
    return total
}

/// A `/proc/self/status` field in kB (`VmRSS`, `VmHWM`), or `nil` where there is none.
public func procStatusKB(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}

/// Resets the peak resident set size (`VmHWM`) to the current one; whether the kernel allowed it.
public func resetPeakRSS() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    return (try? handle.write(contentsOf: Data("5".utf8))) != nil
}
