import Foundation
import Recount
import RecountLog
import TestSupport
import Testing

/// The embedding API, as a backend service uses it.
@Suite struct RecountEngineTests {
    static let good = Array(
        #"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"],"at":"2026-07-14T00:00:00Z"}"#.utf8)
    static let bad = Array(#"{"kind":"checkin","user":"u1","provider":"fitbit","metrics":["steps"]}"#.utf8)

    @Test func ingestsLinesAppliesTheValidOnesAndNamesTheRest() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            let newline = [UInt8(ascii: "\n")]
            let report = try engine.ingest(ndjson: Self.good + newline + Self.bad + newline + Self.good, source: "api")
            #expect(report.appended == 2)
            #expect(report.positions == 1..<3)
            #expect(report.rejected.map(\.description) == ["api: line 2: at is required"])
            #expect(report.rejected.map(\.error.code) == [.missingField])
            try engine.close()

            // A second engine on the same directory continues the positions.
            let again = try RecountEngine(directory: directory)
            #expect(again.recovery == nil)
            #expect(try again.ingest(ndjson: Self.good, source: "api").positions == 3..<4)
            try again.close()
            #expect(try LogReader(directory: directory + "/log").check().records == 3)
        }
    }

    @Test func oneEnginePerDirectory() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            #expect { try RecountEngine(directory: directory) } throws: { ($0 as? LogError)?.code == .locked }
            try engine.close()
        }
    }

    @Test func aMissingFileIsAClearError() throws {
        try withTemporaryDirectory { directory in
            let engine = try RecountEngine(directory: directory)
            #expect { try engine.ingest(file: directory + "/missing.ndjson") } throws: { error in
                (error as? IngestFileError)?.description
                    == "cannot read \(directory)/missing.ndjson: No such file or directory"
            }
        }
    }
}
