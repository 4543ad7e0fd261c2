internal import CXML2
internal import Glibc

/// Receives the element events of an `XMLStreamParser`, in document order.
protocol XMLStreamHandler: AnyObject {
    /// An element started.
    /// - Parameter tag: the start tag; its bytes are valid only during the call.
    /// - Returns: `false` to stop parsing there.
    func startElement(_ tag: XMLStartTag) -> Bool

    /// The innermost open element ended.
    /// - Returns: `false` to stop parsing there.
    func endElement() -> Bool
}

/// A start tag as libxml2 hands it over: names and attribute values as UTF-8 bytes in the
/// parser's buffers, with entity and character references already decoded. Valid only during
/// `XMLStreamHandler.startElement`.
struct XMLStartTag {
    /// The element's local name, NUL-terminated.
    fileprivate let localName: UnsafePointer<UInt8>
    /// Its namespace prefix, if any.
    fileprivate let prefix: UnsafePointer<UInt8>?
    /// Five pointers per attribute: local name, prefix, URI, value start, value end.
    fileprivate let attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    /// How many attributes.
    let attributeCount: Int
    /// The line the parser is on at the end of the start tag (1-based).
    let line: Int
    /// The column the parser is on at the end of the start tag (1-based).
    let column: Int

    /// Whether the element's name, without a prefix, is `name`.
    func isNamed(_ name: StaticString) -> Bool {
        prefix == nil && Self.equal(localName, name)
    }

    /// The qualified name (`prefix:local`), for messages.
    var qualifiedName: String {
        let local = String(cString: localName)
        guard let prefix else { return local }
        return String(cString: prefix) + ":" + local
    }

    /// The value of the unprefixed attribute `name`, or `nil` when the tag has none.
    func attribute(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        for index in 0..<attributeCount where Self.equal(attributeName(index), name) {
            if attributePrefixed(index) { continue }
            return attributeValue(index)
        }
        return nil
    }

    /// The value of the unprefixed attribute `name` as a string.
    func string(_ name: StaticString) -> String? {
        attribute(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The local name of the attribute at `index` (NUL-terminated).
    func attributeName(_ index: Int) -> UnsafePointer<UInt8> {
        attributes![5 &* index]!
    }

    /// Whether the attribute at `index` has a namespace prefix (then it is never one of the
    /// export's own attributes).
    func attributePrefixed(_ index: Int) -> Bool {
        attributes![5 &* index &+ 1] != nil
    }

    /// The value of the attribute at `index`.
    func attributeValue(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = attributes![5 &* index &+ 3]!
        let end = attributes![5 &* index &+ 4]!
        return UnsafeBufferPointer(start: start, count: end - start)
    }

    /// Whether bytes equal a literal.
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let expected = literal.utf8Start
        for offset in 0..<count where bytes[offset] != expected[offset] { return false }
        return true
    }

    /// Whether a NUL-terminated name equals a literal.
    static func equal(_ name: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        let bytes = literal.utf8Start
        for offset in 0..<count where name[offset] != bytes[offset] { return false }
        return name[count] == 0
    }
}

/// A streaming XML parser over libxml2's SAX2 interface: the only door to libxml2.
///
/// Bytes come from a read closure (a file, standard input, a zip entry) a megabyte at a time and
/// are handed to libxml2 in its own small reads, after `AttributeValueRewriter` has made the
/// attribute values libxml2 would decode slowly ASCII (the values reported are the decoded ones,
/// as libxml2 would have made them); the parser keeps only that megabyte and libxml2 its input
/// window, so memory stays flat however large the document. Only element starts and ends are reported: no tree is built, text is skipped, DTD
/// declarations are neither stored nor applied, no external entity or DTD is ever loaded
/// (`XML_PARSE_NONET`, no entity substitution), and an entity reference the document does not
/// declare is a well-formedness error. Line and column numbers are libxml2's parser position,
/// which for a start tag is its end (the same numbers FoundationXML's `XMLParser` reported).
///
/// Why SAX2 rather than libxml2's `xmlTextReader`: the reader builds (and frees) a node per
/// element and records element lines in 16 bits, so lines past 65 535 would be wrong in the
/// report; the SAX2 callbacks hand over the attribute values in place and the exact position.
final class XMLStreamParser {
    /// The first error that stopped parsing.
    struct Failure: Equatable {
        /// Line of the parser when it failed (1-based).
        var line: Int
        /// Column of the parser when it failed (1-based).
        var column: Int
        /// libxml2's error number (`xmlParserErrors`).
        var code: Int
    }

