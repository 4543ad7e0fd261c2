import Glibc

/// Writes to the process's standard streams with `write(2)`: a failure (a full disk, a pipe
/// closed while SIGPIPE is ignored) is an error the command reports and exits 1 for, never a
/// trap as `FileHandle.write` makes it, nor lost output.
enum StandardStream {
    /// A stream that could not be written.
    struct WriteError: Error, CustomStringConvertible {
        var stream: Int32
        var code: Int32
        var description: String {
            "\(stream == STDOUT_FILENO ? "standard output" : "standard error") could not be written: "
                + String(cString: strerror(code))
        }
    }

    /// Writes all of `bytes` to the descriptor `stream`.
    static func write(_ bytes: UnsafeRawBufferPointer, to stream: Int32) throws(WriteError) {
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(stream, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(stream: stream, code: errno)
            }
            done += written
        }
    }

    /// Writes `text` to standard output.
    static func writeOutput(_ text: String) throws(WriteError) {
        var text = text
        var failure: WriteError?
        text.withUTF8 { bytes in
            do throws(WriteError) { try write(UnsafeRawBufferPointer(bytes), to: STDOUT_FILENO) } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Flushes what `print` buffered in the C stream `printed` (standard output); a write of
    /// it that failed, now or earlier, is an error.
    static func flushPrinted(_ printed: UnsafeMutablePointer<FILE>) throws(WriteError) {
        errno = 0
        if fflush(printed) != 0 || ferror(printed) != 0 {
            throw WriteError(stream: STDOUT_FILENO, code: errno == 0 ? EIO : errno)
        }
    }
}
