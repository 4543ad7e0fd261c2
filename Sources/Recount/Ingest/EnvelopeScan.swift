import Glibc

/// A quick pass over an envelope line that reads its sample arrays (`added`, `samples`) straight
/// into `SampleFields`, without building a JSON tree for them.
///
/// The scan only handles plain input: any syntax error, duplicate key, unknown sample field or
/// nested value inside a sample makes it give up (`nil`), and the decoder parses the line as a
/// tree instead, which finds and names the problem. A line the scan accepts decodes exactly as
/// its tree would (a test checks both ways on the corpus and on fuzzed lines).
package struct EnvelopeScan {
    /// The root object, each lifted sample array standing as an empty array.
    var root: JSONObject
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
        var scan = EnvelopeScan(root: JSONObject())
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
                    guard let samples = try scanSamples(&reader, array: key) else { return nil }
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

    /// Reads an array of flat sample objects; `nil` when it is anything else.
    private static func scanSamples(_ reader: inout JSONReader, array: String) throws(JSONReadFailure)
        -> [SampleFields]?
    {
        reader.index &+= 1  // [
        var samples: [SampleFields] = []
        var repeats = RepeatedStrings()
        reader.skipWhitespace()
        if reader.next(is: 0x5D) { return samples }  // ]
        repeat {
            reader.skipWhitespace()
            guard reader.next(is: 0x7B) else { return nil }  // {
            var fields = SampleFields(path: ElementPath(array: array, index: samples.count))
            reader.skipWhitespace()
            if !reader.next(is: 0x7D) {
                repeat {
                    reader.skipWhitespace()
                    guard reader.index < reader.count, reader.byte(reader.index) == 0x22 else { return nil }
                    let keyStart = reader.index &+ 1
                    guard let keyEnd = try reader.scanString(),
                        let field = SampleFields.Field(
                            name: UnsafeRawBufferPointer(start: reader.base + keyStart, count: keyEnd &- keyStart))
                    else { return nil }
                    reader.skipWhitespace()
                    guard reader.next(is: 0x3A) else { return nil }
                    reader.skipWhitespace()
                    guard reader.index < reader.count else { return nil }
                    let value: JSONValue
                    switch reader.byte(reader.index) {
                    case 0x22:
                        if let slot = field.repeatSlot {
                            value = try repeats.string(&reader, slot: slot)
                        } else {
                            value = .string(try reader.parseString())
                        }
                    case 0x2D, 0x30...0x39: value = .number(try reader.parseNumber())
                    case 0x74, 0x66, 0x6E: value = try reader.parseTree()  // true false null
                    default: return nil  // nested values go the tree's way
                    }
                    guard fields.set(field, value) else { return nil }
                    reader.skipWhitespace()
                } while try reader.nextSeparator(close: 0x7D)
            }
            samples.append(fields)
            reader.skipWhitespace()
        } while try reader.nextSeparator(close: 0x5D)
        return samples
    }
}

/// The last text of each repeating sample field (type, origin, unit, device, zone), so a
/// sample that repeats its predecessor's bytes reuses its string instead of allocating one.
private struct RepeatedStrings {
    private var offsets = [Int](repeating: 0, count: 5)
    private var counts = [Int](repeating: -1, count: 5)
    private var values = [JSONValue](repeating: .null, count: 5)

    /// Reads the string at the reader for field `slot`.
    mutating func string(_ reader: inout JSONReader, slot: Int) throws(JSONReadFailure) -> JSONValue {
        let start = reader.index &+ 1
        guard let end = try reader.scanString() else { return .string(String(decoding: reader.scratch, as: UTF8.self)) }
        let count = end &- start
        if counts[slot] == count, memcmp(reader.base + offsets[slot], reader.base + start, count) == 0 {
            return values[slot]
        }
        let value = JSONValue.string(
            String(decoding: UnsafeRawBufferPointer(start: reader.base + start, count: count), as: UTF8.self))
        (offsets[slot], counts[slot], values[slot]) = (start, count, value)
        return value
    }
}

extension JSONReader {
    /// Consumes `byte` when it is next.
    fileprivate mutating func next(is byte: UInt8) -> Bool {
        guard index < count, self.byte(index) == byte else { return false }
        index &+= 1
        return true
    }

    /// Consumes a `,` (returns `true`) or the closing `close` (returns `false`); anything else,
    /// or a trailing comma, fails.
    fileprivate mutating func nextSeparator(close: UInt8) throws(JSONReadFailure) -> Bool {
        if next(is: 0x2C) {
            skipWhitespace()
            guard index < count, byte(index) != close else {
                throw JSONReadFailure(offset: index, reason: "trailing comma")
            }
            return true
        }
        guard next(is: close) else { throw JSONReadFailure(offset: index, reason: "expected a separator") }
        return false
    }
}
