import Foundation
import Testing

/// The `Package.swift` a user writes, as the Getting started article shows it.
///
/// A manifest cannot run as test code (it imports `PackageDescription`), so
/// ``ReadmeCodeBlockTests`` skips that block and this suite keeps it true instead: it reads the
/// snippet's tools version, platforms, package dependency and products, and checks each against
/// the real `Package.swift` and the latest release `CHANGELOG.md` records.
@Suite struct PackageManifestSnippetTests {
    /// What a manifest snippet (or the real manifest) says, as the test reads it.
    struct Manifest {
        var toolsVersion: String?
        /// `macOS` → `v15`.
        var platforms: [String: String] = [:]
        /// `.package(url:from:)`: each URL and its version.
        var packages: [(url: String, version: String)] = []
        /// `.product(name:package:)`: each product and its package.
        var products: [(name: String, package: String)] = []
        /// `.library(name:...)`: the libraries a package offers.
        var libraries: Set<String> = []

        init(_ source: String) {
            if let match = source.firstMatch(of: #/swift-tools-version:\s*([0-9.]+)/#) {
                toolsVersion = String(match.1)
            }
            if let list = source.firstMatch(of: #/platforms:\s*\[([^\]]*)\]/#) {
                for match in list.1.matches(of: #/\.(\w+)\(\.(v[0-9_]+)\)/#) {
                    platforms[String(match.1)] = String(match.2)
                }
            }
            packages = source.matches(of: #/\.package\(\s*url:\s*"([^"]*)"\s*,\s*from:\s*"([^"]*)"\s*\)/#)
                .map { (String($0.1), String($0.2)) }
            products = source.matches(of: #/\.product\(\s*name:\s*"([^"]*)"\s*,\s*package:\s*"([^"]*)"\s*\)/#)
                .map { (String($0.1), String($0.2)) }
            libraries = Set(source.matches(of: #/\.library\(\s*name:\s*"([^"]*)"/#).map { String($0.1) })
        }
    }

    static let gettingStarted = "Sources/LiteRecord/LiteRecord.docc/GettingStarted.md"

    /// The package manifests shown in ```swift blocks of `markdown` (blocks that start with the
    /// tools-version comment), and whether each is marked as not compiled.
    static func manifestBlocks(in markdown: String) -> [ReadmeCodeBlockTests.CodeBlock] {
        ReadmeCodeBlockTests.codeBlocks(in: markdown).filter {
            $0.lines.first?.hasPrefix("// swift-tools-version") == true
        }
    }

    /// The versions of the releases CHANGELOG.md records (`## [1.2.0] - 2026-01-31`), newest
    /// first; empty while everything is `[Unreleased]`.
    static func releasedVersions(in changelog: String) -> [String] {
        changelog.matches(of: #/^## \[([0-9]+\.[0-9]+\.[0-9]+)\]/#.anchorsMatchLineEndings())
            .map { String($0.1) }
    }

    /// The identity SwiftPM gives a package fetched from `url`: its last path component without
    /// `.git`, compared ignoring case.
    static func identity(ofPackageAt url: String) -> String {
        var name = url.split(separator: "/").last.map(String.init) ?? url
        if name.hasSuffix(".git") { name.removeLast(4) }
        return name.lowercased()
    }

    static func read(_ path: String) throws -> String {
        try String(
            contentsOf: ReadmeCodeBlockTests.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theGettingStartedManifestMatchesThePackage() throws {
        let blocks = Self.manifestBlocks(in: try Self.read(Self.gettingStarted))
        try #require(blocks.count == 1, "Getting started shows one Package.swift")
        // Skipped by the compiled-blocks check: this suite is what checks it.
        #expect(blocks[0].isExcluded)
        let snippet = Manifest(blocks[0].lines.joined(separator: "\n"))
        let package = Manifest(try Self.read("Package.swift"))

        // The tools version LiteRecord itself needs, not a lower one that cannot resolve it.
        #expect(snippet.toolsVersion != nil && snippet.toolsVersion == package.toolsVersion)
        // Each platform shown at the version LiteRecord declares: a lower one fails to build.
        #expect(!snippet.platforms.isEmpty)
        for (platform, version) in snippet.platforms {
            #expect(package.platforms[platform] == version, "\(platform) \(version)")
        }

        try #require(snippet.packages.count == 1)
        let dependency = snippet.packages[0]
        #expect(dependency.url.hasPrefix("https://") && dependency.url.hasSuffix("/LiteRecord.git"))
        #expect(dependency.version.firstMatch(of: #/^[0-9]+\.[0-9]+\.[0-9]+$/#) != nil)
        // Once a release is recorded, the snippet names it and the real address.
        if let latest = Self.releasedVersions(in: try Self.read("CHANGELOG.md")).first {
            #expect(dependency.version == latest, "the latest release in CHANGELOG.md is \(latest)")
            // 0.1.0 is recorded, but where LiteRecord is published is not decided yet: the
            // snippet keeps the OWNER placeholder until it is. Once the real address is there,
            // this known issue stops occurring and the test fails: remove the wrapper then.
            withKnownIssue("the publication address of LiteRecord is not decided: OWNER placeholder") {
                #expect(
                    !dependency.url.contains("OWNER"),
                    "the placeholder URL is still in \(Self.gettingStarted)")
            }
        }

        // Every product exists in Package.swift, from the package the URL names; both libraries
        // are shown.
        #expect(Set(snippet.products.map(\.name)) == ["LiteRecord", "LiteRecordPostgres"])
        for product in snippet.products {
            #expect(package.libraries.contains(product.name), "no library \(product.name) in Package.swift")
            #expect(product.package.lowercased() == Self.identity(ofPackageAt: dependency.url))
        }
    }

    /// The reader of this suite finds what it checks, and notices a changed snippet.
    @Test func theReaderFindsEachPartAndTheLatestRelease() {
        let manifest = Manifest(
            """
            // swift-tools-version:6.0
            platforms: [.macOS(.v15), .iOS(.v18)],
            .package(url: "https://example.com/a/LiteRecord.git", from: "1.2.3"),
            .product(name: "LiteRecord", package: "LiteRecord"),
            .library(name: "X", targets: ["X"]),
            """)
        #expect(manifest.toolsVersion == "6.0")
        #expect(manifest.platforms == ["macOS": "v15", "iOS": "v18"])
        #expect(manifest.packages.map(\.version) == ["1.2.3"])
        #expect(manifest.products.map(\.name) == ["LiteRecord"])
        #expect(manifest.libraries == ["X"])
        #expect(Self.identity(ofPackageAt: "https://example.com/a/LiteRecord.git") == "literecord")
        let changelog = "## [Unreleased]\n### Fixes\n## [1.1.0] - 2027-01-02\n## [1.0.0] - 2026-12-24\n"
        #expect(Self.releasedVersions(in: changelog) == ["1.1.0", "1.0.0"])
        #expect(Self.releasedVersions(in: "## [Unreleased]\n").isEmpty)
        // The real manifest's libraries, which the snippet's products are checked against.
        let package = Manifest((try? Self.read("Package.swift")) ?? "")
        #expect(package.libraries == ["LiteRecord", "LiteRecordPostgres"])
        #expect(package.platforms["macOS"] != nil)
    }
}
