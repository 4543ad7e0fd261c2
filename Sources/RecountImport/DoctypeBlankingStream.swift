import Foundation

/// An `InputStream` that passes another stream through, with the prolog's DOCTYPE declaration
/// blanked by `DoctypeBlanker` (see there for why).
///
/// The first bytes are buffered until the root element starts (the prolog is a few KB; at most
/// `prologLimit` bytes are buffered, beyond that the bytes pass unchanged). After that, reads go
/// straight to the wrapped stream: memory stays flat however large the document.
final class DoctypeBlankingStream: InputStream {
    /// Most bytes buffered while looking for the root element.
    static let prologLimit = 4 << 20

    /// The wrapped stream.
    private let base: InputStream
    /// Prolog bytes to hand out before reading from `base` again.
    private var pending: [UInt8] = []
    /// How many of `pending` were handed out.
    private var pendingOffset = 0
    /// Whether the prolog has been dealt with.
    private var prologDone = false
    /// Whether `base` reported the end.
    private var reachedEnd = false

    /// Wraps a stream.
    /// - Parameter base: the stream to read from; opened and closed with this one.
    init(wrapping base: InputStream) {
        self.base = base
        super.init(data: Data())
    }

    override func open() {
        base.open()
    }

    override func close() {
        base.close()
    }

    override var streamError: (any Error)? {
        base.streamError
    }

    override var hasBytesAvailable: Bool {
        pendingOffset < pending.count || (!reachedEnd && base.hasBytesAvailable)
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if !prologDone {
            if let failure = readProlog() { return failure }
        }
        if pendingOffset < pending.count {
            let count = min(len, pending.count - pendingOffset)
            pending.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + pendingOffset, count: count)
            }
            pendingOffset += count
            if pendingOffset == pending.count {
                pending = []
                pendingOffset = 0
            }
            return count
        }
        if reachedEnd { return 0 }
        let count = base.read(buffer, maxLength: len)
        if count == 0 { reachedEnd = true }
        return count
    }

    /// Buffers the prolog, blanks its DOCTYPE and leaves it in `pending`.
    /// - Returns: a negative read result on a read error, else `nil`.
    private func readProlog() -> Int? {
        let chunkSize = 64 << 10
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBufferPointer {
                base.read($0.baseAddress!, maxLength: chunkSize)
            }
            if count < 0 { return count }
            if count == 0 { reachedEnd = true }
            pending.append(contentsOf: chunk[0..<count])
            let scan = pending.withUnsafeBufferPointer { DoctypeBlanker.scan($0) }
            switch scan {
            case .complete(_, let blanked):
                if let blanked { DoctypeBlanker.blank(&pending, blanked) }
                prologDone = true
                return nil
            case .needMore:
                if reachedEnd || pending.count >= Self.prologLimit {
                    prologDone = true
                    return nil
                }
            }
        }
    }
}
