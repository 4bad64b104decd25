import Foundation
import LiteRecord

// Full-text search in PostgreSQL's dialect: the search is a stored generated `tsvector` column
// of the model's own table (with a GIN index), so there is no second table and no trigger, and
// `matching(_:)` is a condition on that column.
//
// Both sides, the indexed text and the searched words, go through the same SQL normalization,
// chosen to find what SQLite's default `unicode61` tokenizer finds: Unicode lowercase (ICU's
// root locale, whatever the database's locale), diacritics removed (NFD, then the combining
// marks U+0300–U+036F dropped), and every character that is not a letter or a digit a word
// separator, so that PostgreSQL's parser sees plain words (never e-mail addresses, host names or
// hyphenated compounds, which it would keep whole). The `simple` configuration then takes each
// word as it is: no stemming, no stop words. This needs a UTF-8 database and a server built with
// ICU (the `und-x-icu` collation), as the backend's `lowercased()` already does.

/// PostgreSQL SQL for full-text search.
enum PostgresFullTextSearch {
    /// The generated column that holds the index.
    static let column = "literecord_search"

    /// The name of the GIN index on ``column`` of `table`.
    static func indexName(table: String) -> String { "\(table)_\(column)_index" }

    /// The comment LiteRecord writes on its column: it marks the column as LiteRecord's and
    /// says what it indexes, so a change of the indexed properties (or of this normalization,
    /// by its version) is seen and the column rebuilt.
    static let commentPrefix = "LiteRecord full-text index"

    /// The comment of the column that indexes these columns.
    static func comment(indexing columns: [String]) -> String {
        "\(commentPrefix) v1 of \(columns.map(SQL.quoteIdentifier).joined(separator: ", "))"
    }

    /// The column's definition: `tsvector`, generated from the indexed columns (any type, read
    /// as text; NULL as no word), stored.
    static func columnDefinition(indexing columns: [String]) -> String {
        let text = columns.map { "coalesce(CAST(\(SQL.quoteIdentifier($0)) AS text), '')" }.joined(
            separator: " || ' ' || ")
        return "\(SQL.quoteIdentifier(column)) tsvector GENERATED ALWAYS AS "
            + "(to_tsvector('simple'::regconfig, \(normalized(SQL(text)).text))) STORED"
    }

    /// Text as the index reads it: lowercase, without diacritics, letters and digits separated
    /// by spaces. Every function in it is immutable, as a generated column requires.
    static func normalized(_ text: SQL) -> SQL {
        "regexp_replace(regexp_replace(normalize(lower((\(text)) COLLATE \"und-x-icu\"), NFD), "
            + "'[\\u0300-\\u036f]+', '', 'g'), '[^[:alnum:]]+', ' ', 'g')"
    }

    /// The selected rank of a search (a name no model column is expected to have).
    static let rankColumn = "literecord_match_rank"
    /// The selected snippet, with its marks.
    static let snippetColumn = "literecord_match_snippet"
    /// The selected snippet without marks.
    static let fragmentColumn = "literecord_match_fragment"

    /// The search as a `tsquery`: each `matching(_:)`'s words, bound as one text and normalized
    /// as the index is, all required (`&`). `nil` when a text has no word, which matches
    /// nothing (as on SQLite); `plainto_tsquery` would say so in a notice.
    private static func tsquery<M>(of query: Query<M>) -> SQL? {
        guard let terms = query.searchWords else { return nil }
        var combined: SQL?
        for words in terms {
            // `backendSelectSQL` refuses FTS5 syntax before any SQL is built.
            guard let words, !words.isEmpty else { return nil }
            let bound: SQL = "CAST(\(words.joined(separator: " ")) AS text)"
            let one: SQL = "plainto_tsquery('simple'::regconfig, \(normalized(bound)))"
            if var all = combined {
                all.append(" && ")
                all.append(one)
                combined = all
            } else {
                combined = one
            }
        }
        return combined.map { combined -> SQL in "(\(combined))" }
    }

    private static func searchColumn(of table: TableSchema) -> SQL? {
        guard table.fullTextColumns != nil else { return nil }
        return SQL(SQL.quoteIdentifier(table.tableName) + "." + SQL.quoteIdentifier(column))
    }

    /// The WHERE condition of a search: the search column matches the query.
    static func condition<M: Model>(of query: Query<M>) -> SQL? {
        guard query.searchWords != nil, let table = query.modelTable, let column = searchColumn(of: table)
        else {
            return nil
        }
        guard let tsquery = tsquery(of: query) else { return SQL(PostgresDialect().falseCondition) }
        let condition: SQL = "\(column) @@ \(tsquery)"
        return condition
    }

    /// The relevance of a row: `ts_rank`, divided by 1 + the logarithm of the document's length
    /// (normalization 1), so that a short text holding the words ranks above a long one, as
    /// with SQLite's `bm25`.
    private static func rank<M>(of query: Query<M>, table: TableSchema) -> SQL? {
        guard let column = searchColumn(of: table), let tsquery = tsquery(of: query) else { return nil }
        let rank: SQL = "ts_rank(\(column), \(tsquery), 1)"
        return rank
    }

