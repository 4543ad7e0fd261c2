/// The path of an array element (`samples[3]`, `changes[2].upsertion`), rendered only when an
/// error names it: building it for every sample cost more than validating the sample.
struct ElementPath {
    var array: String
    var index: Int
    var member: String? = nil

    var text: String { "\(array)[\(index)]" + (member.map { "." + $0 } ?? "") }

    /// The path of member `key` of this element.
    func field(_ key: String) -> String { ElementPath.member(key, of: text) }

    /// The path of member `key` of the object at `parent` (`nil`: the envelope itself):
    /// `parent.key` for a plain name (letters, digits, `_`, not starting with a digit), and
    /// `parent["key"]` (JSON-escaped) for any other, so that an unknown member named `a.b`,
    /// `""` or one holding a line break reads as one member and cannot pass for another path.
    static func member(_ key: String, of parent: String?) -> String {
        if isPlainName(key) { return parent.map { $0 + "." + key } ?? key }
        var quoted: [UInt8] = []
        JSONWriter.writeString(key, into: &quoted)
        return (parent ?? "") + "[" + String(decoding: quoted, as: UTF8.self) + "]"
    }

    private static func isPlainName(_ key: String) -> Bool {
        var utf8 = key.utf8.makeIterator()
        guard let first = utf8.next(), first == UInt8(ascii: "_") || isLetter(first) else { return false }
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "_") || isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            else { return false }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
