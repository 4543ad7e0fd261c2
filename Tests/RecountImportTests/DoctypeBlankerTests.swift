import Foundation
import Testing

@testable import RecountImport

/// The DOCTYPE blanking (see `DoctypeBlanker` for why), and the stream that applies it.
@Suite struct DoctypeBlankerTests {
    static let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment with <!DOCTYPE inside -->
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 ]> -->
        <!ELEMENT HealthData (ExportDate)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
          note CDATA "a > b ] c"
        >
        ]>
        <HealthData locale="en_US"><ExportDate value="2024-01-01 00:00:00 +0000"/></HealthData>

        """

    /// The bytes a stream of `document` must yield: the declaration blanked, newlines kept.
    static var expected: [UInt8] {
        let text = document
        var bytes = Array(text.utf8)
        let doctypeStart = text.range(of: "<!DOCTYPE HealthData")!.lowerBound
        let doctypeEnd = text.range(of: "]>\n<HealthData")!.lowerBound
        let from = text.utf8.distance(from: text.startIndex, to: doctypeStart)
        let to = text.utf8.distance(from: text.startIndex, to: doctypeEnd) + 2
        DoctypeBlanker.blank(&bytes, from..<to)
        return bytes
    }

    @Test func findsAndBlanksTheDeclaration() throws {
        var bytes = Array(Self.document.utf8)
        let scan = bytes.withUnsafeBufferPointer { DoctypeBlanker.scan($0) }
        guard case .complete(let root, let blanked?) = scan else {
            Issue.record("unexpected \(scan)")
            return
        }
        let text = Self.document
        #expect(
            root
                == text.utf8.distance(
                    from: text.startIndex, to: text.range(of: "<HealthData locale")!.lowerBound))
        DoctypeBlanker.blank(&bytes, blanked)
        let result = String(decoding: bytes, as: UTF8.self)
        #expect(!result.contains("DOCTYPE HealthData"))
        #expect(!result.contains("ATTLIST"))
        #expect(result.contains("<!-- a comment with <!DOCTYPE inside -->"))
        // Same length and same line breaks: positions after it are unchanged.
        #expect(bytes.count == text.utf8.count)
        #expect(
            result.split(separator: "\n", omittingEmptySubsequences: false).count
                == text.split(separator: "\n", omittingEmptySubsequences: false).count)
    }

    @Test func needsMoreUntilTheRootStarts() {
        let bytes = Array(Self.document.utf8)
        let root = Self.document.utf8.distance(
            from: Self.document.startIndex,
            to: Self.document.range(of: "<HealthData locale")!.lowerBound)
        for length in [0, 1, 10, 60, 150, root, root + 1] {
            let scan = bytes[0..<length].withUnsafeBufferPointer { DoctypeBlanker.scan($0) }
            #expect(scan == .needMore, "length \(length)")
        }
        let scan = bytes[0..<(root + 2)].withUnsafeBufferPointer { DoctypeBlanker.scan($0) }
        #expect(scan != .needMore)
    }

    @Test func documentsWithoutDoctypePassUnchanged() {
        let bytes = Array("<HealthData><Record/></HealthData>".utf8)
        #expect(
            bytes.withUnsafeBufferPointer { DoctypeBlanker.scan($0) }
                == .complete(rootIndex: 0, blanked: nil))
    }

    @Test(arguments: [1, 7, 64, 4096])
    func streamYieldsBlankedBytesInAnyReadSize(readSize: Int) {
        let stream = DoctypeBlankingStream(wrapping: InputStream(data: Data(Self.document.utf8)))
        stream.open()
        defer { stream.close() }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: readSize)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer {
                stream.read($0.baseAddress!, maxLength: readSize)
            }
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        #expect(output == Self.expected)
    }

    /// With the DTD Apple writes (here the tdda excerpt's) blanked, line numbers after it are the
    /// file's own.
    @Test func linesAfterTheDTDAreTheFilesLines() throws {
        let original = try String(
            contentsOf: FixturePaths.fixture("tdda-export6s3sample.xml"), encoding: .utf8)
        let broken = original.replacingOccurrences(
            of: #"value="0.00288""#, with: #"value="zero""#)
        let run = try ImportRun.xml(broken)
        let line = try #require(run.report.invalidExamples.first?.line)
        let expectedLine = original.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(#"value="0.00288""#) }.map { $0 + 1 }
        #expect(line == expectedLine)
        #expect(run.report.importedTotal == 15)
    }
}
