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

extension Array {
    /// This array's storage, emptied, leaving an empty array in its place: how a buffer kept
    /// from one use to the next is taken (and put back when done), so that each use allocates
    /// nothing once the buffer has grown.
    mutating func takeEmptied() -> [Element] {
        var taken: [Element] = []
        swap(&taken, &self)
        taken.removeAll(keepingCapacity: true)
        return taken
    }
}
