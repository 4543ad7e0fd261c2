extension Array {
    /// `count` copies of `value`, as `init(repeating:count:)` gives, allocated through
    /// `reserveCapacity`, which the compiler specializes for `Element`.
    ///
    /// `init(repeating:count:)` allocates through the standard library's unspecialized code,
    /// which looks the buffer's class metadata up at run time: about 500 instructions a call,
    /// which the recompute paid several times per cell and the ingest once per envelope.
    @inline(__always)
    init(filledWith value: Element, count: Int) {
        self.init()
        reserveCapacity(count)
        append(contentsOf: repeatElement(value, count: count))
    }
}
