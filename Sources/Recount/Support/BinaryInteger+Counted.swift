extension BinaryInteger {
    /// The count with its noun, plural unless the count is 1 (`1 sample`, `0 samples`): `noun`
    /// is one whose plural adds an `s`.
    package func counted(_ noun: String) -> String { self == 1 ? "1 \(noun)" : "\(self) \(noun)s" }
}
