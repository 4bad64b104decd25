import Foundation
import Testing

/// The README stays a tour: the two commands, the quick start, and a short paragraph per
/// feature with a link to its article. Detail (tables, long explanations, more examples) lives
/// in the DocC articles, where a reader of that feature looks.
@Suite struct ReadmeSizeTests {
    /// The most bytes README.md may hold.
    static let maximumReadmeBytes = 15_000

    @Test func theReadmeStaysATour() throws {
        let readme = try Data(contentsOf: ReadmeCodeBlockTests.readme)
        #expect(
            readme.count <= Self.maximumReadmeBytes,
            """
            README.md is \(readme.count) bytes, over \(Self.maximumReadmeBytes): keep it a tour \
            (the two commands, the quick start, a short paragraph per feature with a link) and move \
            detail into the feature's article in Sources/LiteRecord/LiteRecord.docc/
            """)
    }

    /// The README starts with the two commands a newcomer needs: one runs the benchmark, one
    /// the tests; then comes the quick start.
    @Test func theReadmeStartsWithTheTwoCommandsThenTheQuickStart() throws {
        let readme = try String(contentsOf: ReadmeCodeBlockTests.readme, encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let firstFence = try #require(lines.firstIndex { $0.hasPrefix("```") })
        #expect(lines[firstFence] == "```sh")
        #expect(lines[firstFence + 1].hasPrefix("swift run -c release LiteRecordBenchmarks"))
        #expect(lines[firstFence + 2].hasPrefix("swift test "))
        let firstSwiftBlock = try #require(ReadmeCodeBlockTests.codeBlocks(in: readme).first)
        #expect(firstSwiftBlock.lines.prefix(2) == ["import Foundation", "import LiteRecord"])
        #expect(firstSwiftBlock.lines.contains("struct Player: Model, Equatable {"))
    }
}
