import Foundation

/// Scans this package's test sources for a pattern that must not appear, for the tests that guard
/// against a whole kind of defect (`MacroClosureToolchainTests`, `OffCooperativePoolTests`).
enum TestSourceScan {
    /// The `Tests/` folder, found from the calling test file's path.
    static func testsFolder(from filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// `Tests/relative/path.swift:line` for every site `lines` finds in the Swift files under
    /// `folder` that `isScanned` accepts (given their path relative to `folder`), sorted.
    static func sites(
        under folder: URL, where isScanned: (String) -> Bool, lines: (String) throws -> [Int]
    ) throws -> [String] {
        let root = folder.standardizedFileURL.path
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["cannot list \(root)"] }
        var found: [String] = []
        for case let relative as String in files where relative.hasSuffix(".swift") && isScanned(relative) {
            let source = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            found += try lines(source).map { "Tests/\(relative):\($0)" }
        }
        return found.sorted()
    }

    /// Whether a relative path names a file other than `fileName`.
    static func isNot(_ fileName: String, _ relative: String) -> Bool {
        (relative as NSString).lastPathComponent != fileName
    }

    /// The 1-based line numbers where `pattern` matches `source` outside comments and string
    /// literals.
    static func lines(matching pattern: String, in source: String) throws -> [Int] {
        let masked = String(decoding: MacroClosureScanner.mask(Array(source.utf8)), as: UTF8.self)
        let expression = try NSRegularExpression(pattern: pattern)
        let text = masked as NSString
        return expression.matches(in: masked, range: NSRange(location: 0, length: text.length)).map { match in
            text.substring(to: match.range.location).reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        }
    }
}
