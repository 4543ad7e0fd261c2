import Foundation
import Recount
import TestSupport
import Testing

/// The fast path (`EnvelopeScan` of a line's own bytes) against the reference (the line parsed
/// as a JSON tree, written back and scanned): same envelopes, same errors, on the corpus and on
/// thousands of mutated lines.
@Suite struct EnvelopeScanTests {
    static func outcome(_ decoder: EnvelopeDecoder, _ line: [UInt8]) -> Result<EnvelopeInput, IngestError> {
        line.withUnsafeBytes { bytes in
            Result { () throws(IngestError) -> EnvelopeInput in try decoder.decode(line: bytes, number: 1) }
        }
    }

    /// `outcome`, decoding in `scratch`, which a caller keeps from line to line as ingest does
    /// (the scan is refilled in place, so what one line left must not reach the next).
    static func outcome(_ decoder: EnvelopeDecoder, _ line: [UInt8], scratch: inout EnvelopeDecoder.Scratch)
        -> Result<EnvelopeInput, IngestError>
    {
        line.withUnsafeBytes { bytes in
            Result { () throws(IngestError) -> EnvelopeInput in
                try decoder.decode(line: bytes, number: 1, scratch: &scratch)
            }
        }
    }

    static func corpusLines() throws -> [[UInt8]] {
        try ["valid", "invalid", "semantic_invalid"].flatMap { try EnvelopeCorpusTests.lines($0 + ".ndjson") }
    }

