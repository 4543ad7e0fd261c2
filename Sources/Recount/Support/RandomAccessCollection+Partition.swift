extension RandomAccessCollection {
    /// The index of the first element that `belongsAfter` holds for (`endIndex` when none
    /// does), found by binary search: the collection must be partitioned by it, every element
    /// it holds for coming after every one it does not (a sorted array and "is at least x").
    func partitioningIndex(where belongsAfter: (Element) throws -> Bool) rethrows -> Index {
        var (low, count) = (startIndex, self.count)
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try belongsAfter(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}

extension RandomAccessCollection where Element: Comparable {
    /// Whether this collection, sorted ascending, holds `element`: a binary search.
    func sortedContains(_ element: Element) -> Bool {
        let place = partitioningIndex { $0 >= element }
        return place != endIndex && self[place] == element
    }
}
