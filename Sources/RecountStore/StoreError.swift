/// An error from a projection store's library: what went wrong, where, and the library's code.
package struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; more codes may be added.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        package var description: String { name }

        /// The store could not be opened or created at its path.
        package static let open = Code("open")
        /// The store is full (LMDB's map size was reached).
        package static let full = Code("full")
        /// The library found its file damaged or not a database of its kind.
        package static let corrupt = Code("corrupt")
        /// Another connection holds a lock the operation needs.
        package static let busy = Code("busy")
        /// A statement or argument the library refused (bad SQL, a key too long).
        package static let misuse = Code("misuse")
        /// Any other failure the library reported.
        package static let library = Code("library")
    }

    /// The kind of failure.
    package var code: Code
    /// A sentence a person can act on, with the library's own message.
    package var message: String
    /// The file or directory involved.
    package var path: String?
    /// The library's result code (an LMDB `MDB_*` or errno value, an SQLite extended result code).
    package var libraryCode: Int32

    package init(_ code: Code, _ message: String, path: String?, libraryCode: Int32) {
        self.code = code
        self.message = message
        self.path = path
        self.libraryCode = libraryCode
    }

    package var description: String {
        var text = "\(message) [\(code) \(libraryCode)]"
        if let path { text += " (\(path))" }
        return text
    }
}