    /// How a parse ended.
    enum Outcome: Equatable {
        /// The document was read to its end and is well-formed.
        case finished
        /// The handler asked to stop.
        case stopped
        /// The document is not well-formed (or the read closure failed: see `read`).
        case failed(Failure)
    }

    /// Bytes of the document read at a time.
    static let stagingSize = 1 << 20

    /// Reads the document's next bytes.
    private let read: (UnsafeMutableRawBufferPointer) -> Int
    /// Receives the events. A constant, so the callbacks, once per element, use it without
    /// retaining and releasing it.
    private let handler: any XMLStreamHandler
    /// The parser context during `parse`.
    private var context: xmlParserCtxtPtr?
    /// The first error.
    private var failure: Failure?
    /// Whether the handler stopped the parse.
    private var stopped = false
    /// Whether attribute values are rewritten on their way to libxml2.
    private let rewritesAttributeValues: Bool
    /// Rewrites the bytes read and keeps the values it rewrote.
    private var rewriter = AttributeValueRewriter()
    /// Bytes read: rewritten ones, then ones not lexed yet.
    private var staging: [UInt8] = []
    /// The rewritten bytes of `staging` not yet handed to libxml2.
    private var ready = 0..<0
    /// The bytes of `staging` not lexed yet (a construct that may go on in the next bytes).
    private var pending = 0..<0
    /// Whether `read` reported the end.
    private var reachedEnd = false
    /// Where `staging` starts in the rewritten document libxml2 reads.
    private var stagingOffset = 0

    /// Creates a parser.
    /// - Parameters:
    ///   - handler: receives the events.
    ///   - rewritesAttributeValues: `false` to hand libxml2 the bytes as read (for tests that
    ///     compare the two).
    ///   - read: fills a buffer (of up to `stagingSize` bytes) with the document's next bytes and
    ///     returns how many it wrote; 0 at the end. A read error should be kept by the caller and
    ///     reported as 0: the parse then fails with a premature end, which the caller replaces by
    ///     the read error.
    init(
        handler: any XMLStreamHandler, rewritesAttributeValues: Bool = true,
        read: @escaping (UnsafeMutableRawBufferPointer) -> Int
    ) {
        self.handler = handler
        self.rewritesAttributeValues = rewritesAttributeValues
        self.read = read
    }

