// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Recount",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Recount", targets: ["Recount"]),
        .library(name: "RecountLog", targets: ["RecountLog"]),
        .executable(name: "recount", targets: ["recount"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(
            name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(
            name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // Debian's liblmdb-dev ships no pkg-config file; the module map links "lmdb".
        .systemLibrary(name: "CLMDB", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "RecountLog", dependencies: ["CLZ4", "CXXHash"]),
        .target(name: "Recount", dependencies: ["RecountLog", "CCrypto"]),
        .target(name: "RecountStore", dependencies: ["CLMDB", "CSQLite", "RecountLog"]),
        .target(name: "RecountImport", dependencies: ["Recount", "CArchive", "CXML2"]),
        .executableTarget(name: "recount", dependencies: ["Recount", "RecountImport", "RecountLog"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport"),
        .executableTarget(
            name: "LogBenchmark", dependencies: ["BenchmarkSupport", "RecountLog", "TestSupport"],
            path: "Benchmarks/LogBenchmark"),
        .executableTarget(
            name: "IngestBenchmark", dependencies: ["BenchmarkSupport", "Recount", "RecountLog", "TestSupport"],
            path: "Benchmarks/IngestBenchmark"),
        .executableTarget(
            name: "ProjectionBenchmark",
            dependencies: ["BenchmarkSupport", "Recount", "RecountLog", "TestSupport"],
            path: "Benchmarks/ProjectionBenchmark"),
        .executableTarget(
            name: "ImportBenchmark", dependencies: ["BenchmarkSupport", "Recount", "RecountImport", "TestSupport"],
            path: "Benchmarks/ImportBenchmark"),
        .executableTarget(
            name: "StoreBakeoff", dependencies: ["BenchmarkSupport", "RecountStore", "TestSupport"],
            path: "Benchmarks/StoreBakeoff"),
        .executableTarget(name: "SyncService", dependencies: ["Recount"], path: "Examples/SyncService"),
        .testTarget(name: "RecountLogTests", dependencies: ["RecountLog", "TestSupport"]),
        .testTarget(name: "RecountStoreTests", dependencies: ["RecountStore", "TestSupport"]),
        .testTarget(
            name: "RecountTests", dependencies: ["Recount", "RecountLog", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "RecountImportTests", dependencies: ["RecountImport", "Recount", "TestSupport"], exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
