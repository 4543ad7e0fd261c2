/// The records of a checked frame: its stored payload decompressed and split.
enum FramePayload {
    /// Calls `body` with the index and bytes of each record of a checked frame, decompressing
    /// into `raw` when needed.
    ///
    /// - Throws: `corruptFrame` naming `path` and `offset` when the payload does not decompress
    ///   to its length or does not split into the header's count of records (a frame whose
    ///   checksum matches can still be wrong if its writer was), or what `body` throws.
    @inline(__always)
    static func forEachRecord(
        of header: FrameHeader, stored: UnsafeRawBufferPointer, into raw: inout [UInt8], path: String, offset: Int64,
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let length = Int(header.rawLength)
        if raw.count < length { raw = [UInt8](repeating: 0, count: length) }
        let wellFormed = try raw.withUnsafeMutableBytes { raw in
            let payload = UnsafeMutableRawBufferPointer(rebasing: raw[0..<length])
            if header.compressed {
                guard LZ4Block.decompress(stored, into: payload) else {
                    throw LogError.corruption("frame does not decompress to its length", path: path, offset: offset)
                }
            } else {
                payload.copyMemory(from: stored)
            }
            return try RecordWalker.walk(UnsafeRawBufferPointer(payload), expected: Int(header.recordCount), body)
        }
        guard wellFormed else {
            throw LogError.corruption("frame payload does not split into its records", path: path, offset: offset)
        }
    }
}
