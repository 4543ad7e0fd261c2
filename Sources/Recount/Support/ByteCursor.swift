/// Writes bytes one after another into memory the caller has made room in: no uniqueness or
/// growth check per write, only a comparison with the room's end, so a caller that bounds what
/// it writes too low traps before writing past the room.
///
/// Appending each piece of a sample's JSON to an `Array` cost a call, a uniqueness check and a
/// capacity check per piece, more than writing the piece; `Array.append(atMost:_:)` makes room
/// once and hands a cursor over the array's spare capacity.
struct ByteCursor {
    /// Where the next byte goes.
    private(set) var position: UnsafeMutablePointer<UInt8>
    /// The end of the room.
    private let end: UnsafeMutablePointer<UInt8>

    /// A cursor writing from `start` on, at most `count` bytes.
    init(_ start: UnsafeMutablePointer<UInt8>, count: Int) {
        position = start
        end = start + count
    }

    @inline(__always)
    private func checkRoom(_ count: Int) {
        precondition(position.distance(to: end) >= count, "a cursor wrote past its room")
    }

    /// Writes one byte.
    mutating func write(_ byte: UInt8) {
        checkRoom(1)
        position.initialize(to: byte)
        position += 1
    }

    /// Writes bytes.
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        checkRoom(bytes.count)
        position.initialize(from: base, count: bytes.count)
        position += bytes.count
    }

    /// Writes a literal's UTF-8 bytes.
    mutating func write(_ literal: StaticString) {
        checkRoom(literal.utf8CodeUnitCount)
        position.initialize(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
        position += literal.utf8CodeUnitCount
    }

    /// Writes a string's UTF-8 bytes, read in place.
    mutating func write(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ write($0) }) != nil { return }
        var text = text
        text.withUTF8 { write($0) }
    }

    /// Lets `body` write at the cursor, then moves past what it wrote.
    /// - Parameters:
    ///   - maximum: the most bytes `body` writes.
    ///   - body: writes at the pointer and returns how many bytes it wrote.
    mutating func write(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        checkRoom(maximum)
        let written = body(position)
        precondition(written <= maximum, "wrote \(written) bytes into room for \(maximum)")
        position += written
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` writes through a cursor, at most `maximum` bytes, straight into the
    /// array's spare capacity (grown as `append` grows it).
    /// - Parameters:
    ///   - maximum: the most bytes `write` writes.
    ///   - write: writes the bytes.
    @inline(__always)
    mutating func append(atMost maximum: Int, _ write: (inout ByteCursor) -> Void) {
        append(addingCapacity: maximum) { span in
            span.withUnsafeMutableBufferPointer { room, count in
                var cursor = ByteCursor(room.baseAddress! + count, count: maximum)
                write(&cursor)
                let written = (room.baseAddress! + count).distance(to: cursor.position)
                precondition(written <= maximum, "wrote \(written) bytes into room for \(maximum)")
                count += written
            }
        }
    }
}
