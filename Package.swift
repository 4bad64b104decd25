// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LiteRecord",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiteRecord", targets: ["LiteRecord"])
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "LiteRecord",
            dependencies: ["CSQLite"],
            path: "Sources/LiteRecord"
        ),
        .executableTarget(
            name: "LiteRecordBenchmarks",
            dependencies: ["LiteRecord", "CSQLite"],
            path: "Benchmarks"
        ),
        // Child processes for the reliability tests (a writer to SIGKILL, concurrent writers).
        .executableTarget(
            name: "LiteRecordTestHelper",
            dependencies: ["LiteRecord"],
            path: "Tests/LiteRecordTestHelper"
        ),
        .testTarget(
            name: "LiteRecordTests",
            // The tests run LiteRecordTestHelper as a separate process: the dependency makes every
            // build of the tests build it too, next to the test bundle, where the tests find it.
            dependencies: ["LiteRecord", "CSQLite", "LiteRecordTestHelper"],
            path: "Tests/LiteRecordTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
