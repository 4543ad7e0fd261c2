/// Blanks the `<!DOCTYPE …>` declaration in the prolog of an XML document.
///
/// Why: the importer needs nothing from the DTD Apple writes at the top of `export.xml` (it
/// declares no entities the data uses and no defaults the importer reads), and parsing it only
/// adds risk. With the declaration gone, no entity but the five predefined ones and character
/// references can ever be expanded, whatever the prolog declares (no entity expansion attack, no
/// external entity), no attribute gets a DTD default, and an internal subset that is malformed
/// (reported for some iOS versions; every DTD in our sample exports parses) cannot fail the
/// import. History: FoundationXML's `XMLParser`, used before libxml2 directly, crashed on Linux on
/// every `<!ATTLIST>` without a default value. The declaration is overwritten with spaces before
/// the parser sees it. Newlines are kept and every other byte becomes one space, so line *and*
/// column numbers of everything after it are unchanged.
///
/// Only the prolog is touched: scanning stops at the root element's `<`. Comments and processing
/// instructions are skipped over; inside the declaration, quoted strings, comments and the
/// `[` … `]` internal subset are honoured when looking for its closing `>`.
enum DoctypeBlanker {
    /// The outcome of scanning a document's first bytes.
    enum Scan: Equatable {
        /// The bytes end inside the prolog: read more and scan again.
        case needMore
        /// The prolog is complete: the root element starts at `rootIndex`. `blanked` is the
        /// range of the DOCTYPE declaration, if there was one.
        case complete(rootIndex: Int, blanked: Range<Int>?)
    }

    /// Scans the beginning of a document for the prolog's end and its DOCTYPE.
    ///
    /// - Parameter bytes: the document's first bytes (UTF-8 or ASCII-compatible).
    /// - Returns: `.needMore` when the prolog does not end within `bytes`.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
        var index = 0
        var doctype: Range<Int>?
        let count = bytes.count
        func hasPrefix(_ literal: StaticString, at position: Int) -> Bool? {
            let length = literal.utf8CodeUnitCount
            guard position + length <= count else {
                // Not decidable yet when the available bytes agree so far.
                let available = count - position
                for offset in 0..<available
                where bytes[position + offset] != literal.utf8Start[offset] {
                    return false
                }
                return nil
            }
            for offset in 0..<length where bytes[position + offset] != literal.utf8Start[offset] {
                return false
            }
            return true
        }
        func find(_ literal: StaticString, from position: Int) -> Int? {
            var position = position
            while position < count {
                if hasPrefix(literal, at: position) == true { return position }
                position += 1
            }
            return nil
        }
        while true {
            while index < count, bytes[index] != UInt8(ascii: "<") { index += 1 }
            guard index + 1 < count else { return .needMore }
            switch bytes[index + 1] {
            case UInt8(ascii: "?"):
                guard let end = find("?>", from: index + 2) else { return .needMore }
                index = end + 2
            case UInt8(ascii: "!"):
                if let isComment = hasPrefix("<!--", at: index), isComment {
                    guard let end = find("-->", from: index + 4) else { return .needMore }
                    index = end + 3
                    continue
                }
                guard let isDoctype = hasPrefix("<!DOCTYPE", at: index) else { return .needMore }
                guard isDoctype else {
                    // Not a construct allowed in a prolog; let the parser report it.
                    return .complete(rootIndex: index, blanked: doctype)
                }
                guard let end = declarationEnd(bytes, from: index + 9) else { return .needMore }
                doctype = index..<end
                index = end
            default:
                return .complete(rootIndex: index, blanked: doctype)
            }
        }
    }

    /// The index just past the `>` that closes a DOCTYPE declaration, or `nil` when it is not
    /// within `bytes`.
    private static func declarationEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        var quote: UInt8?
        var inComment = false
        var depth = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if inComment {
                if byte == UInt8(ascii: "-"), index + 2 < count,
                    bytes[index + 1] == UInt8(ascii: "-"),
                    bytes[index + 2] == UInt8(ascii: ">")
                {
                    inComment = false
                    index += 3
                    continue
                }
            } else if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "<"), index + 3 < count,
                bytes[index + 1] == UInt8(ascii: "!"),
                bytes[index + 2] == UInt8(ascii: "-"), bytes[index + 3] == UInt8(ascii: "-")
            {
                inComment = true
                index += 4
                continue
            } else {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
                case UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ">") where depth <= 0: return index + 1
                default: break
                }
            }
            index += 1
        }
        return nil
    }

    /// Overwrites a range with spaces, keeping line breaks.
    ///
    /// - Parameters:
    ///   - bytes: the buffer.
    ///   - range: the range to blank.
    static func blank(_ bytes: inout [UInt8], _ range: Range<Int>) {
        for index in range
        where bytes[index] != UInt8(ascii: "\n") && bytes[index] != UInt8(ascii: "\r") {
            bytes[index] = UInt8(ascii: " ")
        }
    }
}
