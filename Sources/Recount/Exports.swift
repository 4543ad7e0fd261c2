// The embedding API speaks some of the log's types: `LogConfiguration.Durability` for
// `RecountEngine(directory:durability:)`, `TornTail` for `recovery`, `LogStats` in
// `VerifyResult`, `LogRepair` from `repairLog`. With `MemberImportVisibility` a caller could
// name their members (`.none`, `recovery.offset`) only by importing `RecountLog` as well;
// re-exporting it lets `import Recount` be the whole of an embedder's imports (swift-nio's
// `NIO` re-exports `NIOCore` the same way).
@_exported public import RecountLog
