/// Which range of users a user, or a record, belongs to. User names are ASCII (`*` sorts
/// before every one), so comparing their bytes compares the strings.
struct UserRouter {
    private let bounds: [[UInt8]]

    init(_ lowerBounds: [String]) { bounds = lowerBounds.map { Array($0.utf8) } }

    /// The index of the range holding `user`: the last whose lower bound is at most `user`.
    static func index(of user: String, in lowerBounds: [String]) -> Int {
        var (low, high) = (1, lowerBounds.count)
        while low < high {
            let middle = (low + high) / 2
            if lowerBounds[middle] <= user { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }

    /// The index of the range a record's envelope belongs to; `nil` for a `*` default (every
    /// range's) or a record too damaged to tell (decoding it reports the damage).
    func index(ofRecord record: UnsafeRawBufferPointer) -> Int? {
        guard bounds.count > 1 else { return 0 }
        guard let user = EnvelopeCodec.userBytes(ofRecord: record),
            !(user.count == 1 && user[0] == UInt8(ascii: "*"))
        else { return nil }
        var (low, high) = (1, bounds.count)
        while low < high {
            let middle = (low + high) / 2
            if !user.lexicographicallyPrecedes(bounds[middle]) { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }
}
