extension Array {
    /// Takes this array's buffer, emptied, leaving an empty array behind: a buffer kept from one
    /// use to the next is taken (and put back when done), so that each use allocates nothing
    /// once the buffer has grown.
    mutating func takeEmptied() -> [Element] {
        var taken: [Element] = []
        swap(&taken, &self)
        taken.removeAll(keepingCapacity: true)
        return taken
    }

    /// Empties the array, keeping its room, and fills it with `count` copies of `element`.
    mutating func refill(with element: Element, count: Int) {
        removeAll(keepingCapacity: true)
        append(contentsOf: repeatElement(element, count: count))
    }
}
