/// A unit as a client wrote it (`kg`, `mmol<180.1558800000541>/L`), with the catalogue unit it
/// stands for.
///
/// Ingest accepts only catalogue units, so a logged sample's `unit` is always set; a sample read
/// from elsewhere (an Apple Health export, before ingest checks it) may carry a symbol the
/// catalogue does not know, with `unit` `nil`.
package struct UnitName: Equatable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The unit, when the symbol is one of the catalogue's (or was, when the log was written).
    package var unit: MeasureUnit?
    /// The symbol exactly as written.
    package var symbol: String

    /// The symbol with the unit today's catalogue reads it as.
    package init(_ symbol: String) {
        self.init(unit: MeasureUnit.parse(symbol), symbol: symbol)
    }

    /// A symbol with the unit it stood for when it was written (as a log record keeps them);
    /// the symbol is not looked up, so a renamed symbol keeps its meaning.
    package init(unit: MeasureUnit?, symbol: String) {
        self.unit = unit
        self.symbol = symbol
    }

    package init(stringLiteral symbol: String) { self.init(symbol) }
}
