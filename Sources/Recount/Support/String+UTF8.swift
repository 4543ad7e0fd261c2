internal import Glibc

extension String {
    /// Whether both strings hold exactly the same UTF-8 bytes (`==` is canonical equivalence).
    func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var left = self
        var right = other
        return left.withUTF8 { a in
            right.withUTF8 { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// Whether any UTF-8 byte of the string satisfies `predicate`, read from contiguous storage.
    func containsUTF8Byte(where predicate: (UInt8) -> Bool) -> Bool {
        var text = self
        return text.withUTF8 { $0.contains(where: predicate) }
    }
}
