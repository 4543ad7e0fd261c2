import Foundation

/// Normalisation of Apple Health `sourceName` strings into stable origins.
///
/// Real exports spell one app or device several ways: `Apple Watch`, `Apple\u{00A0}Watch` (no-break
/// space) and `Apple\u{00A0}Watch ` (trailing space) all occur for the same watch. An origin is the
/// name in Unicode NFC with every Unicode white-space character (NBSP, thin space, ideographic
/// space, tab, ...) turned into an ASCII space, runs of spaces collapsed, leading and trailing
/// spaces trimmed, and C0/C1 control characters removed. Nothing else is folded: case, apostrophes
/// (`Simon’s iPhone` vs `Simon's iPhone`) and invisible format characters are kept as written.
enum SourceName {
    /// The normalised form of a source (or device) name.
    ///
    /// - Parameter raw: the attribute value as parsed.
    /// - Returns: the normalised name; empty when `raw` holds only spaces and controls.
    static func normalize(_ raw: String) -> String {
        if isAlreadyNormal(raw) { return raw }
        let composed = raw.precomposedStringWithCanonicalMapping
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in composed.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
                continue
            }
            if scalar.properties.generalCategory == .control { continue }
            if pendingSpace {
                scalars.append(" ")
                pendingSpace = false
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// Fast path: printable ASCII without leading, trailing or doubled spaces is already normal.
    private static func isAlreadyNormal(_ raw: String) -> Bool {
        var previousWasSpace = true
        for byte in raw.utf8 {
            guard byte >= 0x20, byte < 0x7f else { return false }
            let isSpace = byte == 0x20
            if isSpace && previousWasSpace { return false }
            previousWasSpace = isSpace
        }
        return !previousWasSpace
    }
}
