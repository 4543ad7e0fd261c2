/// Why an import (Apple Health, Fitbit, Google Fit) stopped.
///
/// Malformed *records* never stop an import (they are counted in `ImportReport.invalid`); these
/// errors are about the arguments or the export as a whole (for a multi-file export, `path` names
/// the file inside it).
package struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The user is not 1–128 characters of `[A-Za-z0-9._:@-]`.
        package static let invalidUser = Code("invalid user")
        /// The batch size is below 1.
        package static let invalidBatchSize = Code("invalid batch size")
        /// The file cannot be opened or read.
        package static let unreadableFile = Code("unreadable file")
        /// The document is not well-formed XML (or is empty).
        package static let malformedXML = Code("malformed XML")
        /// A JSON file of a Takeout export is not JSON, or not of the shape its name promises.
        package static let malformedJSON = Code("malformed JSON")
        /// The input is readable but not an export of the kind asked for: a zip without
        /// `apple_health_export/export.xml`, XML whose root is not `<HealthData>`
        /// (`export_cda.xml`, a `<Workout>` fragment), a folder or zip without Fitbit or Google
        /// Fit files.
        package static let notAnExport = Code("not an export")
        /// Local times need a zone the export does not name and none was given, or the zone
        /// given is not an IANA name the toolchain knows.
        package static let timeZone = Code("time zone")
        /// An envelope the importer wrote was refused as a whole by ingest's decoder although
        /// each of its samples passes alone (a bug of the importer, never of the export).
        package static let envelopeRejected = Code("envelope rejected")

        /// The code's name.
        package var description: String { name }
    }

    /// The kind of failure.
    package var code: Code
    /// The file, when importing from one.
    package var path: String?
    /// Line of the error (1-based), for `malformedXML`.
    package var line: Int?
    /// Column of the error (1-based), for `malformedXML`.
    package var column: Int?
    /// Detail, such as the parser's message.
    package var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - path: the file, if any.
    ///   - line: the line, if known.
    ///   - column: the column, if known.
    ///   - message: detail.
    package init(
        code: Code, path: String? = nil, line: Int? = nil, column: Int? = nil, message: String
    ) {
        self.code = code
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// `PATH:LINE:COLUMN: CODE: MESSAGE`, leaving out what is unknown.
    package var description: String {
        var location = path ?? ""
        if let line {
            location += (location.isEmpty ? "line " : ":") + String(line)
            if let column { location += ":" + String(column) }
        }
        let head = location.isEmpty ? code.description : "\(location): \(code)"
        return message.isEmpty ? head : "\(head): \(message)"
    }
}

/// The name `ImportError` had while only Apple Health was imported.
package typealias AppleHealthImportError = ImportError
