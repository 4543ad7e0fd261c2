import Foundation
import Recount
import RecountLog

/// Writes results as text for people or as JSON lines, with fields in a fixed order.
///
/// Results go to standard output. Errors, rejections and notices go to standard error: as
/// `recount: ...` sentences, or with `--json` as JSON lines whose `event` field says what they
/// are (`error`, `rejected`, `recovered`, `progress`).
enum Output {
    /// A JSON value written with its keys in the order given.
    enum Value {
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)
        case null
        /// JSON text written as it is (a nested object made by `json`).
        case raw(String)
    }

    /// Prints one JSON object with `fields` in order.
    static func jsonLine(_ fields: [(String, Value)]) {
        print(json(fields))
    }

    /// Writes `text` to standard error; a failure is ignored (there is nowhere left to say it).
    static func standardError(_ text: String) {
        var text = text
        text.withUTF8 { try? StandardStream.write(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
    }

    /// Writes a notice to standard error: `text` as `recount: TEXT`, or with `--json` a JSON
    /// line of `event` and `fields`.
    static func notice(_ text: String, event: String, _ fields: [(String, Value)], json: Bool) {
        standardError(json ? Self.json([("event", .string(event))] + fields) + "\n" : "recount: \(text)\n")
    }

    /// Reports why a command failed, on standard error.
    static func failure(_ message: String, status: ExitStatus, json: Bool) {
        if json {
            notice(
                message, event: "error", [("message", .string(message)), ("exit", .int(Int64(status.rawValue)))],
                json: true)
        } else {
            standardError("recount: \(message)\n")
        }
    }

    /// Reports a usage mistake in the command `words` name: the message, then (as text) that
    /// command's usage lines.
    static func usageFailure(_ message: String, command words: [String], json: Bool) {
        failure(message, status: .usage, json: json)
        if !json { standardError("\n\(Invocation.usage(for: words))\n") }
    }

    /// Reports a rejected input line as it is found, on standard error.
    static func rejection(_ rejection: IngestRejection, json: Bool) {
        guard json else { return standardError("rejected: \(rejection)\n") }
        notice(
            "", event: "rejected",
            [
                ("source", .string(rejection.source)), ("line", .int(Int64(rejection.error.line))),
                ("path", .string(rejection.error.path)), ("code", .string(rejection.error.code.description)),
                ("reason", .string(rejection.error.reason)),
            ], json: true)
    }

    /// Reports what a writer repaired as it opened: the torn frame it cut off the log, and
    /// the checkpoints it could not use (rebuilt from the log).
    static func opened(_ engine: RecountEngine, json: Bool) {
        if let torn = engine.recovery { recovery(torn, json: json) }
        unusableCheckpoints(engine, event: "rebuilt", json: json) { $0.description }
    }

    /// Reports the checkpoints a read-only command could not use: it answered from the log
    /// instead, and they stay as they are until a writer stores them again. (It said nothing,
    /// and `stats` and `dirty` then described its own fold, not the store; an attack run.)
    static func read(_ engine: RecountEngine, json: Bool) {
        unusableCheckpoints(engine, event: "ignored", json: json) {
            "checkpoint \($0.path) is \($0.reason): read from the log instead (the next writer, "
                + "`recount recompute` say, stores it again)"
        }
    }

    /// One `event` notice for each checkpoint `engine` could not use, in `text`'s words.
    private static func unusableCheckpoints(
        _ engine: RecountEngine, event: String, json: Bool, _ text: (UnusableCheckpoint) -> String
    ) {
        for checkpoint in engine.unusableCheckpoints {
            notice(
                text(checkpoint), event: event,
                [("checkpoint", .string(checkpoint.path)), ("reason", .string(checkpoint.reason))], json: json)
        }
    }

    /// Warns when a writer (closed) could not write the projections' checkpoint: nothing is
    /// lost, and the next command folds again what the checkpoint lacks.
    static func closed(_ engine: RecountEngine, json: Bool) {
        guard let unwritten = engine.checkpointFailure else { return }
        notice(
            "warning: the projections' checkpoint was not written (\(unwritten)); every envelope appended is in "
                + "the log, and the next command folds them again", event: "warning",
            [("message", .string("the projections' checkpoint was not written: \(unwritten)"))], json: json)
    }

    /// Reports the torn frame a writer cut off when it opened the log.
    private static func recovery(_ torn: TornTail, json: Bool) {
        notice(
            "recovered the log: cut a torn frame of \(torn)", event: "recovered",
            [
                ("segment", .string(torn.segment)), ("offset", .int(torn.offset)),
                ("position", .int(Int64(torn.position))), ("bytes", .int(torn.bytes)),
                ("reason", .string(torn.reason)), ("savedTo", torn.savedTo.map { .string($0) } ?? .null),
            ], json: json)
    }

    /// A sentence for `error`: Foundation's file errors become `cannot write PATH: REASON`
    /// rather than their `Error Domain=...` dump.
    static func sentence(for error: any Error) -> String {
        if let failure = error as? IngestFailure { return sentence(for: failure.error) }
        if let error = error as? LogError, error.code == .noLog { return error.message }
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(bridged.code))) }
        guard bridged.domain == NSCocoaErrorDomain else { return "\(error)" }
        let path = bridged.userInfo[NSFilePathErrorKey] as? String ?? (bridged.userInfo[NSURLErrorKey] as? URL)?.path
        let verb =
            switch bridged.code {
            case 256..<512: "cannot read"
            case 512..<768: "cannot write"
            default: "cannot use"
            }
        var reason = "error \(bridged.code)"
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey].flatMap({ $0 as? any Error }).map({ $0 as NSError })
        {
            reason =
                underlying.domain == NSPOSIXErrorDomain
                ? String(cString: strerror(Int32(underlying.code))) : underlying.localizedDescription
        } else if bridged.code == CocoaError.fileReadNoSuchFile.rawValue
            || bridged.code == CocoaError.fileNoSuchFile.rawValue
        {
            reason = String(cString: strerror(ENOENT))
        }
        return path.map { "\(verb) \($0): \(reason)" } ?? "\(verb) a file: \(reason)"
    }

    /// A number as JSON: an integer when it is one, else the shortest double that reads back.
    static func number(_ value: Double) -> Value {
        value.rounded() == value && abs(value) < 1e15 ? .int(Int64(value)) : .double(value)
    }

    /// A number for people: as `number` writes it.
    static func text(of value: Double) -> String { encode(number(value)) }

    /// Prints rows under a header, each column as wide as its widest cell.
    static func table(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        for row in [header] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : padded(cell, to: widths[column])
            }
            print(cells.joined(separator: "  "))
        }
    }

    /// `text` followed by spaces up to `width` characters. (Foundation's `padding(toLength:)`
    /// counts UTF-16 units, so it cut an emoji in a device name in half.)
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// A JSON array of strings.
    static func array(_ strings: [String]) -> Value {
        .raw("[" + strings.map(EnvelopeJSON.quote).joined(separator: ",") + "]")
    }

    /// `strings` space-separated, in lines of at most `width` characters (a longer string alone
    /// on its line); one that holds a space (or is empty) is written as a JSON string, so the
    /// lines read back unambiguously.
    static func wrapped(_ strings: [String], width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for string in strings {
            let word = string.isEmpty || string.contains(where: \.isWhitespace) ? EnvelopeJSON.quote(string) : string
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? word : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// One JSON object with `fields` in order.
    static func json(_ fields: [(String, Value)]) -> String {
        "{" + fields.map { "\(EnvelopeJSON.quote($0.0)):\(encode($0.1))" }.joined(separator: ",") + "}"
    }

    /// `value` as a human table shows it: a string unquoted, `null` as `-`.
    static func plainText(_ value: Value) -> String {
        switch value {
        case .string(let text): text
        case .null: "-"
        default: encode(value)
        }
    }

    static func encode(_ value: Value) -> String {
        switch value {
        case .string(let text): EnvelopeJSON.quote(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .raw(let text): text
        }
    }
}

/// A command that could not do its work: exit status 1, with a sentence saying why.
struct CommandError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }

    /// Refuses a path that cannot be opened for reading, with the operating system's reason.
    static func requireReadable(_ path: String) throws(CommandError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CommandError("cannot read \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }

}
