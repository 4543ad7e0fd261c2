import Foundation

/// The bytes of an `export.xml`, wherever they come from: the XML file itself, the `export.zip`
/// the Health app hands out, or standard input holding either.
///
/// A zip is told from XML by its first bytes (`PK\u{3}\u{4}`, or `PK\u{5}\u{6}` for an empty
/// zip), never by the file name. From a zip, the entry `apple_health_export/export.xml` is
/// streamed out of the archive as it is parsed (see `ZipEntryStream`); nothing is unpacked to
/// disk.
struct ExportInput {
    /// The path of `export.xml` in the zip the Health app writes.
    static let entryPath = "apple_health_export/export.xml"

    /// The XML bytes.
    let stream: InputStream
    /// The archive stream, when the XML comes out of a zip (asked after parsing for a read error).
    let zip: ZipEntryStream?
    /// Where the bytes come from, for errors: a path, or `-` for standard input.
    let name: String

    /// Whether an archive entry is the export: `apple_health_export/export.xml`, or `export.xml`
    /// in another folder (or none) of a zip made again from the unpacked folder, or any other
    /// `.xml` file of the `apple_health_export` folder but the clinical document (`…_cda.xml`):
    /// a phone set to another language names the file in it (`exportar.xml`, `eksport.xml`,
    /// `vienti.xml`; such an export was refused until 2026-12-05, an attack run). The root
    /// element then confirms it. macOS's `__MACOSX/` shadow entries and AppleDouble `._` files
    /// beside the export (a zip made on a Mac) are never it.
    static func isExport(entry path: String) -> Bool {
        guard !path.hasPrefix("__MACOSX/") else { return false }
        if path == entryPath || path == "export.xml" || path.hasSuffix("/export.xml") { return true }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[parts.count - 2] == "apple_health_export", let name = parts.last else {
            return false
        }
        return name.hasSuffix(".xml") && !name.hasSuffix("_cda.xml") && !name.hasPrefix("._")
    }

    /// Whether a document's first bytes are a zip's.
    static func isZip(_ prefix: some Collection<UInt8>) -> Bool {
        let bytes = Array(prefix.prefix(4))
        return bytes == [0x50, 0x4B, 0x03, 0x04] || bytes == [0x50, 0x4B, 0x05, 0x06]
    }

    /// Opens a file, zip or XML.
    /// - Parameter path: the file.
    /// - Throws: `ImportError` `.unreadableFile` when it cannot be read (or is a zip
    ///   libarchive cannot read), `.notAnExport` for a zip without the export.
    static func open(path: String) throws(ImportError) -> ExportInput {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
            !isDirectory.boolValue, let handle = FileHandle(forReadingAtPath: path)
        else {
            throw ImportError(code: .unreadableFile, path: path, message: "cannot open file for reading")
        }
        let prefix = (try? handle.read(upToCount: 4)) ?? Data()
        try? handle.close()
        try refuseGzip(prefix, name: path)
        if isZip(prefix) {
            do {
                let zip = try ZipEntryStream(path: path, accepting: isExport(entry:))
                return ExportInput(stream: zip, zip: zip, name: path)
            } catch {
                throw failure(error, name: path)
            }
        }
        guard let stream = InputStream(fileAtPath: path) else {
            throw ImportError(code: .unreadableFile, path: path, message: "cannot open file for reading")
        }
        return ExportInput(stream: stream, zip: nil, name: path)
    }

    /// Reads a descriptor (standard input), zip or XML, front to back.
    /// - Parameters:
    ///   - descriptor: an open descriptor; it is not closed.
    ///   - name: what errors call it (`-`).
    /// - Throws: as `open(path:)`.
    static func open(descriptor: Int32, name: String) throws(ImportError) -> ExportInput {
        guard let prefix = DescriptorInputStream.readPrefix(descriptor, count: 4) else {
            throw ImportError(
                code: .unreadableFile, path: name, message: String(cString: strerror(errno)))
        }
        try refuseGzip(prefix, name: name)
        let stream = DescriptorInputStream(descriptor: descriptor, prefix: prefix)
        guard isZip(prefix) else { return ExportInput(stream: stream, zip: nil, name: name) }
        do {
            let zip = try ZipEntryStream(reading: stream, accepting: isExport(entry:))
            return ExportInput(stream: zip, zip: zip, name: name)
        } catch {
            throw failure(error, name: name)
        }
    }

    /// Refuses a gzip file (an `export.xml.gz`), which libxml2 read as XML without a root
    /// element at 1:1, with no hint of why (an attack run).
    private static func refuseGzip(_ prefix: some Collection<UInt8>, name: String) throws(ImportError) {
        guard Array(prefix.prefix(2)) == [0x1F, 0x8B] else { return }
        throw ImportError(
            code: .unreadableFile, path: name,
            message: "a gzip file, not an export.zip or export.xml: gunzip it first (gunzip -c FILE | recount import …)"
        )
    }

    /// The import error for an archive that could not be read or lacks the export.
    private static func failure(_ error: ZipEntryStream.Failure, name: String) -> ImportError {
        if error.entryMissing {
            return ImportError(
                code: .notAnExport, path: name,
                message:
                    "expected an Apple Health export.zip holding \(entryPath); this zip has none (\(error.message))")
        }
        return ImportError(code: .unreadableFile, path: name, message: "unreadable zip: \(error.message)")
    }
}
