/// A quick pass over an envelope line that reads its root's members as spans (`RootFields`)
/// and its sample arrays (`added`, `samples`, and the `changes` of a Health Connect page)
/// straight into `SampleFields`, without building a JSON tree for them.
///
/// The scan gives up (`false`) on what only a full parse tells apart: a syntax error, a key
/// that repeats, or a second member that is no field (it might repeat the first). The decoder
/// then parses the line as a tree, which names the problem, or, when the line is valid JSON,
/// writes the tree back and scans that text, whose keys are known to be unique. A sample array
/// or `changes` list of any other shape than the plain one is left as a span, and the decoder
/// reads it as a tree. A line decodes the same either way (a test checks both on the corpus
/// and on fuzzed lines).
package struct EnvelopeScan {
    /// The bytes scanned, which the fields point into.
    private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The root's members; a lifted array's span is its whole text, read through
    /// `samples(_:)` or `changes` instead.
    private(set) var root = RootFields()
    /// The root's member order on the last line, which the next line tries first.
    private var rootOrder = MemberOrder<RootFields.Field>()
    /// The lifted sample array, whose room the next line reuses.
    private var sampleFields: [SampleFields] = []
    /// The member whose array `sampleFields` holds (an envelope has one at most).
    private var liftedSamples: RootFields.Field? = nil
    /// The member order of the last sample scanned, which the next line's first sample tries
    /// first (a client writes its samples' members in one order).
    private var sampleOrder = MemberOrder<SampleFields.Field>()
    /// The lifted `changes` array of a Health Connect page.
    private(set) var changes: LiftedChanges? = nil

    /// The number of arrays the scan read as samples or changes (the rest of the line is spans).
    package var liftedArrays: Int { (liftedSamples == nil ? 0 : 1) + (changes == nil ? 0 : 1) }

    /// The lifted sample array of member `field`, if the scan lifted it.
    func samples(_ field: RootFields.Field) -> [SampleFields]? {
        liftedSamples == field ? sampleFields : nil
    }

    /// The elements of a lifted `changes` array, in order; the upsertions' fields are kept apart
    /// so that going through the changes copies none of them.
    struct LiftedChanges {
        enum Change {
            /// The change's sample is `upsertions[index]`.
            case upsertion(index: Int)
            /// The span of the deleted record's id, a plain string.
            case deletion(recordId: JSONSpan)
        }

        var changes: [Change] = []
        var upsertions: [SampleFields] = []
    }

    /// An empty scan, to `rescan` lines into.
    package init() {}

    /// Scans `bytes`, or returns `nil` when the scan gives up (see the type's description).
    package static func scan(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) -> EnvelopeScan? {
        var scan = EnvelopeScan()
        return scan.rescan(bytes, maxDepth: maxDepth) ? scan : nil
    }

    /// Scans `bytes` into this scan, in the room of the one before: a decoder keeps one scan
    /// for all its lines, where a scan per line allocated its arrays and freed them (through
    /// generic value witnesses: about 2,600 instructions a line). `false` when the scan gives
    /// up; what the scan holds is then not to be read.
    /// - Parameter keysUnique: the bytes are known to repeat no key in any object (JSON written
    ///   back from a parsed tree), so members that are no field need not be compared.
    package mutating func rescan(_ bytes: UnsafeRawBufferPointer, maxDepth: Int, keysUnique: Bool = false) -> Bool {
        self.bytes = bytes
        root = RootFields()
        sampleFields.removeAll(keepingCapacity: true)
        liftedSamples = nil
        changes = nil
        guard let base = bytes.baseAddress, bytes.count > 0 else { return false }
        // The root object is one level; the tree parser counts it, so nested values get one less.
        var reader = JSONReader(base: base, count: bytes.count, maxDepth: maxDepth - 1)
        do throws(JSONReadFailure) {
            return try scanRoot(&reader, keysUnique: keysUnique)
        } catch {
            return false
        }
    }

    private mutating func scanRoot(_ reader: inout JSONReader, keysUnique: Bool) throws(JSONReadFailure) -> Bool {
        if reader.count >= 3, reader.byte(0) == 0xEF { return false }
        reader.skipWhitespace()
        guard reader.next(is: 0x7B) else { return false }  // {
        reader.skipWhitespace()
        if !reader.next(is: 0x7D) {  // }
            var place = 0
            repeat {
                reader.skipWhitespace()
                guard reader.index < reader.count, reader.byte(reader.index) == 0x22 else { return false }
                let field: RootFields.Field?
                var key = JSONSpan()
                if let expected = rootOrder[place], reader.quotedName(expected.literal) != nil {
                    field = expected
                } else {
                    key = try reader.span(openLevels: 0)
                    if key.kind == .string {
                        field = RootFields.Field(name: key.text(in: reader.bytes))
                    } else {
                        // A key with escapes: its unescaped bytes name the member.
                        guard case .string(let name) = key.value(in: reader.bytes) else { return false }
                        field = name.withRawUTF8 { RootFields.Field(name: $0) }
                    }
                    rootOrder[place] = field
                }
                reader.skipWhitespace()
                guard reader.next(is: 0x3A) else { return false }  // :
                reader.skipWhitespace()
                if let field {
                    guard root.set(field, try memberValue(&reader, field), place: place) else { return false }
                } else {
                    // A second unknown member might repeat the first: the tree tells.
                    guard keysUnique || root.unknownCount == 0 else { return false }
                    _ = try reader.span(openLevels: 0)
                    root.noteUnknown(key, place: place)
                }
                place += 1
                reader.skipWhitespace()
            } while try reader.nextSeparator(close: 0x7D)
        }
        reader.skipWhitespace()
        return reader.index == reader.count
    }

    /// The span of the value of root member `field` at the reader, lifting a plain sample array
    /// or `changes` list into `sampleFields` or `changes`.
    private mutating func memberValue(_ reader: inout JSONReader, _ field: RootFields.Field) throws(JSONReadFailure)
        -> JSONSpan
    {
        let start = reader.index
        if reader.index < reader.count, reader.byte(reader.index) == 0x5B {  // [
            if field == .added || field == .samples, liftedSamples == nil {
                if try Self.scanSamples(&reader, into: &sampleFields, order: &sampleOrder) {
                    liftedSamples = field
                    return JSONSpan(kind: .other, start: Int32(start), end: Int32(reader.index))
                }
                sampleFields.removeAll(keepingCapacity: true)
            } else if field == .changes {
                if let changes = try Self.scanChanges(&reader, order: &sampleOrder) {
                    self.changes = changes
                    return JSONSpan(kind: .other, start: Int32(start), end: Int32(reader.index))
                }
            }
            // Another shape: the decoder reads the array as a tree, and names what is wrong.
            reader.index = start
        }
        return try reader.span(openLevels: 0)
    }

    /// Reads an array of sample objects into `samples` (empty, with the room of the line before);
    /// `false` when it is anything else, or when a sample repeats a member or has one that is not
    /// a sample field.
    /// `order` is the member order the next sample tries first (see `SampleFields.read`).
    private static func scanSamples(
        _ reader: inout JSONReader, into samples: inout [SampleFields], order: inout MemberOrder<SampleFields.Field>
    ) throws(JSONReadFailure) -> Bool {
        reader.index &+= 1  // [
        // Most envelopes hold a few samples: growing from one by doubling copied them three or four times.
        samples.reserveCapacity(8)
        reader.skipWhitespace()
        if reader.next(is: 0x5D) { return true }  // ]
        repeat {
            reader.skipWhitespace()
            guard reader.index < reader.count, reader.byte(reader.index) == 0x7B,  // {
                try appendSample(&reader, openLevels: 2, order: &order, to: &samples)
            else { return false }
            reader.skipWhitespace()
        } while try reader.nextSeparator(close: 0x5D)
        return true
    }

    /// Appends the sample object at the reader (its `{`) to `samples`, read in place (see
    /// `SampleFields.read`); `false` when it repeats a member or has one that is not a sample
    /// field.
    @inline(__always)
    private static func appendSample(
        _ reader: inout JSONReader, openLevels: Int, order: inout MemberOrder<SampleFields.Field>,
        to samples: inout [SampleFields]
    ) throws(JSONReadFailure) -> Bool {
        samples.append(SampleFields())
        let last = samples.count - 1
        return try SampleFields.read(&reader, openLevels: openLevels, order: &order, into: &samples[last])
            && samples[last].unknownKey == nil
    }

    /// Reads a `changes` array whose every element is `{"upsertion": {sample}}` or
    /// `{"deletion": {"recordId": "id"}}`; `nil` when it is anything else (the decoder then reads
    /// it as a tree, which names what is wrong).
    private static func scanChanges(_ reader: inout JSONReader, order: inout MemberOrder<SampleFields.Field>)
        throws(JSONReadFailure) -> LiftedChanges?
    {
        reader.index &+= 1  // [
        var changes = LiftedChanges()
        reader.skipWhitespace()
        if reader.next(is: 0x5D) { return changes }  // ]
        repeat {
            reader.skipWhitespace()
            guard reader.next(is: 0x7B) else { return nil }  // {
            reader.skipWhitespace()
            if reader.quotedName("upsertion") != nil {
                guard reader.nextColon(), reader.index < reader.count, reader.byte(reader.index) == 0x7B else {
                    return nil
                }
                changes.changes.append(.upsertion(index: changes.upsertions.count))
                guard try appendSample(&reader, openLevels: 3, order: &order, to: &changes.upsertions) else {
                    return nil
                }
            } else if reader.quotedName("deletion") != nil {
                guard reader.nextColon(), reader.next(is: 0x7B) else { return nil }
                reader.skipWhitespace()
                guard reader.quotedName("recordId") != nil, reader.nextColon() else { return nil }
                let id = try reader.span(openLevels: 3)
                guard id.kind == .string else { return nil }
                reader.skipWhitespace()
                guard reader.next(is: 0x7D) else { return nil }  // }
                changes.changes.append(.deletion(recordId: id))
            } else {
                return nil
            }
            reader.skipWhitespace()
            guard reader.next(is: 0x7D) else { return nil }  // }
            reader.skipWhitespace()
        } while try reader.nextSeparator(close: 0x5D)
        return changes
    }
}

extension JSONReader {
    /// Consumes whitespace, a `:` and whitespace; `false` when there is no colon.
    fileprivate mutating func nextColon() -> Bool {
        skipWhitespace()
        guard next(is: 0x3A) else { return false }
        skipWhitespace()
        return true
    }
}
