import Foundation
import RecountLog

/// `recount demo`: appends synthetic records to the data directory's log, reads them back and checks them.
enum DemoCommand {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        try invocation.allowOnly(["records"])
        let count = Int(invocation.options["records"] ?? "100000") ?? 100_000
        let log = try Log(directory: invocation.logDirectory, configuration: LogConfiguration(durability: .groupCommit(maxBytes: 1 << 20, maxDelay: .milliseconds(50))))
        if let torn = log.recovery { print("recovered: cut a torn frame of \(torn)") }
        let first = log.endPosition
        var batch = LogBatch()
        for index in 0..<count {
            batch.append(Array("demo record \(first + UInt64(index))".utf8))
            if batch.count == 1000 || index == count - 1 {
                try log.append(batch)
                batch.removeAll()
            }
        }
        try log.sync()
        var matched = 0
        try log.reader().forEach(from: first) { record in
            if Array(record.bytes) == Array("demo record \(record.position)".utf8) { matched += 1 }
        }
        try log.close()
        let stats = try LogReader(directory: invocation.logDirectory).check()
        print("appended \(count) records at positions \(first)..<\(first + UInt64(count)), read back \(matched) intact")
        print("log: \(stats.records) records, \(stats.segments) segments, \(stats.rawBytes) raw bytes, \(stats.fileBytes) on disk")
        return matched == count ? .success : .verificationFailed
    }
}
