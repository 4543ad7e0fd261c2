import Foundation
import Recount
import TestSupport
import Testing

/// The fast path (`EnvelopeScan`) against the reference (a JSON tree): same envelopes, same
/// errors, on the corpus and on thousands of mutated lines.
@Suite struct EnvelopeScanTests {
    static func outcome(_ decoder: EnvelopeDecoder, _ line: [UInt8]) -> Result<Envelope, IngestError> {
        line.withUnsafeBytes { bytes in
            Result { () throws(IngestError) -> Envelope in try decoder.decode(line: bytes, number: 1) }
        }
    }

    static func corpusLines() throws -> [[UInt8]] {
        try ["valid", "invalid", "semantic_invalid"].flatMap { try EnvelopeCorpusTests.lines($0 + ".ndjson") }
    }

    @Test func theScanReadsPlainLinesAndDecodesThemAsTheTreeDoes() throws {
        let fast = EnvelopeDecoder(scanning: true)
        let reference = EnvelopeDecoder(scanning: false)
        var scanned = 0
        for line in try Self.corpusLines() {
            if line.withUnsafeBytes({ EnvelopeScan.scan($0, maxDepth: 64) }) != nil { scanned += 1 }
            let expected = Self.outcome(reference, line)
            let actual = Self.outcome(fast, line)
            switch (expected, actual) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(String(decoding: line, as: UTF8.self))")
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(String(decoding: line, as: UTF8.self))")
            default:
                Issue.record(
                    "scan and tree disagree on \(String(decoding: line, as: UTF8.self)): \(expected) vs \(actual)")
            }
        }
        #expect(scanned > 100, "the scan should read most corpus lines")
    }

    @Test func theScanAgreesWithTheTreeOnMutatedLines() throws {
        var random = SplitMix64(seed: testSeed(72_026))
        let lines = try EnvelopeCorpusTests.lines("valid.ndjson")
        let fast = EnvelopeDecoder(scanning: true)
        let reference = EnvelopeDecoder(scanning: false)
        let pieces = [",", "}", "]", "{", "[", "\"", ":", "1", "-", "null", "\\", " ", "\"id\":\"x\",", "é"].map {
            Array($0.utf8)
        }
        for _ in 0..<4000 {
            var line = lines[Int(random.next() % UInt64(lines.count))]
            for _ in 0...(random.next() % 2) {
                let at = Int(random.next() % UInt64(line.count))
                switch random.next() % 3 {
                case 0: line.remove(at: at)
                case 1: line.insert(contentsOf: pieces[Int(random.next() % UInt64(pieces.count))], at: at)
                default: line[at] ^= UInt8(1 << (random.next() % 8))
                }
            }
            let expected = Self.outcome(reference, line)
            let actual = Self.outcome(fast, line)
            switch (expected, actual) {
            case (.success(let a), .success(let b)) where a == b: continue
            case (.failure(let a), .failure(let b)) where a == b: continue
            default:
                Issue.record(
                    "scan and tree disagree on \(String(decoding: line, as: UTF8.self)): \(expected) vs \(actual)")
            }
        }
    }
}
