import Foundation
import LiteRecord

/// The article model of the search tests: title and body indexed.
struct SearchArticle: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String
    var section: String

    static let schema = Schema<SearchArticle>(table: "articles").fullTextSearch(on: [\.title, \.body])
}

/// Swift's own word matching, the oracle of the search tests: words are runs of letters and
/// digits, compared ignoring case and diacritics.
enum WordOracle {
    static func words(_ text: String) -> Set<String> {
        Set(
            text.split(whereSeparator: { !($0.isLetter || $0.isNumber) })
                .map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) })
    }

    /// Whether the article holds every word of `query` (no word: it matches nothing).
    static func matches(_ article: SearchArticle, query: String) -> Bool {
        let wanted = words(query)
        guard !wanted.isEmpty else { return false }
        return wanted.isSubset(of: words(article.title).union(words(article.body)))
    }
}

extension Database {
    /// FTS5's own check of the index against the content table (throws when they differ; rank 1
    /// compares the index with the content table's rows, not only with itself).
    func checkSearchIndex(_ table: String = "articles") throws {
        let index = table + "_fts"
        try execute(
            sql: "INSERT INTO \(identifier: index)(\(identifier: index), rank) VALUES ('integrity-check', 1)")
    }

    /// The ids `matching(text)` returns, and the ids the oracle expects, over all rows.
    func searchAndOracle(_ text: String) throws -> (found: [Int64], expected: [Int64]) {
        let found = try query(SearchArticle.self).matching(text).fetchAll().compactMap(\.id).sorted()
        let expected = try fetchAll(SearchArticle.self).filter { WordOracle.matches($0, query: text) }
            .compactMap(\.id).sorted()
        return (found, expected)
    }
}
