import Foundation
package import RecountLog

/// The durable copy of the projections: `DIR/projections/checkpoint`, the whole state at one
/// log position, replaced atomically (temporary file, fsync, rename, fsync of the directory).
///
/// Layout: magic `RCPJ`, version (`UInt32`, `version` below), payload length (`UInt64`), stored length
/// (`UInt64`), XXH3-64 of the stored bytes followed by the header's other fields (both lengths,
/// the record, the position and the users, so that a flipped length is damage, not a payload
/// that fails to inflate), the XXH3-64 of the log record at the position the checkpoint covers
/// (0: none; it ties the checkpoint to its log), that position, the XXH3-64 of the users it was
/// written for (`UserBounds`: a range's), then the payload in chunks of about
/// `chunkBytes` (a chunk closes at the first field past it): each a raw length and a stored
/// length (`UInt32`), then its LZ4 block (about a sixth of its size: the id index is stored by
/// column, and its fields repeat). Chunks put no limit on the payload (one LZ4 block holds at
/// most 2 GB, about 14 million samples), and the payload streams into them as it is written.
/// The payload is `Projections.checkpoint()`, which starts with the log position it covers and
/// the tz data version.
/// A checkpoint that is missing, damaged, from an older version, from other zone data, ahead of
/// the log or of another log (its record differs from the log's at that position) is ignored,
/// and the projections are rebuilt from the log. (A new version also marks projection rules that
/// changed, so that a checkpoint folded under older ones is rebuilt: 4 the sync rules, 5 the
/// overlap merge across dates, 6 and 7 since when the user has each provider, 8 missed stretches, 9
/// the mean of readings whose sum overflows, 10 the position in the header, so that an engine
/// checks a checkpoint against its log without reading the payload, 11 reconciled windows, 12
/// recovery by reconciles in parts, 13 missed stretches that a later expiry no longer joins, 14
/// a check-in logged late read on through the reconciles before the expiry, 15 and counted for
/// every expiry after it, 16 an ignored write no longer makes the held sample newer, and a
/// rewrite under another metric's sync identity takes it, 17 a reconcile's tombstones keep its
/// `receivedAt`, 18 a new provider or recovery window moves the versions of the days it may take
/// from known, 19 and so does a move of the user's latest offset, 20 an expiry reads on through
/// the reconciles after the held stretch it goes on from, days read again are not lost to a later
/// horizon, and a window cut shorter moves no version, 21 each channel's envelope cursor and
/// whether its page had expired, 22 recovered stretches with their horizon, not their lost parts,
/// 23 every expiry's instant, 24 every `config.provider` setting by its receipt, not the latest
/// alone, 25 when each check-in was received, 26 an expiry logged after a later expiry or
/// recovery, or a first contact logged after an expiry, folds the channel's recovery again in
/// receipt order, the version a reconcile deleted, delivered again after it, comes back, and
/// a higher sync version of an id wins in any log order, and a write a reconcile answered for
/// leaves the id as that reconcile would have; 27 the id index stored by column, 28 a
/// reconcile's tombstone replaced by that of the reconcile that answered for a later write,
/// 29 a day whose samples all went dirtied when it may stop being known, 30 a day's version
/// moved when a channel's change moves its reading, a day becoming known included, and the
/// header's fields under the checksum, 31 the users the checkpoint was written for, 32 a
/// check-in made before an expiry already folded, or a reconcile received before the newest
/// recovery, folds the channel's recovery again, and a write received before a reconcile that
/// deleted an older version comes back, 33 the ids each reconcile listed, so a write it
/// listed is not one it answered for, 34 a reconcile's tombstone keeping the deleted
/// version's metric, start and receipt, 35 two reconciles of one window at one instant kept
/// apart, 36 equally new writes at one instant ordered by their content's key, which a
/// tombstone keeps.)
package struct CheckpointFile {
    package let path: String
    /// The payload bytes after which a chunk closes.
    private let chunkBytes: Int
    private let fileSystem = PosixFileSystem()
    private static let magic: UInt32 = 0x4A50_4352  // "RCPJ" read little-endian
    private static let version: UInt32 = 36
    private static let headerSize = 56
    /// The header's bytes the checksum covers after the stored bytes: both lengths, the
    /// record, the position and the users.
    private static let checkedHeaderFields = [8..<24, 32..<56]
    private static let chunkHeaderSize = 8

    /// The checkpoint of the data directory `directory`.
    /// - Parameter chunkBytes: the most payload bytes per chunk (small in tests, to make many).
    package init(dataDirectory directory: String, chunkBytes: Int = 8 << 20) {
        self.init(path: DataDirectory(directory).checkpoint, chunkBytes: chunkBytes)
    }

    /// The checkpoint at `path` (one range of users' of an engine that split its projections).
    package init(path: String, chunkBytes: Int = 8 << 20) {
        self.path = path
        self.chunkBytes = max(1, min(chunkBytes, LZ4Block.maximumInputSize))
    }

    /// Loads the projections, or says why the checkpoint cannot be used.
    ///
    /// The file is mapped, not read (a writer replaces it by renaming a new file over it, so the
    /// mapped one never changes), and its chunks are inflated one at a time as the projections
    /// are read from them, so the payload is never held whole.
    package func load() -> Result<Projections, Unusable> {
        loadWithRecord(of: .everyone).map(\.projections)
    }

    /// Loads the projections, and the file's checksum (which `save` returned), when they are a
    /// fold of `reader`'s log: not ahead of it, and the record at the position they cover is
    /// the one the checkpoint was saved after; and when they were written for `users` (else
    /// `.otherRange`).
    package func load(
        folding reader: LogReader, of users: UserBounds = .everyone
    ) -> Result<(projections: Projections, checksum: UInt64), Unusable> {
        loadWithRecord(of: users).flatMap { loaded in
            Self.matches(loaded.projections.position, loaded.record, reader)
                ? .success((loaded.projections, loaded.checksum)) : .failure(.otherLog)
        }
    }

    /// The log position the checkpoint covers and its checksum (which `save` returned), when
    /// the file is whole (its checksum holds), written for `users` and a fold of `reader`'s
    /// log, as `load` would find, without inflating its payload.
    package func check(
        folding reader: LogReader, of users: UserBounds = .everyone
    ) -> Result<(position: UInt64, checksum: UInt64), Unusable> {
        reading { stored in
            Self.header(stored, of: users).flatMap { header in
                Self.matches(header.position, header.record, reader)
                    ? .success((header.position, header.checksum)) : .failure(.otherLog)
            }
        }
    }

    /// Whether projections folded through `position`, saved after the log record `record`,
    /// are a fold of `reader`'s log: not ahead of it, and its record there is that one (a
    /// record before the log's start, or one that cannot be read, is taken on trust: the fold
    /// of the tail that follows reports damage).
    private static func matches(_ position: UInt64, _ record: UInt64, _ reader: LogReader) -> Bool {
        guard position < reader.endPosition else { return false }
        guard position == 0 || position >= reader.snapshot.startPosition else { return true }
        let found: UInt64?
        do {
            found = try fingerprint(of: reader, at: position)
        } catch {
            return true
        }
        // Another record there, or none: the checkpoint folds records the log does not hold
        // (another log's, or ones a repair cut while a kill kept it from removing it).
        return found == record
    }

    /// The XXH3-64 of the log record at `position` (0 for position 0, before any record), or
    /// `nil` when the log does not hold it.
    package static func fingerprint(of reader: LogReader, at position: UInt64) throws -> UInt64? {
        guard position > 0 else { return 0 }
        guard position >= reader.snapshot.startPosition else { return nil }
        var hash: UInt64?
        try reader.forEach(from: position, to: position + 1) { hash = Checksum.xxh3($0.bytes) }
        return hash
    }

    private func loadWithRecord(of users: UserBounds) -> Result<Decoded, Unusable> {
        reading { Self.decode($0, of: users) }
    }

    /// `body`'s answer from the file's bytes, mapped (a writer replaces the file by renaming a
    /// new one over it, so the mapped one never changes); `.missing` or `.damaged` when there
    /// is no file or it is shorter than a header.
    private func reading<T>(_ body: (UnsafeRawBufferPointer) -> Result<T, Unusable>) -> Result<T, Unusable> {
        guard let file = try? fileSystem.open(path, writable: false, create: false) else { return .failure(.missing) }
        guard let size = try? file.size(), size >= Self.headerSize, let mapped = file.map(length: Int(size)) else {
            return .failure(.damaged)
        }
        // The mapping must outlive every read of its bytes.
        return withExtendedLifetime(mapped) { body(mapped.bytes) }
    }

    /// A checkpoint file's header fields.
    private struct Header {
        var rawLength: UInt64
        var checksum: UInt64
        var record: UInt64
        var position: UInt64
    }

    /// The header of a checkpoint file's bytes, when they are whole, of this version and
    /// written for `users`; else `.otherVersion`, `.damaged` (another magic, a length that
    /// disagrees, or a checksum that fails), or `.otherRange`.
    private static func header(_ stored: UnsafeRawBufferPointer, of users: UserBounds) -> Result<Header, Unusable> {
        func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            T(littleEndian: stored.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        guard field(0, UInt32.self) == Self.magic else { return .failure(.damaged) }
        guard field(4, UInt32.self) == Self.version else { return .failure(.otherVersion) }
        let rawLength = field(8, UInt64.self)
        let check = Checksum.Streaming()
        check.update(UnsafeRawBufferPointer(rebasing: stored[Self.headerSize...]))
        for checked in Self.checkedHeaderFields { check.update(UnsafeRawBufferPointer(rebasing: stored[checked])) }
        // LZ4 inflates at most 255-fold, so a larger raw length is damage.
        guard field(16, UInt64.self) == UInt64(stored.count - Self.headerSize),
            rawLength <= 255 * UInt64(stored.count - Self.headerSize), check.digest == field(24, UInt64.self)
        else { return .failure(.damaged) }
        guard field(48, UInt64.self) == users.fingerprint else { return .failure(.otherRange) }
        return .success(
            Header(
                rawLength: rawLength, checksum: field(24, UInt64.self), record: field(32, UInt64.self),
                position: field(40, UInt64.self)))
    }

    /// What a checkpoint file holds: its projections, the fingerprint of their last record, and
    /// the file's checksum.
    private typealias Decoded = (projections: Projections, record: UInt64, checksum: UInt64)

    /// The projections a checkpoint file's bytes hold, when they were written for `users`.
    private static func decode(_ stored: UnsafeRawBufferPointer, of users: UserBounds) -> Result<Decoded, Unusable> {
        let header: Header
        switch Self.header(stored, of: users) {
        case .success(let whole): header = whole
        case .failure(let unusable): return .failure(unusable)
        }
        let rawLength = header.rawLength
        // Each chunk is inflated when the reader reaches it, and released when it moves on.
        var (offset, inflated) = (Self.headerSize, UInt64(0))
        var input = CheckpointReader(totalBytes: Int(rawLength)) { chunk throws(CheckpointReader.Malformed) in
            guard offset < stored.count else { return false }
            guard stored.count - offset >= Self.chunkHeaderSize else { throw CheckpointReader.Malformed() }
            let raw = Int(UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            let size = Int(UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            offset += Self.chunkHeaderSize
            // LZ4 inflates a block at most 255-fold: a larger claim is damage, refused before
            // anything that size is allocated.
            guard raw > 0, stored.count - offset >= size, rawLength - inflated >= UInt64(raw), raw / 255 <= size
            else { throw CheckpointReader.Malformed() }
            // Uninitialized: the block fills every byte, or the chunk is not used.
            var whole = false
            chunk = [UInt8](unsafeUninitializedCapacity: raw) { buffer, initialized in
                whole = LZ4Block.decompress(
                    UnsafeRawBufferPointer(rebasing: stored[offset..<(offset + size)]),
                    into: UnsafeMutableRawBufferPointer(buffer))
                initialized = whole ? raw : 0
            }
            guard whole else { throw CheckpointReader.Malformed() }
            (offset, inflated) = (offset + size, inflated + UInt64(raw))
            return true
        }
        let projections: Projections
        do {
            projections = try Projections(checkpoint: &input)
        } catch {
            return .failure(error.otherZoneData == nil ? .damaged : .otherZoneData)
        }
        guard inflated == rawLength, projections.position == header.position else { return .failure(.damaged) }
        return .success((projections, header.record, header.checksum))
    }

    /// Why a checkpoint was not used.
    package enum Unusable: Error, Equatable {
        case missing
        case damaged
        /// Written by another version of the format (an older engine's): whole, but not read.
        case otherVersion
        /// Folded with other tz data than this process has (a toolchain update): whole, but its
        /// days may differ.
        case otherZoneData
        /// Ahead of the log, or its last record is not the log's record at that position.
        case otherLog
        /// Written for other users than asked for: another range's checkpoint, or one of a
        /// split other than the manifest's (restored under this name), which holds some of the
        /// range's users and lacks others.
        case otherRange
    }

    /// Writes `projections` as the checkpoint, atomically and durably. The payload streams
    /// into chunks as it is written, and each chunk goes to the file once compressed, so one
    /// chunk of it is held at a time.
    /// - Parameters:
    ///   - users: the users the checkpoint is written for (a range's), which `load` asks for.
    ///   - selection: the users whose projections to write (a range's part when it splits);
    ///     every user's when `nil`.
    ///   - record: `fingerprint(of:at:)` of the log the projections fold, at their position.
    /// - Returns: the file's checksum (which `check` finds while the file is this one).
    @discardableResult
    package func save(
        _ projections: Projections, of users: UserBounds = .everyone, keeping selection: CheckpointSelection? = nil,
        record: UInt64
    ) throws(LogError) -> UInt64 {
        try fileSystem.createDirectories(parentDirectory(of: path))
        // The header, which covers every chunk, is written last. Holding the stored chunks
        // until then grew an array to the checkpoint's size by doubling: 37,000 of the 155,000
        // page faults of an ingest of the benchmark's whole input.
        let check = Checksum.Streaming()
        try fileSystem.replace(path) { file throws(LogError) in
            var (payloadLength, storedLength) = (0, 0)
            var stored: [UInt8] = []
            var failure: LogError? = nil
            var payload = CanonicalBytes(threshold: chunkBytes) { chunk in
                guard failure == nil else { return }
                let bound = Self.chunkHeaderSize + LZ4Block.compressBound(chunk.count)
                if stored.count < bound { stored = [UInt8](repeating: 0, count: bound) }
                // Acceleration 4, as the log's frames: on the benchmark's first 40,000 envelopes
                // the checkpoint came out 2% smaller and an ingest took 1% fewer instructions.
                let count = chunk.withUnsafeBytes { raw in
                    stored.withUnsafeMutableBytes { room in
                        LZ4Block.compress(
                            raw, into: UnsafeMutableRawBufferPointer(rebasing: room[Self.chunkHeaderSize...]),
                            acceleration: 4)
                    }
                }
                guard count > 0 else {
                    failure = LogError(.io, "the projections' checkpoint did not compress", path: path)
                    return
                }
                stored.withUnsafeMutableBytes { header in
                    header.storeBytes(of: UInt32(chunk.count).littleEndian, toByteOffset: 0, as: UInt32.self)
                    header.storeBytes(of: UInt32(count).littleEndian, toByteOffset: 4, as: UInt32.self)
                }
                let chunkBytes = Self.chunkHeaderSize + count
                do throws(LogError) {
                    try file.write(stored, count: chunkBytes, at: Int64(Self.headerSize + storedLength))
                } catch {
                    failure = error
                }
                stored.withUnsafeBytes { check.update(UnsafeRawBufferPointer(rebasing: $0[..<chunkBytes])) }
                payloadLength += chunk.count
                storedLength += chunkBytes
            }
            projections.writeCheckpoint(&payload, keeping: selection)
            payload.finish()
            if let failure { throw failure }
            var header = [UInt8](repeating: 0, count: Self.headerSize)
            header.withUnsafeMutableBytes { header in
                header.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
                header.storeBytes(of: Self.version.littleEndian, toByteOffset: 4, as: UInt32.self)
                header.storeBytes(of: UInt64(payloadLength).littleEndian, toByteOffset: 8, as: UInt64.self)
                header.storeBytes(of: UInt64(storedLength).littleEndian, toByteOffset: 16, as: UInt64.self)
                header.storeBytes(of: record.littleEndian, toByteOffset: 32, as: UInt64.self)
                header.storeBytes(of: projections.position.littleEndian, toByteOffset: 40, as: UInt64.self)
                header.storeBytes(of: users.fingerprint.littleEndian, toByteOffset: 48, as: UInt64.self)
                for checked in Self.checkedHeaderFields {
                    check.update(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(header)[checked]))
                }
                header.storeBytes(of: check.digest.littleEndian, toByteOffset: 24, as: UInt64.self)
            }
            try file.write(header, at: 0)
        }
        return check.digest
    }

    /// Removes the checkpoint (after the log was repaired, it may hold records the log lost).
    package func remove() throws(LogError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try fileSystem.remove(path)
        try fileSystem.syncDirectory(parentDirectory(of: path))
    }
}
