import Foundation
import Recount
import TestSupport
import Testing

/// The binary log record of an envelope: damaged bytes throw, never trap.
@Suite struct EnvelopeCodecTests {
    static func records() throws -> [[UInt8]] {
        let decoder = EnvelopeDecoder()
        return try EnvelopeCorpusTests.lines("valid.ndjson").map { line in
            let envelope = try line.withUnsafeBytes { try decoder.decode(line: $0, number: 1) }
                .stamped(at: EnvelopeCorpusTests.clock)
            var record: [UInt8] = []
            EnvelopeCodec.encode(envelope, into: &record)
            return record
        }
    }

    /// Records decoded through one `RepeatedStrings` (as a replay reads the log) equal their
    /// decodes without it: strings around the longest it holds, strings that differ only in
    /// the middle (same length, same first and last eight bytes: the same slot), non-ASCII strings,
    /// and strings that come back after others took their slots.
    @Test func stringsKeptFromRecordToRecordDecodeAsTheirBytes() throws {
        let decoder = EnvelopeDecoder()
        let names = [
            "u", "user-1", "user-2", String(repeating: "a", count: 56), String(repeating: "a", count: 57),
            "user-abc" + String(repeating: "x", count: 30) + "-defghij",
            "user-abc" + String(repeating: "y", count: 30) + "-defghij",
            "caf\u{E9}-origin", "cafe\u{301}-origin", "com.apple.health.\u{1F600}",
        ]
        var records: [[UInt8]] = []
        for round in 0..<3 {
            for (number, name) in names.enumerated() {
                let origin = names[(number + round) % names.count]
                // Users are ASCII (contract): the first seven names.
                let user = names[number % 7]
                let line = """
                    {"kind":"samples.upsert","user":\(jsonString(user)),"receivedAt":"2026-07-14T12:01:00Z",\
                    "provider":"fitbit","samples":[{"id":"fb-\(number)","type":"steps",\
                    "start":"2026-07-14T07:00:00-04:00","value":\(number),"unit":"count","origin":\(jsonString(origin)),\
                    "device":\(jsonString(name + "-device"))}]}
                    """
                let envelope = try Array(line.utf8).withUnsafeBytes { try decoder.decode(line: $0, number: 1) }
                    .stamped(at: EnvelopeCorpusTests.clock)
                var record: [UInt8] = []
                EnvelopeCodec.encode(envelope, into: &record)
                records.append(record)
            }
        }
        let repeated = RepeatedStrings()
        var block = SampleBlock([])
        for record in records {
            let alone = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
            let cached = try record.withUnsafeBytes {
                try EnvelopeCodec.decodeBlock($0, into: &block, repeated: repeated)
            }
            #expect(cached.user.utf8.elementsEqual(alone.user.utf8))
            #expect(block.samples.map { Array($0.origin.utf8) } == alone.samples.map { Array($0.origin.utf8) })
            #expect(
                block.samples.map { $0.device.map { Array($0.utf8) } }
                    == alone.samples.map { $0.device.map { Array($0.utf8) } })
            #expect(block.samples == alone.samples)
        }
    }

    private func jsonString(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Every corpus record read into one reused block (as a replay reads the log) gives the
    /// samples its plain decode gives: ids that are no UUIDs, sync identifiers and workouts,
    /// which the block keeps beside its entries, included.
    @Test func aReusedBlockReadsEachRecordsSamples() throws {
        var block = SampleBlock([])
        let repeated = RepeatedStrings()
        var kept = (texts: 0, workouts: 0)
        for record in try Self.records() {
            let alone = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
            _ = try record.withUnsafeBytes { try EnvelopeCodec.decodeBlock($0, into: &block, repeated: repeated) }
            #expect(block.samples == alone.samples)
            for number in block.entries.indices {
                #expect(block.id(of: number) == alone.samples[number].id)
                if block.id(of: number).uuid == nil || block.syncIdentifier(of: number) != nil { kept.texts += 1 }
                if block.workout(of: number) != nil { kept.workouts += 1 }
            }
        }
        #expect(kept.texts > 0 && kept.workouts > 0)
    }

    /// The user peek agrees with decoding on every corpus record, for its own user and others,
    /// and a record too short to tell is left to decoding.
    @Test func recordsAreMatchedToTheirUserWithoutDecoding() throws {
        for record in try Self.records() {
            let user = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }.user
            for candidate in [user, user + "0", String(user.dropLast()), "*", "someone-else"] {
                #expect(record.withUnsafeBytes { UserFilter([candidate]).holds($0) } == (candidate == user))
                #expect(
                    record.withUnsafeBytes { UserFilter([candidate]).concerns($0) }
                        == (candidate == user || user == "*"))
            }
            #expect(record.prefix(3).withUnsafeBytes { UserFilter(["someone-else"]).holds($0) })
        }
    }

    @Test func everyTruncatedRecordIsRefused() throws {
        for record in try Self.records() {
            for length in 0..<record.count {
                let error = #expect(throws: EnvelopeCodecError.self) {
                    try record.prefix(length).withUnsafeBytes { try EnvelopeCodec.decode($0) }
                }
                #expect(error?.code == .malformed)
            }
        }
    }

    @Test func flippedBitsDecodeOrThrowButNeverTrap() throws {
        var random = SplitMix64(seed: testSeed(4_046))
        var refused = 0
        for record in try Self.records() {
            for _ in 0..<200 {
                var damaged = record
                let bit = Int(random.next() % UInt64(record.count * 8))
                damaged[bit / 8] ^= 1 << UInt8(bit % 8)
                do {
                    _ = try damaged.withUnsafeBytes { try EnvelopeCodec.decode($0) }
                } catch {
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
    }

    @Test func uuidIdsAreStoredCompactlyAndComeBackInTheirCase() throws {
        let ids = [
            "8a1e0f52-3c44-4b8e-9b1d-2f6c7a9e0001", "8A1E0F52-3C44-4B8E-9B1D-2F6C7A9E0001",
            "12345678-1234-1234-1234-123456789012", "8a1E0f52-3c44-4b8e-9b1d-2f6c7a9e0001", "not-a-uuid",
        ]
        func encoded(_ ids: [String]) throws -> [UInt8] {
            let samples = ids.enumerated().map { index, id in
                Sample(
                    id: SampleID(id), type: MetricName("steps")!,
                    start: Instant(millis: Int64(index) * 60_000, offsetSeconds: -25_200), value: 3, unit: "count",
                    origin: "o")
            }
            let envelope = Envelope(
                user: "u1", receivedAt: Instant(millis: 0, offsetSeconds: 0),
                body: .samplesUpsert(provider: "p", samples: samples))
            var record: [UInt8] = []
            EnvelopeCodec.encode(envelope, into: &record)
            #expect(try record.withUnsafeBytes { try EnvelopeCodec.decode($0) } == envelope)
            return record
        }
        // Three UUIDs of one letter case take 16 bytes instead of 1 + 36, less one for the flags
        // varint their flag bit lengthens; the mixed-case one and the plain id stay text.
        let compact = try encoded(ids)
        let text = try encoded(ids.map { $0.replacingOccurrences(of: "-", with: "_") })
        #expect(text.count - compact.count == 3 * 20)
    }

    /// `-00:00` (offset unknown) survives the log record and the JSON written back, apart from
    /// `Z`, in every place an instant is stored.
    @Test func unknownOffsetsRoundTripAsWritten() throws {
        let line = Array(
            (#"{"kind":"samples.upsert","user":"u1","receivedAt":"2026-07-14T08:00:00-00:00","provider":"p","#
                + #""samples":[{"id":"a","type":"steps","start":"2026-07-14T07:00:00-00:00","#
                + #""end":"2026-07-14T07:30:00.250-00:00","value":5,"unit":"count","origin":"o","#
                + #""lastModified":"2026-07-14T07:31:00-00:00"},{"id":"b","type":"steps","#
                + #""start":"2026-07-14T07:00:00+00:00","value":5,"unit":"count","origin":"o"}]}"#).utf8)
        let envelope = try line.withUnsafeBytes { try EnvelopeDecoder().decode(line: $0, number: 1) }
            .stamped(at: EnvelopeCorpusTests.clock)
        var record: [UInt8] = []
        EnvelopeCodec.encode(envelope, into: &record)
        let back = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
        #expect(back == envelope)
        #expect(back.receivedAt.offsetIsUnknown)
        #expect(back.samples.map(\.start.offsetIsUnknown) == [true, false])
        let json = EnvelopeJSON.string(back)
        #expect(json.contains(#""receivedAt":"2026-07-14T08:00:00-00:00""#))
        #expect(json.contains(#""start":"2026-07-14T07:00:00-00:00","end":"2026-07-14T07:30:00.250-00:00""#))
        #expect(json.contains(#""lastModified":"2026-07-14T07:31:00-00:00""#))
        #expect(json.contains(#""start":"2026-07-14T07:00:00Z""#))
    }
}
