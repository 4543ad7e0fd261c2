import Foundation
import Testing

@testable import RecountImport

/// The parser reports the same elements, attribute values, positions and errors whether or not
/// attribute values are rewritten on their way to libxml2 (`AttributeValueRewriter`).
@Suite struct AttributeValueRewriterTests {
    /// Everything a parse reports, in order.
    final class Recorder: XMLStreamHandler {
        var events: [String] = []

        func startElement(_ tag: XMLStartTag) -> Bool {
            var event = "<\(tag.qualifiedName) \(tag.line):\(tag.column)"
            for index in 0..<tag.attributeCount {
                let name = String(cString: tag.attributeName(index))
                let value = Array(tag.attributeValue(index))
                event += " \(name)\(tag.attributePrefixed(index) ? "(prefixed)" : "")=\(value)"
            }
            events.append(event)
            return true
        }

        func endElement() -> Bool {
            events.append(">")
            return true
        }
    }

    /// The events and outcome of parsing `document`, handed over `readSize` bytes at a time.
    static func parse(_ document: [UInt8], rewriting: Bool, readSize: Int) -> [String] {
        let recorder = Recorder()
        var position = 0
        let parser = XMLStreamParser(handler: recorder, rewritesAttributeValues: rewriting) { buffer in
            let count = min(buffer.count, readSize, document.count - position)
            document.withUnsafeBytes {
                buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count)
            }
            position += count
            return count
        }
        let outcome = parser.parse()
        return recorder.events + ["\(outcome)"]
    }

    static let device =
        "&lt;&lt;HKDevice: 0x2459320dd7&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
        + "hardware:Watch6,7, software:10.2&gt;&gt;"

    static let documents: [String] = [
        // As Apple writes them.
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Anna’s Apple Watch" device="\(device)" value="79">
          <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
         </Record>
         <Record sourceName='Zoë &quot;&amp;&apos; 🏃' unit="count" value="&lt;5&gt;"/>
        </HealthData>
        """,
        // Quotes and values inside comments, processing instructions and CDATA; character
        // references, white space and other entities, which are left to libxml2.
        """
        <?xml version='1.0' encoding='utf-8' standalone='yes'?>
        <!-- a="&lt;’" <Record sourceName="é"> -->
        <?pi x="&lt;’" ?>
        <Root a="&#60;é" b="tab\there" c="new
        line ü" d="&lt;" e = 'é' f="a>b ’"><![CDATA[<Record x="&lt;’"/>]]>text &lt; ’<!--->-->
         <Child g="&lt;’"/><?x?>
        </Root>
        """,
        // Namespaces and prefixed attributes are left as they are.
        """
        <?xml version="1.0"?>
        <r xmlns="urn:&lt;’" xmlns:p="urn:p&amp;é"><p:e p:a="&lt;é" xml:lang="é&lt;" b="’&gt;"/></r>
        """,
        // Malformed: errors at the same line and column.
        "<?xml version=\"1.0\"?>\n<r a=\"&lt;’\"b=\"é\"/>",
        "<?xml version=\"1.0\"?>\n<r a=\"&lt;’\" a=\"é\"/>",
        "<?xml version=\"1.0\"?>\n<r a=\"’ <\"/>",
        "<?xml version=\"1.0\"?>\n<r><e a=\"&lt;’\"/><e b=\"&lt;’",
        "<?xml version=\"1.0\"?>\n<r a=\"é&nbsp;\"/>",
        "<?xml version=\"1.0\"?>\n<r a=\"é\u{FFFE}\"/>",
        "<?xml version=\"1.0\"?>\n<r a=\"é\u{7F}\u{85}\"/>",
        "<?xml version=\"1.0\"?>\n<r><e a=\"&lt;’\"></r>",
        // Other encodings, no declaration, a DOCTYPE: read as they are.
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<r a=\"&lt;’\"/>",
        "<r a=\"&lt;’\"/>",
        "<?xml version=\"1.1\"?>\n<r a=\"&lt;’\"/>",
        """
        <?xml version="1.0"?>
        <!DOCTYPE r [<!ENTITY e "é"> <!ATTLIST r d CDATA "&lt;d’">]>
        <r a="&lt;’ &e;"/>
        """,
    ]

    @Test(arguments: documents.indices)
    func sameEventsWithAndWithoutRewriting(_ index: Int) {
        let document = Array(Self.documents[index].utf8)
        let expected = Self.parse(document, rewriting: false, readSize: 4096)
        for readSize in [1, 7, 4096] {
            #expect(Self.parse(document, rewriting: true, readSize: readSize) == expected, "read size \(readSize)")
        }
    }

    @Test func invalidUTF8IsLeftToLibxml2() {
        var document = Array("<?xml version=\"1.0\"?>\n<r a=\"&lt;".utf8)
        document += [0xC3, 0x28]
        document += Array("\"/>".utf8)
        #expect(
            Self.parse(document, rewriting: true, readSize: 4096)
                == Self.parse(document, rewriting: false, readSize: 4096))
    }

    /// Values across the parser's and libxml2's reads of the document, values around the longest
    /// rewritten, and a construct longer than the lexer reads ahead.
    @Test func largeDocument() {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData>\n"
        for index in 0..<30_000 {
            text += " <Record n=\"\(index)\" sourceName=\"Anna’s \(String(repeating: "é", count: index % 13))\" "
            text += "device=\"\(Self.device)\(String(repeating: "a", count: index % 160))\"/>\n"
        }
        text += " <Long value=\"\(String(repeating: "&lt;’", count: 20_000))\"/>\n"
        text += " <After value=\"&lt;’\"/>\n</HealthData>\n"
        let document = Array(text.utf8)
        #expect(document.count > 2 * XMLStreamParser.stagingSize)
        let expected = Self.parse(document, rewriting: false, readSize: 1 << 20)
        #expect(expected.last == "finished")
        #expect(Self.parse(document, rewriting: true, readSize: 1 << 20) == expected)
        #expect(Self.parse(document, rewriting: true, readSize: 65_537) == expected)
    }

    @Test func rewritesValuesToASCIIOfTheSameLengthInCharacters() {
        var bytes = Array("<?xml version=\"1.0\"?>\n<r a=\"&lt;’x\" b=\"plain\" c='é&amp;'/>".utf8)
        var rewriter = AttributeValueRewriter()
        let (lexed, written) = bytes.withUnsafeMutableBufferPointer {
            rewriter.rewrite($0, atEnd: true, offset: 100)
        }
        #expect(lexed == bytes.count)
        let rewritten = String(decoding: bytes[0..<written], as: UTF8.self)
        #expect(rewritten == "<?xml version=\"1.0\"?>\n<r a=\"xxxxxx\" b=\"plain\" c='xxxxxx'/>")
        let first = rewriter.takeValue(at: 100 + 28)
        #expect(first.map { String(decoding: rewriter.decoded[$0], as: UTF8.self) } == "<’x")
        #expect(rewriter.takeValue(at: 100 + 39) == nil)
        let third = rewriter.takeValue(at: 100 + 49)
        #expect(third.map { String(decoding: rewriter.decoded[$0], as: UTF8.self) } == "é&")
        #expect(!rewriter.hasRewrittenValues)
    }

    /// The handler gets the decoded values; a value libxml2 would hand over as a copy (not in its
    /// input buffer, so not found by offset) stops the restoration instead of reporting `x`s.
    @Test(arguments: [false, true])
    func restoresTheValuesOfATag(firstValueCopied: Bool) throws {
        var bytes = Array("<?xml version=\"1.0\"?>\n<r a=\"&lt;\" b=\"é\"/>".utf8)
        var rewriter = AttributeValueRewriter()
        let (_, written) = bytes.withUnsafeMutableBufferPointer { rewriter.rewrite($0, atEnd: true, offset: 0) }
        #expect(
            String(decoding: bytes[0..<written], as: UTF8.self) == "<?xml version=\"1.0\"?>\n<r a=\"xxxx\" b=\"x\"/>")
        let values: [String]? = bytes.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress!
            // Local name, prefix, URI, value start and end of `a` (at 28) and `b` (at 37).
            var attributes: [UnsafePointer<UInt8>?] = [
                base + 23, nil, nil, base + 28, base + 32, base + 34, nil, nil, base + 37, base + 38,
            ]
            return attributes.withUnsafeMutableBufferPointer { attributes in
                rewriter.restoringValues(
                    of: attributes.baseAddress!, count: 2,
                    offset: { pointer in
                        let offset = base.distance(to: pointer!)
                        return firstValueCopied && offset == 28 ? -1 : offset
                    },
                    tagEnd: { written - 2 }
                ) { restored in
                    (0..<2).map {
                        String(
                            decoding: UnsafeBufferPointer(
                                start: restored[5 * $0 + 3]!, count: restored[5 * $0 + 4]! - restored[5 * $0 + 3]!),
                            as: UTF8.self)
                    }
                }
            }
        }
        #expect(values == (firstValueCopied ? nil : ["<", "é"]))
    }
}
