/// A quick pass over an envelope line that reads its sample arrays (`added`, `samples`, and the
/// `changes` of a Health Connect page) straight into `SampleFields`, without building a JSON tree
/// for them.
///
/// The scan only handles plain input: any syntax error, duplicate key or unknown sample field
/// makes it give up (`nil`), and the decoder parses the line as a tree instead, which finds and
/// names the problem. A line the scan accepts decodes exactly as
/// its tree would (a test checks both ways on the corpus and on fuzzed lines).
package struct EnvelopeScan {
    /// The bytes scanned, which the sample fields point into.
    private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The root object, each lifted sample array standing as an empty array.
    var root = JSONObject()
    /// The fingerprints of the root's keys (`JSONReader.fingerprint`), in member order.
    private(set) var rootKeyPrints: [UInt64] = []
    /// The lifted sample arrays with their member names (an envelope has one at most).
    private var liftedSamples: [LiftedSamples] = []
    /// The room of the last scan's lifted sample array, for the next scan's.
    private var spareFields: [SampleFields] = []
    /// The member order of the last sample scanned, which the next line's first sample tries
    /// first (a client writes its samples' members in one order).
    private var sampleOrder = SampleFields.MemberOrder()

    /// A lifted sample array and its member name (a struct: see `JSONObject.Member`).
    private struct LiftedSamples {
        var key: String
        var fields: [SampleFields]
    }
    /// The lifted `changes` array of a Health Connect page.
    var changes: LiftedChanges? = nil

    /// The number of arrays the scan read as samples or changes (the rest of the line is a tree).
    package var liftedArrays: Int { liftedSamples.count + (changes == nil ? 0 : 1) }

    /// The lifted sample array of member `key`, if the scan lifted it.
    func samples(_ key: String) -> [SampleFields]? {
        liftedSamples.first { $0.key == key }?.fields
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

    /// Whether the root member `key`'s array is read as samples.
    static func holdsSamples(_ key: String) -> Bool { key == "added" || key == "samples" }

    /// An empty scan, to `rescan` lines into.
    package init() {}

    /// Scans `bytes`, or returns `nil` when the line is not plain (see the type's description).
    package static func scan(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) -> EnvelopeScan? {
        var scan = EnvelopeScan()
        return scan.rescan(bytes, maxDepth: maxDepth) ? scan : nil
    }

    /// Scans `bytes` into this scan, in the room of the one before: a decoder keeps one scan
    /// for all its lines, where a scan per line allocated its arrays and freed them (through
    /// generic value witnesses: about 2,600 instructions a line). `false` when the line is not
    /// plain; what the scan holds is then not to be read.
    package mutating func rescan(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) -> Bool {
        self.bytes = bytes
        root.members.removeAll(keepingCapacity: true)
        rootKeyPrints.removeAll(keepingCapacity: true)
        while let lifted = liftedSamples.popLast() { spareFields = lifted.fields }
        changes = nil
        guard let base = bytes.baseAddress, bytes.count > 0 else { return false }
        // The root object is one level; the tree parser counts it, so nested values get one less.
        var reader = JSONReader(base: base, count: bytes.count, maxDepth: maxDepth - 1)
        do throws(JSONReadFailure) {
            return try scanRoot(&reader)
        } catch {
            return false
        }
    }

    private mutating func scanRoot(_ reader: inout JSONReader) throws(JSONReadFailure) -> Bool {
        if reader.count >= 3, reader.byte(0) == 0xEF { return false }
        reader.skipWhitespace()
        guard reader.next(is: 0x7B) else { return false }  // {
        // Room for an envelope's usual members at once: growing from one by doubling copied
        // them three or four times.
        root.members.reserveCapacity(8)
        rootKeyPrints.reserveCapacity(8)
        reader.skipWhitespace()
        if !reader.next(is: 0x7D) {  // }
            repeat {
                reader.skipWhitespace()
                guard reader.index < reader.count, reader.byte(reader.index) == 0x22 else { return false }
                // Keys are compared by a fingerprint of their bytes first: comparing each new
                // key's string with every earlier one cost more than reading the members.
                let (key, print) = try reader.parseKey()
                guard
                    !rootKeyPrints.indices.contains(where: {
                        rootKeyPrints[$0] == print && root.members[$0].key.hasSameUTF8(as: key)
                    })
                else { return false }
                rootKeyPrints.append(print)
                reader.skipWhitespace()
                guard reader.next(is: 0x3A) else { return false }  // :
                reader.skipWhitespace()
                let isArray = reader.index < reader.count && reader.byte(reader.index) == 0x5B
                if isArray, Self.holdsSamples(key) {
                    var samples = spareFields.takeEmptied()
                    guard try Self.scanSamples(&reader, into: &samples, order: &sampleOrder) else {
                        spareFields = samples
                        return false
                    }
                    liftedSamples.append(LiftedSamples(key: key, fields: samples))
                    root.members.append(JSONObject.Member(key: key, value: .array([])))
                } else if isArray, key == "changes" {
                    guard let changes = try Self.scanChanges(&reader, order: &sampleOrder) else { return false }
                    self.changes = changes
                    root.members.append(JSONObject.Member(key: key, value: .array([])))
                } else {
                    root.members.append(JSONObject.Member(key: key, value: try reader.parseTree()))
                }
                reader.skipWhitespace()
            } while try reader.nextSeparator(close: 0x7D)
        }
        reader.skipWhitespace()
        return reader.index == reader.count
    }

    /// Reads an array of sample objects into `samples` (empty, its room reused: taken as an
    /// argument and copied, it was not unique, so each scan allocated it again); `false` when it
    /// is anything else, or when a sample repeats a member or has one that is not a sample field.
    /// `order` is the member order the next sample tries first (see `SampleFields.read`).
    private static func scanSamples(
        _ reader: inout JSONReader, into samples: inout [SampleFields], order: inout SampleFields.MemberOrder
    ) throws(JSONReadFailure) -> Bool {
        reader.index &+= 1  // [
        // As for the root's members: most envelopes hold a few samples.
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
        _ reader: inout JSONReader, openLevels: Int, order: inout SampleFields.MemberOrder,
        to samples: inout [SampleFields]
    ) throws(JSONReadFailure) -> Bool {
        samples.append(SampleFields())
        let last = samples.count - 1
        return try SampleFields.read(&reader, openLevels: openLevels, order: &order, into: &samples[last])
            && samples[last].unknownKey == nil
    }

    /// Reads a `changes` array whose every element is `{"upsertion": {sample}}` or
    /// `{"deletion": {"recordId": "id"}}`; `nil` when it is anything else (the tree path then
    /// names what is wrong).
    private static func scanChanges(_ reader: inout JSONReader, order: inout SampleFields.MemberOrder)
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

extension Array {
    /// This array's storage, emptied, leaving an empty array in its place: how a buffer kept
    /// from one use to the next is taken (and put back when done), so that each use allocates
    /// nothing once the buffer has grown.
    fileprivate mutating func takeEmptied() -> [Element] {
        var taken: [Element] = []
        swap(&taken, &self)
        taken.removeAll(keepingCapacity: true)
        return taken
    }
}
