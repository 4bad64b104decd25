import Foundation
import Testing

/// Every ```swift block of README.md and of the DocC catalog's articles
/// (`Sources/LiteRecord/LiteRecord.docc/**/*.md`) is compiled and run by a test: its lines appear,
/// in order, in one test source file of this folder.
///
/// Lines are compared after trimming white space at both ends, and blank lines are ignored.
/// Other lines may come between a block's lines (the `#expect` checks of what the block did, and
/// the setup it needs, such as the values it uses); a block's type declarations may sit at the
/// top of the file while its statements run inside a `@Test` further down. A block preceded by
/// `<!-- not compiled: reason -->` is skipped.
@Suite("README code blocks")
struct ReadmeCodeBlockTests {
    struct CodeBlock {
        /// The README line of the opening fence.
        let line: Int
        let lines: [String]
        let isExcluded: Bool
    }

    static let documentationFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot =
        documentationFolder
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let readme = packageRoot.appendingPathComponent("README.md")
    static let catalog = packageRoot.appendingPathComponent("Sources/LiteRecord/LiteRecord.docc")

    /// The catalog's Markdown files (articles, the landing page, symbol extensions), as paths
    /// relative to the package root, sorted.
    static func catalogMarkdownFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: catalog.path) else { return [] }
        return enumerator.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".md") }
            .map { "Sources/LiteRecord/LiteRecord.docc/" + $0 }
            .sorted()
    }

    /// The PostgreSQL backend's documentation tests: blocks that `import LiteRecordPostgres`
    /// run there, in the test target that links it.
    static let postgresDocumentationFolder = packageRoot.appendingPathComponent(
        "Tests/LiteRecordPostgresTests/Documentation")

    /// The test sources of this folder and of the PostgreSQL one, each as its trimmed,
    /// non-blank lines.
    static func documentationTestSources() throws -> [[String]] {
        var sources: [[String]] = []
        for folder in [documentationFolder, postgresDocumentationFolder] {
            guard FileManager.default.fileExists(atPath: folder.path) else { continue }
            sources += try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".swift") && $0 != "ReadmeCodeBlockTests.swift" }
                .map { name in
                    try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                        .components(separatedBy: "\n")
                        .map { $0.trimmingCharacters(in: .whitespaces) }
                        .filter { !$0.isEmpty }
                }
        }
        return sources
    }

    /// The blocks of `file` (relative to the package root) that no test source holds, each
    /// described by its file, line and first line.
    static func uncoveredBlocks(of file: String, sources: [[String]]) throws -> (
        total: Int, uncovered: [String]
    ) {
        let markdown = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        return uncoveredBlocks(in: markdown, of: file, sources: sources)
    }

    static func uncoveredBlocks(in markdown: String, of file: String, sources: [[String]]) -> (
        total: Int, uncovered: [String]
    ) {
        let blocks = codeBlocks(in: markdown).filter { !$0.isExcluded }
        let uncovered = blocks.filter { block in !sources.contains { contains($0, block.lines) } }
            .map { "\(file) line \($0.line): the block starting `\($0.lines.first ?? "")`" }
        return (blocks.count, uncovered)
    }

    /// The ```swift blocks of a Markdown text.
    static func codeBlocks(in markdown: String) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var current: (line: Int, lines: [String], isExcluded: Bool)?
        var previousNonBlank = ""
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed == "```" {
                    blocks.append(
                        CodeBlock(line: block.line, lines: block.lines, isExcluded: block.isExcluded))
                    current = nil
                } else {
                    if !trimmed.isEmpty { block.lines.append(trimmed) }
                    current = block
                }
            } else if trimmed == "```swift" {
                current = (index + 1, [], previousNonBlank.hasPrefix("<!-- not compiled:"))
            }
            if !trimmed.isEmpty { previousNonBlank = trimmed }
        }
        return blocks
    }

    /// Whether `lines` holds every line of `block`, in order.
    static func contains(_ lines: [String], _ block: [String]) -> Bool {
        var next = block.startIndex
        for line in lines where next < block.endIndex && line == block[next] {
            next += 1
        }
        return next == block.endIndex
    }

    @Test func everySwiftBlockOfTheReadmeIsInADocumentationTest() throws {
        let result = try Self.uncoveredBlocks(of: "README.md", sources: Self.documentationTestSources())
        #expect(result.total > 10)
        for block in result.uncovered {
            #expect(Bool(false), "\(block) is not in any test of Tests/LiteRecordTests/Documentation/")
        }
    }

    @Test func everySwiftBlockOfTheDocumentationCatalogIsInADocumentationTest() throws {
        let files = Self.catalogMarkdownFiles()
        // The catalog's articles are there: a moved catalog must not make this test pass empty.
        #expect(files.contains("Sources/LiteRecord/LiteRecord.docc/GettingStarted.md"))
        #expect(files.count > 10)
        let sources = try Self.documentationTestSources()
        var total = 0
        for file in files {
            let result = try Self.uncoveredBlocks(of: file, sources: sources)
            total += result.total
            for block in result.uncovered {
                #expect(Bool(false), "\(block) is not in any test of Tests/LiteRecordTests/Documentation/")
            }
        }
        #expect(total > 20)
    }

    @Test func theCheckerFindsBlocksAndTellsCoveredFromChanged() {
        let markdown = """
            text
            ```swift
            let a = 1

                let b = a + 1   // kept
            ```
            <!-- not compiled: needs a device -->
            ```swift
            UIApplication.shared
            ```
            """
        let blocks = Self.codeBlocks(in: markdown)
        #expect(blocks.map(\.line) == [2, 8])
        #expect(blocks.map(\.isExcluded) == [false, true])
        #expect(blocks[0].lines == ["let a = 1", "let b = a + 1   // kept"])
        #expect(
            Self.contains(
                ["setup()", "let a = 1", "#expect(a == 1)", "let b = a + 1   // kept"], blocks[0].lines))
        #expect(!Self.contains(["let b = a + 1   // kept", "let a = 1"], blocks[0].lines))
        #expect(!Self.contains(["let a = 1", "let b = a + 2   // kept"], blocks[0].lines))
        let changed = Self.uncoveredBlocks(
            in: markdown, of: "Article.md", sources: [["let a = 1", "let b = a + 2   // kept"]])
        #expect(changed.total == 1)
        #expect(changed.uncovered == ["Article.md line 2: the block starting `let a = 1`"])
    }
}
