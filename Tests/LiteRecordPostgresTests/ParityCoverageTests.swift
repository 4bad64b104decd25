import Foundation
import Testing

// Every public operation of the query types and of the protocols both backends adopt runs in a
// parity test (a check run on SQLite and on PostgreSQL): a source scan finds each method's
// declaration in Sources/LiteRecord and a call of it, with its first argument label, in the
// parity sources. A public method added without such a test fails here.

@Suite struct ParityCoverageTests {
    /// The types whose public methods every backend must run alike.
    static let sharedTypes: Set<String> = [
        "Query", "Projection", "QueryIncludingAll", "QueryIncludingOne", "QueryIncludingAllTree",
        "QueryIncludingOneTree", "IncludingQuery", "ModelContext", "ModelDatabase",
    ]

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Operation: Hashable, CustomStringConvertible {
        let type: String
        let name: String
        /// The arguments' labels, in order; `_` for an unlabeled one.
        let labels: [String]
        var description: String { "\(type).\(name)(\(labels.map { $0 + ":" }.joined()))" }
    }

    /// Swift files below a folder of the package, as paths relative to the root.
    static func swiftFiles(under folder: String) -> [String] {
        let base = packageRoot.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }.sorted()
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The public methods declared on the shared types (in their declarations and extensions;
    /// every requirement of the two protocols).
    static func operations() throws -> Set<Operation> {
        let typeLine = try Regex(
            #"^(?:public |package )?(?:extension|struct|protocol|final class|class|enum) (\w+)"#)
        let functionLine = try Regex(
            #"^    (?:@\w+ )*(public )?(?:mutating )?func (`?\w+`?)(?:<[^(]*>)?\(([^)]*)"#)
        var operations: Set<Operation> = []
        for file in swiftFiles(under: "Sources/LiteRecord") {
            var current: String?
            for line in try text(file).split(separator: "\n", omittingEmptySubsequences: false) {
                if let match = try typeLine.firstMatch(in: line) {
                    current = match.output[1].substring.map(String.init)
                    continue
                }
                guard let type = current, sharedTypes.contains(type),
                    let match = try functionLine.firstMatch(in: line)
                else { continue }
                let isRequirement = type == "ModelContext" || type == "ModelDatabase"
                guard match.output[1].substring != nil || isRequirement else { continue }
                let name = String(match.output[2].substring ?? "").replacingOccurrences(of: "`", with: "")
                let parameters = (match.output[3].substring ?? "").split(separator: ",")
                let labels = parameters.compactMap { parameter in
                    parameter.split(separator: ":").first?.split(separator: " ").first.map(String.init)
                }
                operations.insert(Operation(type: type, name: name, labels: labels))
            }
        }
        return operations
    }

    /// The parity sources: the checks run on both backends and their support.
    static func paritySources() throws -> String {
        try swiftFiles(under: "Tests/LiteRecordPostgresTests").filter { path in
            let name = (path as NSString).lastPathComponent
            return name.contains("Parity") && name != "ParityCoverageTests.swift" || name.hasPrefix("One")
                || path.contains("/Support/")
        }.map(text).joined(separator: "\n")
    }

    /// Whether `sources` call the operation with its labels: `.find(P.self, key: [1])` for
    /// `find(_:key:)`, `.where {` for `where(_:)`.
    static func isCalled(_ operation: Operation, in sources: String) throws -> Bool {
        let name = NSRegularExpression.escapedPattern(for: operation.name)
        let labels = operation.labels.filter { $0 != "_" }
        let pattern =
            labels.isEmpty
            ? #"\.\#(name)\s*[({]"#
            : #"\.\#(name)\("# + labels.map { #".*?\b\#($0):"# }.joined()
        return try Regex(pattern).firstMatch(in: sources) != nil
    }

    @Test func everyPublicOperationOfTheSharedTypesHasAParityTest() throws {
        let operations = try Self.operations()
        // The scan finds the shapes it is meant to: a query's fetch, a protocol's requirement.
        #expect(operations.count > 60)
        #expect(
            operations.contains(Operation(type: "ModelContext", name: "update", labels: ["_", "columns"])))
        #expect(operations.contains(Operation(type: "Query", name: "matching", labels: ["fts5Query"])))
        let sources = try Self.paritySources()
        let untested = try operations.filter { try !Self.isCalled($0, in: sources) }
        #expect(
            untested.isEmpty,
            "public operations with no parity test: \(untested.sorted { "\($0)" < "\($1)" })")
    }

    @Test func anOperationNoParitySourceCallsIsReported() throws {
        let missing = Operation(type: "Query", name: "fetchEverythingTwice", labels: [])
        #expect(try !Self.isCalled(missing, in: Self.paritySources()))
        #expect(try Self.isCalled(Operation(type: "Query", name: "offset", labels: ["_"]), in: ".offset(2)"))
        let findByKey = Operation(type: "M", name: "find", labels: ["_", "key"])
        #expect(try Self.isCalled(findByKey, in: "db.find(P.self, key: [1])"))
        #expect(try !Self.isCalled(findByKey, in: "db.find(P.self, id: 1)"))
    }
}
