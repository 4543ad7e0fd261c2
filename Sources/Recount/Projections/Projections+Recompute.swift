extension Projections {
    /// Writes the rollups in cell order into the digest's canonical bytes.
    func writeRollups(_ out: inout CanonicalBytes, flush: () -> Void) {
        out.append("rollups")
    }
}

extension Projections {
    func writeRollupCheckpoint(_ out: inout CanonicalBytes) {}
    mutating func readRollupCheckpoint(_ input: inout CheckpointReader) throws(CheckpointReader.Malformed) {}
}