    @Test func theScanReadsPlainLinesAndDecodesThemAsTheTreeDoes() throws {
        let fast = EnvelopeDecoder(scanning: true)
        let reference = EnvelopeDecoder(scanning: false)
        var scratch = EnvelopeDecoder.Scratch()
        var scanned = 0
        for line in try Self.corpusLines() {
            if line.withUnsafeBytes({ EnvelopeScan.scan($0, maxDepth: 64) }) != nil { scanned += 1 }
            let expected = Self.outcome(reference, line)
            let actual = Self.outcome(fast, line, scratch: &scratch)
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

    /// Mutates random picks of `lines` (each one to three cuts, insertions of `pieces` or bit
    /// flips) `count` times and records every line the scan and the tree decode differently.
    static func expectAgreement(onMutationsOf lines: [[UInt8]], pieces: [String], count: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = pieces.map { Array($0.utf8) }
        let fast = EnvelopeDecoder(scanning: true)
        let reference = EnvelopeDecoder(scanning: false)
        var scratch = EnvelopeDecoder.Scratch()
        for _ in 0..<count {
            var line = lines[Int(random.next() % UInt64(lines.count))]
            for _ in 0...(random.next() % 3) {
                let at = Int(random.next() % UInt64(line.count))
                switch random.next() % 3 {
                case 0: line.remove(at: at)
                case 1: line.insert(contentsOf: pieces[Int(random.next() % UInt64(pieces.count))], at: at)
                default: line[at] ^= UInt8(1 << (random.next() % 8))
                }
            }
            let expected = outcome(reference, line)
            let actual = outcome(fast, line, scratch: &scratch)
            switch (expected, actual) {
            case (.success(let a), .success(let b)) where a == b: continue
            case (.failure(let a), .failure(let b)) where a == b: continue
            default:
                Issue.record(
                    "scan and tree disagree on \(String(decoding: line, as: UTF8.self)): \(expected) vs \(actual)")
            }
        }
    }

    static let mutationPieces = [
        ",", "}", "]", "{", "[", "\"", ":", "1", "-", "null", "\\", " ", "\"id\":\"x\",", "é",
    ]

    @Test func theScanAgreesWithTheTreeOnMutatedLines() throws {
        Self.expectAgreement(
            onMutationsOf: try EnvelopeCorpusTests.lines("valid.ndjson"), pieces: Self.mutationPieces, count: 4000,
            seed: testSeed(72_026))
    }

    /// The same with pieces that add, repeat, escape or retype root members (the scan reads the
    /// root as spans, predicts its member order from the line before, and leaves a second
    /// unknown member to the tree), over every kind of the corpus.
    @Test func theScanAgreesWithTheTreeOnMutatedRootMembers() throws {
        let pieces = [
            #""x":1,"#, #""y":[{}],"#, #""kind":"checkin","#, #""\u006bind":"checkin","#, #""user":"*","#,
            #""deleted":[],"#, #""anchor":null,"#, #""receivedAt":"2026-07-13T08:00:00Z","#, #""added":[1],"#,
            #""samples":{},"#, #""changes":[{"deletion":{"recordId":"q"}}],"#, #""token":"\u0074","#,
            #""hasMore":null,"#, #""window":[],"#, #""metrics":[],"#, #""expectedCheckinSeconds":1.0,"#,
        ]
        Self.expectAgreement(
            onMutationsOf: try EnvelopeCorpusTests.lines("valid.ndjson"), pieces: Self.mutationPieces + pieces,
            count: 4000, seed: testSeed(20_261_206))
    }

    /// The same on lines made of the scan's paths (member prediction, repeated fields, changes
    /// pages), with pieces that build or break them. `RECOUNT_FUZZ_LINES` runs more.
    @Test func theScanAgreesWithTheTreeOnMutatedSampleArraysAndChanges() {
        let lines = [
            #"{"kind":"healthconnect.changes","user":"u","recordTypes":["StepsRecord","SleepSession"],"token":"t1","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":false,"changes":[{"upsertion":{"id":"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","type":"StepsRecord","start":"2026-07-13T08:00:00+02:00","end":"2026-07-13T08:01:00+02:00","value":5,"unit":"count","origin":"o","device":"d","timeZone":"Europe/Berlin"}},{"deletion":{"recordId":"d1"}},{"upsertion":{"id":"x2","type":"SleepSession","start":"2026-07-13T01:00:00+02:00","end":"2026-07-13T02:00:00+02:00","stage":"deep","origin":"o","syncVersion":3,"lastModified":"2026-07-13T02:00:00Z"}}]}"#,
            #"{"kind":"healthkit.delivery","user":"u","type":"steps","anchor":null,"newAnchor":"AA==","added":[{"id":"0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0","type":"steps","start":"2026-07-13T08:00:00-07:00","value":5,"unit":"count","origin":"o"},{"id":"a2","type":"HKQuantityTypeIdentifierStepCount","start":"2026-07-13T08:00:00-07:00","end":"2026-07-13T08:05:00-07:00","value":1e1,"unit":"count","origin":"o","syncIdentifier":"s","syncVersion":2}],"deleted":[{"uuid":"z"}]}"#,
        ].map { Array($0.utf8) }
        let count = ProcessInfo.processInfo.environment["RECOUNT_FUZZ_LINES"].flatMap { Int($0) } ?? 4000
        Self.expectAgreement(
            onMutationsOf: lines,
            pieces: Self.mutationPieces + [#"\u0041"#, #"{"deletion":{"recordId":"q"}},"#, #""upsertion":"#],
            count: count, seed: testSeed(99))
    }

    /// The scan predicts each sample's member names from the previous sample and reuses the
    /// previous sample's decoded texts; neither may show when samples differ from their neighbour.
    @Test func samplesThatChangeShapeFromTheirNeighbourDecodeAsTheTreeDoes() throws {
        let samples = [
            #"{"id":"a1","type":"steps","start":"2026-07-13T08:00:00+02:00","value":10,"unit":"count","origin":"o"}"#,
            #"{"type":"steps","id":"a2","start":"2026-07-13T09:00:00+02:00","value":11,"unit":"count","origin":"o"}"#,
            #"{"id":"a3","\u0074ype":"steps","start":"2026-07-13T10:00:00Z","value":12,"unit":"count","origin":"p"}"#,
            #"{ "id" : "a4", "type":"steps","start":"2026-07-13T11:00:00Z","value":1e1,"unit":"count","origin":"p\u0071"}"#,
            #"{"id":"a5","type":"steps","start":"2026-07-13T12:00:00Z","value":13,"unit":"count","origin":"pq","device":"d"}"#,
            #"{"id":"a6","type":"steps","start":"2026-07-13T13:00:00Z","end":"2026-07-13T13:01:00Z","value":14,"unit":"count","origin":"pq"}"#,
        ]
        let line =
            #"{"kind":"samples.upsert","user":"u","provider":"p","samples":["#
            + samples.joined(separator: ",") + "]}"
        let fast = Self.outcome(EnvelopeDecoder(scanning: true), Array(line.utf8))
        let reference = Self.outcome(EnvelopeDecoder(scanning: false), Array(line.utf8))
        let envelope = try fast.get()
        #expect(envelope == (try reference.get()))
        #expect(envelope.samples.map(\.origin) == ["o", "o", "p", "pq", "pq", "pq"])
        #expect(envelope.samples.map(\.value) == [10, 11, 12, 10, 13, 14])
        #expect(envelope.samples.map(\.device) == [nil, nil, nil, nil, "d", nil])

        // A member that only starts like the expected name is another member.
        let unknown = line.replacingOccurrences(
            of: #""unit":"count","origin":"pq","device""#, with: #""unit":"count","origin":"pq","devices""#)
        let failure = Self.outcome(EnvelopeDecoder(scanning: true), Array(unknown.utf8))
        #expect(failure == Self.outcome(EnvelopeDecoder(scanning: false), Array(unknown.utf8)))
        guard case .failure(let error) = failure else {
            Issue.record("an unknown member was accepted")
            return
        }
        #expect("\(error)" == "line 1: samples[4].devices is not a known field")
    }

    /// Health Connect pages: the scan reads plain upsertions and deletions and leaves every other
    /// shape of change to the tree, which must come to the same envelope or error.
    @Test func changesPagesDecodeAsTheTreeDoes() throws {
        let upsertion =
            #"{"upsertion":{"id":"u1","type":"StepsRecord","start":"2026-07-13T08:00:00+02:00","value":5,"unit":"count","origin":"o"}}"#
        let changes: [(String, String?)] = [
            (upsertion + #",{"deletion":{"recordId":"d1"}}"#, nil),
            (upsertion + #",{ "deletion" : { "recordId" : "d\u0031" } }"#, nil),
            (
                upsertion + #",{"deletion":{"recordId":"d1","extra":1}}"#,
                "changes[1].deletion.extra is not a known field"
            ),
            (
                #"{"upsertion":{"id":"u1","type":"StepsRecord","start":"2026-07-13T08:00:00+02:00","value":5,"unit":"count","origin":"o"},"deletion":{"recordId":"d1"}}"#,
                "changes[0] must hold exactly one of upsertion or deletion"
            ),
            (upsertion + #",{"deletion":{"recordId":7}}"#, "changes[1].deletion.recordId must be a string"),
            (upsertion + "," + upsertion, "changes[1].upsertion.id repeats an id upserted earlier in this envelope"),
            (
                #"{"deletion":{"recordId":"d1"}},{"deletion":{"recordId":"d1"}}"#,
                "changes[1].deletion.recordId repeats an id deleted earlier in this envelope"
            ),
            (
                #"{"upsertion":{"id":"u1","type":"WeightRecord","start":"2026-07-13T08:00:00Z","value":80,"unit":"kg","origin":"o"}}"#,
                "changes[0].upsertion.type is not among the page's recordTypes"
            ),
        ]
        for (number, (list, expected)) in changes.enumerated() {
            let line =
                #"{"kind":"healthconnect.changes","user":"u","recordTypes":["StepsRecord"],"token":"t1","nextChangesToken":"t2","hasMore":false,"changesTokenExpired":false,"changes":["#
                + list + "]}"
            if number == 0 {
                #expect(Array(line.utf8).withUnsafeBytes { EnvelopeScan.scan($0, maxDepth: 64)?.liftedArrays } == 1)
            }
            let fast = Self.outcome(EnvelopeDecoder(scanning: true), Array(line.utf8))
            #expect(fast == Self.outcome(EnvelopeDecoder(scanning: false), Array(line.utf8)), "\(line)")
            switch fast {
            case .success(let envelope):
                #expect(expected == nil, "\(line)")
                guard case .healthConnectChanges(let page) = envelope.body else {
                    Issue.record("not a changes page")
                    continue
                }
                #expect(page.changes == [.upsertion, .deletion(recordId: "d1")])
                #expect(page.upserted.map(\.id) == ["u1"])
            case .failure(let error): #expect("\(error)" == "line 1: " + (expected ?? "no error"), "\(line)")
            }
        }
    }

    /// A root member that is no field might repeat an earlier one, which only a parse tells
    /// apart cheaply; so the scan takes one such member and leaves a line with more to the tree,
    /// whose text it then reads knowing no key repeats. Until 2026-12-06 the scan compared every
    /// root member with every earlier one: a 7 MB line of 700,000 members held the ingest for
    /// 2 min 17 s before it was refused.
    @Test func aLineOfManyUnknownMembersIsReadOnceAndNamesTheFirst() throws {
        func scans(_ line: String) -> Bool {
            Array(line.utf8).withUnsafeBytes { EnvelopeScan.scan($0, maxDepth: 64) } != nil
        }
        #expect(scans(#"{"kind":"checkin","x":1}"#))
        #expect(!scans(#"{"kind":"checkin","x":1,"y":2}"#))
        #expect(!scans(#"{"kind":"checkin","user":"u","\u0075ser":"v"}"#))

        let members = (0..<50_000).map { "\"k\($0)\":0" }.joined(separator: ",")
        let checkin = #""kind":"checkin","user":"u","provider":"p","metrics":["steps"],"at":"2026-07-13T08:00:00Z""#
        let cases = [
            ("{" + checkin + #","token":"t","# + members + "}", "token is not a known field"),
            ("{" + members + "," + checkin + #","token":"t"}"#, "k0 is not a known field"),
            ("{" + checkin + "," + members + #","k17":1}"#, "k17 is not valid JSON: duplicate key \"k17\""),
        ]
        for (line, expected) in cases {
            let fast = Self.outcome(EnvelopeDecoder(scanning: true), Array(line.utf8))
            #expect(fast == Self.outcome(EnvelopeDecoder(scanning: false), Array(line.utf8)))
            guard case .failure(let error) = fast else {
                Issue.record("a line with unknown members was accepted")
                continue
            }
            #expect("\(error)".hasPrefix("line 1: " + expected), "\(error)")
        }
    }
}
