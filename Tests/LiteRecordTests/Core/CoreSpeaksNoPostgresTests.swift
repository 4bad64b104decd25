import Foundation
import Testing

/// SQL that only PostgreSQL speaks lives in LiteRecordPostgres, behind `SQLDialect`: no code
/// line of LiteRecord's own sources may write it, so that adding a backend touches no core file.
@Suite struct CoreSpeaksNoPostgresTests {
    /// Words of PostgreSQL's SQL (and its name), which SQLite's SQL never holds.
    static let markers = try! NSRegularExpression(
        pattern: #"\bpostgres|\btsvector\b|\btsquery\b|\bjsonb\b|\bbigint\b|\bis\s+not\s+distinct\b"#,
        options: [.caseInsensitive])

    static let coreSources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/LiteRecord")

    /// The code of a line: the line without its `//` comment, or nothing for a comment line.
    /// (A `//` inside a string literal cuts the line short, which only hides text after it.)
    static func code(of line: Substring) -> Substring {
        guard let comment = line.range(of: "//") else { return line }
        return line[..<comment.lowerBound]
    }

    @Test func coreSourcesWriteNoPostgresSQL() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.coreSources.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "the core's sources are at \(Self.coreSources.path)")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.coreSources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(Self.code(of: line))
                if let match = Self.markers.firstMatch(
                    in: code, range: NSRange(code.startIndex..., in: code)),
                    let range = Range(match.range, in: code)
                {
                    found.append("\(file):\(number + 1): \(code[range])")
                }
            }
        }
        #expect(
            found.isEmpty, "PostgreSQL SQL in LiteRecord's core (move it to LiteRecordPostgres): \(found)")
    }
}
