import Foundation
import Recount
import Testing

/// The corpus under Fixtures/corpus, run through the decoder, the binary record format, the
/// JSON writer, and Python's jsonschema against `schemas/`.
@Suite struct EnvelopeCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/corpus")
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Expectation: Decodable {
        var line: Int
        var path: String?
        var code: String?
        var reason: String?
    }

    static func lines(_ name: String) throws -> [[UInt8]] {
        let data = try Data(contentsOf: corpus.appendingPathComponent(name))
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        return lines
    }

    static func expectations(_ name: String) throws -> [Int: Expectation] {
        struct File: Decodable { var lines: [Expectation] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: corpus.appendingPathComponent(name)))
        return Dictionary(uniqueKeysWithValues: file.lines.map { ($0.line, $0) })
    }

    /// The clock that stamps corpus lines without `receivedAt`.
    static let clock = Instant(millis: 1_784_000_000_000, offsetSeconds: 0)

    static func decode(_ line: [UInt8], number: Int) -> Result<EnvelopeInput, IngestError> {
        line.withUnsafeBytes { bytes in
            Result { () throws(IngestError) -> EnvelopeInput in
                try EnvelopeDecoder().decode(line: bytes, number: number)
            }
        }
    }

    @Test func everyValidLineDecodesAndRoundTripsThroughTheLogRecordAndJSON() throws {
        let lines = try Self.lines("valid.ndjson")
        #expect(lines.count >= 40)
        var kinds = Set<String>()
        for (index, line) in lines.enumerated() {
            let envelope: Envelope
            switch Self.decode(line, number: index + 1) {
            case .success(let decoded): envelope = decoded.stamped(at: Self.clock)
            case .failure(let error):
                Issue.record("valid line rejected: \(error)")
                continue
            }
            kinds.insert(envelope.kind.name)
            var record: [UInt8] = []
            EnvelopeCodec.encode(envelope, into: &record)
            let back = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
            #expect(back == envelope, "line \(index + 1): binary round trip")
            let json = Array(EnvelopeJSON.string(envelope).utf8)
            #expect(
                try Self.decode(json, number: index + 1).get().stamped(at: Self.clock) == envelope,
                "line \(index + 1): JSON round trip")
        }
        #expect(kinds == Set(Kind.allCases.map(\.name)))
    }

    @Test(arguments: ["invalid", "semantic_invalid"])
    func everyInvalidLineIsRejectedAtTheExpectedPathWithTheExpectedCode(file: String) throws {
        let lines = try Self.lines(file + ".ndjson")
        let expected = try Self.expectations(file + ".expect.json")
        #expect(lines.count == expected.count)
        for (index, line) in lines.enumerated() {
            switch Self.decode(line, number: index + 1) {
            case .success:
                Issue.record(
                    "\(file) line \(index + 1) was accepted; expected \(expected[index + 1]?.reason ?? "a rejection")")
            case .failure(let error):
                #expect(error.line == index + 1)
                if let path = expected[index + 1]?.path, path != error.path {
                    Issue.record(
                        "\(file) line \(index + 1): rejected at \(error.path) (\(error.reason)); expected \(path)")
                }
                #expect(
                    error.code.description == expected[index + 1]?.code,
                    "\(file) line \(index + 1): rejected as \(error.code) (\(error.reason))")
            }
        }
    }

    /// Python's jsonschema with `schemas/` and this decoder agree on every corpus line (the
    /// semantic file holds what only the decoder can check).
    @Test(arguments: ["valid", "invalid", "semantic_invalid"])
    func theSchemasAndTheDecoderAgree(file: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.packageRoot.appendingPathComponent("scripts/validate_corpus.py").path, "--verdicts",
            Self.corpus.appendingPathComponent(file + ".ndjson").path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0, "validate_corpus.py failed; run scripts/bootstrap.sh to install jsonschema")
        let verdicts = String(decoding: output, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        let lines = try Self.lines(file + ".ndjson")
        #expect(verdicts.count == lines.count)
        for (verdict, (index, line)) in zip(verdicts, lines.enumerated()) {
            let schemaValid = verdict[1] == "valid"
            let decoderValid = (try? Self.decode(line, number: index + 1).get()) != nil
            if file == "semantic_invalid" {
                #expect(schemaValid && !decoderValid, "\(file) line \(index + 1)")
            } else {
                #expect(
                    schemaValid == decoderValid,
                    "\(file) line \(index + 1): schema \(verdict[1]) \(verdict.count > 2 ? verdict[2] : ""), decoder disagrees"
                )
            }
        }
    }
}
