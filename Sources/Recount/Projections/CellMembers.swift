/// The live samples of each rollup cell, as id-index numbers: what a recompute reads.
///
/// Cells are numbered by a `FlatTable` in the order they were first touched; a cell whose
/// samples all went keeps its (empty) place, and so does every cell a day was marked dirty for
/// (`touch`): those are the cells that have a rollup or will have one once recomputed, which a
/// checkpoint's rollups and dirty days give back when it is loaded. Each user's cells are
/// listed, so that what is dirtied for one user walks that user's cells alone. Each cell also
/// keeps the span of its samples, exactly (a function of its members, whatever their history):
/// the overlap merge of a day takes in the samples of neighbouring days that meet it.
package struct CellMembers: Sendable {
    /// One cell's members and their span, side by side (one cache line to touch).
    private struct Cell {
        var members: [UInt32]
        var span: SampleSpan
    }

    private var table = FlatTable<Projections.CellKey>()
    private var cells: [Cell] = []
    /// Each user's cell numbers (by interned user), in the order the cells were made.
    private var numbersByUser: [[UInt32]] = []
    /// The cell `insert` added to last and its number (a cache, no part of the state): an
    /// envelope's samples mostly fall in one cell. Cells keep their numbers once made.
    private var lastInserted: (cell: Projections.CellKey, number: Int)?

    package init() {}

    /// The id-index numbers of the live samples in `cell`, in no particular order.
    func members(of cell: Projections.CellKey) -> [UInt32] {
        table.number(of: cell).map { cells[$0].members } ?? []
    }

    /// The span of the live samples in `cell` (empty when it has none).
    func span(of cell: Projections.CellKey) -> SampleSpan {
        table.number(of: cell).map { cells[$0].span } ?? .empty
    }

    /// The members of `cell` and their span, with one lookup (none and empty when it has no
    /// samples).
    func contents(of cell: Projections.CellKey) -> (members: [UInt32], span: SampleSpan) {
        table.number(of: cell).map { (cells[$0].members, cells[$0].span) } ?? ([], .empty)
    }

    /// Whether `cell` has a place: it had samples, or a day was marked dirty for it.
    func contains(_ cell: Projections.CellKey) -> Bool { table.number(of: cell) != nil }

    /// Calls `body` with each cell and its members, in the order cells were first touched.
    func forEach(_ body: (Projections.CellKey, [UInt32]) -> Void) {
        for (number, cell) in table.keys.enumerated() { body(cell, cells[number].members) }
    }

    /// Calls `body` with each of `user`'s cells of `metric` and its members (none for a cell
    /// whose samples all went), in the order the cells were made.
    func forEach(ofUser user: UInt32, metric: Metric, _ body: (Projections.CellKey, [UInt32]) -> Void) {
        guard Int(user) < numbersByUser.count else { return }
        for number in numbersByUser[Int(user)] where table.keys[Int(number)].metric == metric {
            body(table.keys[Int(number)], cells[Int(number)].members)
        }
    }

    /// Gives `cell` a place, empty when it has none: a day marked dirty that no sample counts
    /// towards (one a zone skipped), or a cell a loaded checkpoint has a rollup or a dirty day of.
    mutating func touch(_ cell: Projections.CellKey) {
        if let lastInserted, lastInserted.cell == cell { return }
        _ = place(cell)
    }

    /// The number of `cell`, made (empty) when new; and whether it was.
    private mutating func place(_ cell: Projections.CellKey) -> (number: Int, inserted: Bool) {
        let (number, inserted) = table.insert(cell)
        guard inserted else { return (number, false) }
        cells.append(Cell(members: [], span: .empty))
        let user = Int(cell.user)
        if user >= numbersByUser.count {
            numbersByUser.append(contentsOf: repeatElement([], count: user + 1 - numbersByUser.count))
        }
        numbersByUser[user].append(UInt32(number))
        return (number, true)
    }

    /// Adds a sample spanning `span` to a cell. A sample counting twice towards one day (a clock
    /// turned back across midnight) is added once: its days come one after another, so it would
    /// be last.
    mutating func insert(_ sample: Int, spanning span: SampleSpan, into cell: Projections.CellKey) {
        let (number, inserted) =
            if let lastInserted, lastInserted.cell == cell { (lastInserted.number, false) } else { place(cell) }
        lastInserted = (cell, number)
        if inserted {
            // Room for a few samples at once: growing from one by doubling reallocated each
            // cell's list three or four times.
            cells[number].members.reserveCapacity(8)
        }
        let sample = UInt32(sample)
        if cells[number].members.last != sample {
            cells[number].members.append(sample)
            cells[number].span = cells[number].span.union(span)
        }
    }

    /// Removes a sample spanning `span` from a cell (nothing when it is not there).
    /// - Parameter spanOf: the span of another member, asked for each member left when the
    ///   removed sample bounded the cell's span (which is then taken again from them).
    mutating func remove(
        _ sample: Int, spanning span: SampleSpan, from cell: Projections.CellKey, spanOf: (UInt32) -> SampleSpan
    ) {
        guard let number = table.number(of: cell),
            let place = cells[number].members.lastIndex(of: UInt32(sample))
        else { return }
        cells[number].members.swapAt(place, cells[number].members.count - 1)
        cells[number].members.removeLast()
        if span.start == cells[number].span.start || span.end == cells[number].span.end {
            cells[number].span = cells[number].members.reduce(.empty) { $0.union(spanOf($1)) }
        }
    }
}

extension Projections.CellKey: FlatKey {
    package var flatHash: UInt64 {
        FlatHash.mix(
            UInt64(user) << 32 | UInt64(UInt32(bitPattern: day.daysSinceEpoch)), UInt64(metric.rawValue))
    }
}
