import Foundation
import Testing

/// Every ```swift block of README.md is compiled and run by a test: its lines appear, in order,
/// in one test source file of this folder.
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
    static let readme =
        documentationFolder
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

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
        let markdown = try String(contentsOf: Self.readme, encoding: .utf8)
        let blocks = Self.codeBlocks(in: markdown)
        #expect(blocks.count > 10)
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.documentationFolder.path)
            .filter { $0.hasSuffix(".swift") && $0 != "ReadmeCodeBlockTests.swift" }
            .map { name in
                try String(contentsOf: Self.documentationFolder.appendingPathComponent(name), encoding: .utf8)
                    .components(separatedBy: "\n")
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
            }
        for block in blocks where !block.isExcluded {
            let covered = sources.contains { Self.contains($0, block.lines) }
            #expect(
                covered,
                "README.md line \(block.line): the block starting `\(block.lines.first ?? "")` is not in any test of Tests/LiteRecordTests/Documentation/"
            )
        }
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
    }
}
