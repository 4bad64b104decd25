import Foundation
import LiteRecord
import Testing

/// Arrays built in place go through `Array(filling:_:)`, never straight through
/// `Array(unsafeUninitializedCapacity:initializingWith:)`: with a count of 0 that initializer
/// writes to the standard library's shared empty-array storage, a data race that failed a CI
/// run under the thread sanitizer (an empty PostgreSQL fetch).
@Suite struct ArraysBuiltInPlaceTests {
    @Test func noSourceFileBuildsAnArrayInPlaceAroundTheHelper() throws {
        let sources = TestSourceScan.testsFolder().deletingLastPathComponent().appendingPathComponent(
            "Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
            .compactMap { $0 as? String }.filter {
                $0.hasSuffix(".swift") && !$0.hasSuffix("/Array+Filled.swift")
            }
        #expect(files.count > 100, "the sources are at \(sources.path)")
        var sites: [String] = []
        for file in files {
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            sites += try TestSourceScan.lines(
                matching: #"\]\s*\(\s*unsafeUninitializedCapacity:"#, in: source
            )
            .map { "Sources/\(file):\($0)" }
        }
        #expect(sites.isEmpty, "use Array(filling:_:) instead: \(sites)")
    }

    @Test func anEmptyArrayIsBuiltWithoutCallingTheInitializer() {
        var called = false
        let empty = [Int](filling: 0) { _, _ in called = true }
        #expect(empty.isEmpty && !called)
        let three = [Int](filling: 3) { buffer, initialized in
            for index in 0..<3 { buffer[index] = index * 10 }
            initialized = 3
        }
        #expect(three == [0, 10, 20])
    }
}
