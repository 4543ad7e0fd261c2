/// Walks the records of a decoded frame payload.
package enum RecordWalker {
    /// Calls `body` with each record of `payload`; returns `false` when the payload is malformed
    /// (a length running past the end, or a record count other than `expected`).
    @inline(__always)
    package static func walk<E: Error>(
        _ payload: UnsafeRawBufferPointer, expected: Int,
        _ body: (Int, UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) -> Bool {
        var offset = 0
        var index = 0
        let end = payload.count
        while offset < end {
            var length = 0
            var shift = 0
            while true {
                guard offset < end, shift < 35 else { return false }
                let byte = payload[offset]
                offset += 1
                length |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            guard length <= end - offset, index < expected else { return false }
            try body(index, UnsafeRawBufferPointer(rebasing: payload[offset..<(offset + length)]))
            offset += length
            index += 1
        }
        return index == expected
    }
}
