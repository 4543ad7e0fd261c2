extension Projections {
    /// Writes the rollups in cell order into the digest's canonical bytes.
    func writeRollups(_ out: inout CanonicalBytes, flush: () -> Void) {
        out.append("rollups")
    }
}
