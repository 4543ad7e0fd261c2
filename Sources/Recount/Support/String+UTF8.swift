internal import Glibc

extension String {
    /// Whether both strings hold exactly the same UTF-8 bytes (`==` is canonical equivalence).
    func hasSameUTF8(as other: String) -> Bool {
        // The same representation (one shared buffer, or the same small string) is the same
        // bytes: repeated fields share one string, so this settles most comparisons.
        if unsafeBitCast(self, to: (UInt64, UInt64).self) == unsafeBitCast(other, to: (UInt64, UInt64).self) {
            return true
        }
        guard utf8.count == other.utf8.count else { return false }
        let same = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
