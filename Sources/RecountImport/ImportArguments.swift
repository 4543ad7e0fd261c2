import Recount

/// The checks every importer makes on its arguments before reading anything.
enum ImportArguments {
    /// Checks the envelopes' user and the batch size.
    /// - Parameters:
    ///   - user: must be 1–128 characters of `[A-Za-z0-9._:@-]`.
    ///   - batchSize: must be at least 1.
    /// - Throws: `ImportError` `.invalidUser` or `.invalidBatchSize`.
    static func validate(user: String, batchSize: Int) throws(ImportError) {
        guard Envelope.isValidUser(user) else {
            throw ImportError(code: .invalidUser, message: "user must be 1-128 characters of [A-Za-z0-9._:@-]")
        }
        guard batchSize >= 1 else {
            throw ImportError(code: .invalidBatchSize, message: "batch size must be at least 1, got \(batchSize)")
        }
    }
}
