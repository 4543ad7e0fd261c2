/// The path of an array element (`samples[3]`, `changes[2].upsertion`), rendered only when an
/// error names it: building it for every sample cost more than validating the sample.
struct ElementPath {
    var array: String
    var index: Int
    var member: String? = nil

    var text: String { "\(array)[\(index)]" + (member.map { "." + $0 } ?? "") }

    /// The path of member `key` of this element.
    func field(_ key: String) -> String { text + "." + key }
}
