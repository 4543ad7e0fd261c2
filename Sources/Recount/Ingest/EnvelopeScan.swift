/// A quick pass over an envelope line that reads its sample arrays (`added`, `samples`) straight
/// into `SampleFields`, without building a JSON tree for them.
///
/// The scan only handles plain input: any syntax error, duplicate key or unknown sample field
/// makes it give up (`nil`), and the decoder parses the line as a tree instead, which finds and
/// names the problem. A line the scan accepts decodes exactly as
/// its tree would (a test checks both ways on the corpus and on fuzzed lines).
package struct EnvelopeScan {
    /// The bytes scanned, which the sample fields point into.
    let bytes: UnsafeRawBufferPointer
    /// The root object, each lifted sample array standing as an empty array.
    var root = JSONObject()
    /// The lifted sample arrays by member name.
    var samples: [String: [SampleFields]] = [:]

    /// Root members whose arrays are read as samples.
    static let sampleArrays: Set<String> = ["added", "samples"]

    /// Scans `bytes`, or returns `nil` when the line is not plain (see the type's description).
    package static func scan(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) -> EnvelopeScan? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        // The root object is one level; the tree parser counts it, so nested values get one less.
        var reader = JSONReader(base: base, count: bytes.count, maxDepth: maxDepth - 1)
        do throws(JSONReadFailure) {
            return try scanRoot(&reader)
        } catch {
            return nil
        }
    }

    private static func scanRoot(_ reader: inout JSONReader) throws(JSONReadFailure) -> EnvelopeScan? {
        if reader.count >= 3, reader.byte(0) == 0xEF { return nil }
        reader.skipWhitespace()
        guard reader.next(is: 0x7B) else { return nil }  // {
        var scan = EnvelopeScan(bytes: reader.bytes)
        reader.skipWhitespace()
        if !reader.next(is: 0x7D) {  // }
            repeat {
                reader.skipWhitespace()
                guard reader.index < reader.count, reader.byte(reader.index) == 0x22 else { return nil }
                let key = try reader.parseString()
                guard !scan.root.members.contains(where: { $0.key.hasSameUTF8(as: key) }) else { return nil }
                reader.skipWhitespace()
                guard reader.next(is: 0x3A) else { return nil }  // :
                reader.skipWhitespace()
                if sampleArrays.contains(key), reader.index < reader.count, reader.byte(reader.index) == 0x5B {
                    guard let samples = try scanSamples(&reader) else { return nil }
                    scan.samples[key] = samples
                    scan.root.members.append((key: key, value: .array([])))
                } else {
                    scan.root.members.append((key: key, value: try reader.parseTree()))
                }
                reader.skipWhitespace()
            } while try reader.nextSeparator(close: 0x7D)
        }
        reader.skipWhitespace()
        return reader.index == reader.count ? scan : nil
    }

    /// Reads an array of sample objects; `nil` when it is anything else, or when a sample
    /// repeats a member or has one that is not a sample field.
    private static func scanSamples(_ reader: inout JSONReader) throws(JSONReadFailure) -> [SampleFields]? {
        reader.index &+= 1  // [
        var samples: [SampleFields] = []
        var order = SampleFields.MemberOrder()
        reader.skipWhitespace()
        if reader.next(is: 0x5D) { return samples }  // ]
        repeat {
            reader.skipWhitespace()
            guard reader.index < reader.count, reader.byte(reader.index) == 0x7B,  // {
                let fields = try SampleFields.read(&reader, openLevels: 2, order: &order), fields.unknownKey == nil
            else { return nil }
            samples.append(fields)
            reader.skipWhitespace()
        } while try reader.nextSeparator(close: 0x5D)
        return samples
    }
}
