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
        .testTarget(
            name: "LiteRecordTests",
            dependencies: ["LiteRecord", "CSQLite"],
            path: "Tests/LiteRecordTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
