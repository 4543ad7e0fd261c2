/// A set of metrics as one bit per metric code: it allocates nothing, and goes through its
/// metrics in code order (a `Set`'s order differs in every process).
struct MetricSet: Sequence {
    private var bits: UInt64 = 0

    init() {}

    mutating func insert(_ metric: Metric) {
        precondition(metric.rawValue < 64, "a metric code past 63 needs a wider set")
        bits |= 1 << metric.rawValue
    }

    mutating func remove(_ metric: Metric) {
        if metric.rawValue < 64 { bits &= ~(1 << metric.rawValue) }
    }

    func contains(_ metric: Metric) -> Bool { metric.rawValue < 64 && bits >> metric.rawValue & 1 != 0 }

    func makeIterator() -> Iterator { Iterator(bits: bits) }

    struct Iterator: IteratorProtocol {
        fileprivate var bits: UInt64

        mutating func next() -> Metric? {
            while bits != 0 {
                let code = UInt8(bits.trailingZeroBitCount)
                bits &= bits - 1
                if let metric = Metric(rawValue: code) { return metric }
            }
            return nil
        }
    }
}
