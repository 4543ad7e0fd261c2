extension Array where Element: Equatable {
    /// Inserts `element` at its place in this array, which is sorted by `precedes` with no two
    /// elements equal, unless it is there already. Returns whether it was inserted.
    @discardableResult
    mutating func insertOnce(_ element: Element, orderedBy precedes: (Element, Element) -> Bool) -> Bool {
        let place = partitioningIndex { !precedes($0, element) }
        guard place == endIndex || self[place] != element else { return false }
        insert(element, at: place)
        return true
    }
}
