// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "LiteRecord",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiteRecord", targets: ["LiteRecord"]),
        .executable(name: "literecord", targets: ["literecord"]),
        // PostgreSQL: its own product, so a user of LiteRecord alone never links libpq.
        .library(name: "LiteRecordPostgres", targets: ["LiteRecordPostgres"]),
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
        // The command-line tool: its commands live in LiteRecordCLI, where the tests reach them.
        .target(
            name: "LiteRecordCLI",
            dependencies: ["LiteRecord"],
            path: "Sources/LiteRecordCLI"
        ),
        .executableTarget(
            name: "literecord",
            dependencies: ["LiteRecordCLI"],
            path: "Sources/literecord"
        ),
        // Depends on the memory probe so that `swift run LiteRecordBenchmarks` builds it too: the
        // peak-memory workload runs it, from the same directory, as its child processes.
        .executableTarget(
            name: "LiteRecordBenchmarks",
            dependencies: [
                "LiteRecord", "CSQLite", "LiteRecordPostgres", "CLibPQ", "TenIntsFixture",
                "LiteRecordMemoryProbe",
            ],
            path: "Benchmarks",
            exclude: ["TenIntsFixture", "MemoryProbe"]
        ),
        .target(name: "TenIntsFixture", dependencies: ["CSQLite"], path: "Benchmarks/TenIntsFixture"),
        // One child of the peak-memory workload: linked with LiteRecord alone, as an application is.
        .executableTarget(
            name: "LiteRecordMemoryProbe",
            dependencies: ["LiteRecord", "CSQLite", "TenIntsFixture"],
            path: "Benchmarks/MemoryProbe"
        ),
        // Child processes for the reliability tests (a writer to SIGKILL, concurrent writers).
        .executableTarget(
            name: "LiteRecordTestHelper",
            dependencies: ["LiteRecord"],
            path: "Tests/LiteRecordTestHelper"
        ),
        // Examples/: small programs to copy from; CI builds and runs them (Scripts/run-examples).
        .executableTarget(
            name: "NotesApp", dependencies: ["LiteRecord", "LiteRecordPostgres"], path: "Examples/NotesApp",
            exclude: ["README.md"]),
        .executableTarget(
            name: "ConcurrentServer", dependencies: ["LiteRecord"], path: "Examples/ConcurrentServer",
            exclude: ["README.md"]),
        .testTarget(
            name: "LiteRecordTests",
            // The tests run LiteRecordTestHelper and literecord as separate processes: the
            // dependency makes every build of the tests build them too, next to the test bundle,
            // where the tests find them.
            dependencies: [
                "LiteRecord", "CSQLite", "LiteRecordTestHelper", "LiteRecordCLI", "literecord",
                "LiteRecordTestSupport",
            ],
            path: "Tests/LiteRecordTests"
        ),
        // What both test targets share: running tests that block off Swift's cooperative pool,
        // waiting for live values on the main actor.
        .target(
            name: "LiteRecordTestSupport", dependencies: ["LiteRecord"], path: "Tests/LiteRecordTestSupport"),
        // PostgreSQL backend (the same models and queries through libpq); see README "PostgreSQL".
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "LiteRecordPostgres",
            dependencies: ["LiteRecord", "CLibPQ"],
            path: "Sources/LiteRecordPostgres"
        ),
        .testTarget(
            name: "LiteRecordPostgresTests",
            dependencies: ["LiteRecordPostgres", "LiteRecord", "LiteRecordTestSupport"],
            path: "Tests/LiteRecordPostgresTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
