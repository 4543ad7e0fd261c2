import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An `InputStream` over a file descriptor (standard input), after some bytes already read from
/// it: the bytes `ExportInput` looked at to tell a zip from XML go back in front.
///
/// Reads go straight to `read(2)`, so a pipe is streamed with flat memory. The descriptor is
/// neither opened nor closed here.
final class DescriptorInputStream: InputStream {
    /// The descriptor.
    private let descriptor: Int32
    /// Bytes to hand out before reading the descriptor.
    private var prefix: [UInt8]
    /// How many of `prefix` were handed out.
    private var prefixOffset = 0
    /// Whether `read(2)` reported the end.
    private var reachedEnd = false
    /// `errno` of a failed read.
    private var readErrno: Int32?

    /// Creates a stream.
    /// - Parameters:
    ///   - descriptor: an open descriptor, read from its current position.
    ///   - prefix: bytes to hand out first.
    init(descriptor: Int32, prefix: [UInt8]) {
        self.descriptor = descriptor
        self.prefix = prefix
        super.init(data: Data())
    }

    override func open() {}

    override func close() {}

    override var hasBytesAvailable: Bool { prefixOffset < prefix.count || (!reachedEnd && readErrno == nil) }

    override var streamError: (any Error)? {
        readErrno.map { POSIXError(POSIXErrorCode(rawValue: $0) ?? .EIO) }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if prefixOffset < prefix.count {
            let count = min(len, prefix.count - prefixOffset)
            prefix.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + prefixOffset, count: count)
            }
            prefixOffset += count
            return count
        }
        if readErrno != nil { return -1 }
        if reachedEnd { return 0 }
        let count = readDescriptor(descriptor, buffer, len)
        if count < 0 {
            readErrno = errno
            return -1
        }
        if count == 0 { reachedEnd = true }
        return count
    }

    /// Reads up to `count` bytes from a descriptor, fewer only at its end.
    /// - Returns: the bytes, or `nil` with `errno` set when a read failed.
    static func readPrefix(_ descriptor: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes {
                readDescriptor(descriptor, $0.baseAddress! + filled, count - filled)
            }
            if got < 0 { return nil }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }
}

/// `read(2)`, retried when a signal interrupts it.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    while true {
        let got = read(descriptor, buffer, count)
        if got < 0, errno == EINTR { continue }
        return got
    }
}