    /// `*` is the model's columns (never the search column, a `tsvector` as big as the text),
    /// with the rank when the results are ranked (so that `DISTINCT` may order by it) and the
    /// snippet when asked.
    static func selection<M>(_ selection: SQL, of query: Query<M>, table: TableSchema) -> SQL {
        guard let indexed = table.fullTextColumns, selection.text == "*" else { return selection }
        let quotedTable = SQL.quoteIdentifier(table.tableName)
        var columns = SQL(
            table.columnNames.map { quotedTable + "." + SQL.quoteIdentifier($0) }.joined(separator: ", "))
        if !query.isOrdered, let rank = rank(of: query, table: table) {
            columns.append(", \(rank) AS \(SQL(SQL.quoteIdentifier(rankColumn)))")
        }
        if let snippet = query.searchSnippet, let tsquery = tsquery(of: query) {
            let column = quotedTable + "." + SQL.quoteIdentifier(indexed[snippet.column])
            let document = SQL(verbatim: "coalesce(CAST(" + column + " AS text), '')")
            // The same fragment twice: with the marks, and without them, which tells whether
            // text was left out before or after it (PostgreSQL writes no ellipsis).
            for (options, name) in [
                (headlineOptions(snippet.style, marked: true), snippetColumn),
                (headlineOptions(snippet.style, marked: false), fragmentColumn),
            ] {
                columns.append(
                    ", ts_headline('simple'::regconfig, \(document), \(tsquery), \(options)) "
                        + "AS \(SQL(SQL.quoteIdentifier(name)))")
            }
        }
        return columns
    }

    /// Best match first: by the rank selected beside the columns, or, for another selection,
    /// by the rank itself (not with `DISTINCT`, where PostgreSQL orders only by selected values:
    /// the rows then come unranked).
    static func rankOrder<M>(of query: Query<M>, table: TableSchema, selection: SQL) -> SQL {
        guard let rank = rank(of: query, table: table) else { return query.orderClause() }
        if selection.text == "*" {
            return SQL(verbatim: " ORDER BY \(SQL.quoteIdentifier(rankColumn)) DESC")
        }
        return query.isDistinct ? "" : " ORDER BY \(rank) DESC"
    }

    /// `ts_headline`'s options, bound as one text: the marks, and at most
    /// `SnippetStyle.clampedTokens` words (PostgreSQL wants at least 2), from the best match
    /// on; a text that fits is shown whole, and one that does not gets `MinWords`, one fewer.
    /// Values are double-quoted, inner quotes doubled, as PostgreSQL's option lists read them.
    private static func headlineOptions(_ style: SnippetStyle, marked: Bool) -> SQL {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        let maximum = Swift.max(style.clampedTokens, 2)
        let options =
            "StartSel=\(quoted(marked ? style.before : "")), StopSel=\(quoted(marked ? style.after : "")), "
            + "MaxWords=\(maximum), MinWords=\(maximum - 1), ShortWord=0"
        return "\(options)"
    }
}

extension SnippetStyle {
    /// The snippet of a PostgreSQL headline: ``ellipsis`` added where the fragment (the same
    /// headline without marks) does not reach the start or the end of the document.
    /// The two are compared from their first to their last letter or digit: PostgreSQL may
    /// leave punctuation out at either end.
    func postgresSnippet(marked: String, fragment: String, document: String) -> String {
        func words(_ text: String) -> Substring {
            let isWordCharacter = { (character: Character) in character.isLetter || character.isNumber }
            guard let first = text.firstIndex(where: isWordCharacter),
                let last = text.lastIndex(where: isWordCharacter)
            else { return "" }
            return text[first...last]
        }
        let shown = words(fragment)
        let whole = words(document)
        guard !shown.isEmpty else { return marked }
        let leading = whole.hasPrefix(shown) ? "" : ellipsis
        let trailing = whole.hasSuffix(shown) ? "" : ellipsis
        return leading + marked + trailing
    }
}

/// The generated column that holds a model's full-text index on PostgreSQL.
struct PostgresSearchColumn {
    /// The column's name.
    let name = PostgresFullTextSearch.column
    /// `name tsvector GENERATED ALWAYS AS (...) STORED`.
    let definition: String
    /// The GIN index on it.
    let indexName: String
    /// The comment that marks the column as LiteRecord's and names what it indexes.
    let comment: String
    /// The name of the column, `literecord_search`.
    static let columnName = PostgresFullTextSearch.column
    /// The start of every comment LiteRecord writes on such a column.
    static let commentPrefix = PostgresFullTextSearch.commentPrefix
}

extension BackendTable {
    /// The column that keeps the full-text index the schema declares, if any.
    var fullTextSearch: PostgresSearchColumn? {
        fullTextColumns.map { columns in
            PostgresSearchColumn(
                definition: PostgresFullTextSearch.columnDefinition(indexing: columns),
                indexName: PostgresFullTextSearch.indexName(table: name),
                comment: PostgresFullTextSearch.comment(indexing: columns))
        }
    }
}