    /// Parses the whole document, reporting elements to the handler.
    /// - Returns: how the parse ended.
    func parse() -> Outcome {
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard
            let context = xmlCreateIOParserCtxt(
                nil, nil,
                { me, buffer, length in
                    guard let me, let buffer, length > 0 else { return 0 }
                    return XMLStreamParser.borrowing(me) {
                        Int32($0.supply(UnsafeMutableRawBufferPointer(start: buffer, count: Int(length))))
                    }
                }, nil, me, XML_CHAR_ENCODING_NONE)
        else {
            return .failed(Failure(line: 1, column: 1, code: Int(XML_ERR_NO_MEMORY.rawValue)))
        }
        defer {
            xmlFreeParserCtxt(context)
            self.context = nil
        }
        self.context = context
        failure = nil
        stopped = false
        rewriter = AttributeValueRewriter(
            enabled: rewritesAttributeValues
                && AttributeValueRewriter.supports(libxml2Version: Int(recount_xml_runtime_version())))
        staging = [UInt8](repeating: 0, count: Self.stagingSize)
        defer { staging = [] }
        ready = 0..<0
        pending = 0..<0
        reachedEnd = false
        stagingOffset = 0
        recount_xml_use_handler(
            context, me,
            { me, localName, prefix, _, _, _, attributeCount, _, attributes in
                guard let me, let localName else { return }
                XMLStreamParser.borrowing(me) { $0.started(localName, prefix, attributes, Int(attributeCount)) }
            },
            { me, _, _, _ in
                guard let me else { return }
                XMLStreamParser.borrowing(me) { $0.ended() }
            },
            { me, error in
                guard let me, let error else { return }
                XMLStreamParser.borrowing(me) { $0.failed(error.pointee) }
            })
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOENT.rawValue))
        _ = xmlParseDocument(context)
        if stopped { return .stopped }
        if let failure { return .failed(failure) }
        guard recount_xml_well_formed(context) != 0 else {
            return .failed(
                Failure(
                    line: recount_xml_line(context), column: recount_xml_column(context),
                    code: Int(XML_ERR_DOCUMENT_END.rawValue)))
        }
        return .finished
    }

    /// Runs `body` on the parser a callback's context pointer stands for, borrowed: the parser
    /// outlives the parse, so a callback (two per element) need not retain and release it.
    private static func borrowing<Result>(
        _ me: UnsafeMutableRawPointer, _ body: (XMLStreamParser) -> Result
    ) -> Result {
        Unmanaged<XMLStreamParser>.fromOpaque(me)._withUnsafeGuaranteedRef(body)
    }

    /// Fills libxml2's buffer with the document's next rewritten bytes.
    /// - Returns: how many bytes were written; 0 at the end.
    private func supply(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        while ready.isEmpty {
            if reachedEnd && pending.isEmpty { return 0 }
            stage()
        }
        let count = min(buffer.count, ready.count)
        staging.withUnsafeBytes { staging in
            buffer.baseAddress!.copyMemory(from: staging.baseAddress! + ready.lowerBound, byteCount: count)
        }
        ready = (ready.lowerBound + count)..<ready.upperBound
        return count
    }

    /// Reads the document's next bytes after the pending ones and rewrites what can be.
    private func stage() {
        stagingOffset += ready.upperBound
        let kept = pending.count
        let filled = staging.withUnsafeMutableBufferPointer { staging in
            let base = staging.baseAddress!
            memmove(base, base + pending.lowerBound, kept)
            guard !reachedEnd else { return kept }
            let count = read(UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: staging[kept...])))
            if count <= 0 { reachedEnd = true }
            return kept + max(0, count)
        }
        let (lexed, written) = staging.withUnsafeMutableBufferPointer { staging in
            rewriter.rewrite(
                UnsafeMutableBufferPointer(rebasing: staging[0..<filled]), atEnd: reachedEnd, offset: stagingOffset)
        }
        ready = 0..<written
        pending = lexed..<filled
    }

    /// Hands a start tag to the handler, with the decoded bytes of its rewritten values; stops
    /// the parser when the handler asks to.
    private func started(
        _ localName: UnsafePointer<UInt8>, _ prefix: UnsafePointer<UInt8>?,
        _ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ attributeCount: Int
    ) {
        guard let context, !stopped else { return }
        let line = recount_xml_line(context)
        let column = recount_xml_column(context)
        if let attributes {
            // One access to the rewriter for the whole tag (each is checked at run time).
            let reported: Void? = rewriter.restoringValues(
                of: attributes, count: attributeCount, offset: { recount_xml_input_offset(context, $0) },
                tagEnd: { Int(xmlByteConsumed(context)) }
            ) { restored in
                report(
                    XMLStartTag(
                        localName: localName, prefix: prefix, attributes: restored, attributeCount: attributeCount,
                        line: line, column: column))
            }
            if reported == nil {
                failure = Failure(line: line, column: column, code: Int(XML_ERR_INTERNAL_ERROR.rawValue))
                xmlStopParser(context)
            }
            return
        }
        report(
            XMLStartTag(
                localName: localName, prefix: prefix, attributes: attributes, attributeCount: attributeCount,
                line: line, column: column))
    }

    /// Hands a start tag to the handler; stops the parser when it asks to.
    private func report(_ tag: XMLStartTag) {
        guard let context else { return }
        if !handler.startElement(tag) {
            stopped = true
            xmlStopParser(context)
        }
    }

    /// Tells the handler an element ended; stops the parser when it asks to.
    private func ended() {
        guard let context, !stopped else { return }
        if !handler.endElement() {
            stopped = true
            xmlStopParser(context)
        }
    }

    /// Keeps the first error (warnings are ignored) and stops the parser.
    private func failed(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue, failure == nil, !stopped, let context else { return }
        failure = Failure(line: recount_xml_line(context), column: recount_xml_column(context), code: Int(error.code))
        xmlStopParser(context)
    }
}
