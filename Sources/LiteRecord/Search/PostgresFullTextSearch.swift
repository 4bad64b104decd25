import Foundation

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

extension FullTextIndex {
    /// The generated column that holds the index in PostgreSQL.
    static let postgresColumn = "literecord_search"

    /// The name of the GIN index on ``postgresColumn`` of `table`.
    static func postgresIndexName(table: String) -> String { "\(table)_\(postgresColumn)_index" }

    /// The comment LiteRecord writes on its column: it marks the column as LiteRecord's and
    /// says what it indexes, so a change of the indexed properties (or of this normalization,
    /// by its version) is seen and the column rebuilt.
    static let postgresCommentPrefix = "LiteRecord full-text index"

    /// The comment of the column that indexes these columns.
    var postgresComment: String {
        "\(FullTextIndex.postgresCommentPrefix) v1 of \(quotedColumns.joined(separator: ", "))"
    }

    /// The column's definition: `tsvector`, generated from the indexed columns (any type, read
    /// as text; NULL as no word), stored.
    var postgresColumnDefinition: String {
        let columns = quotedColumns.map { "coalesce(CAST(\($0) AS text), '')" }.joined(
            separator: " || ' ' || ")
        return "\(SQL.quoteIdentifier(FullTextIndex.postgresColumn)) tsvector GENERATED ALWAYS AS "
            + "(to_tsvector('simple'::regconfig, \(FullTextIndex.postgresNormalized(SQL(columns)).text))) STORED"
    }

    /// Text as the index reads it: lowercase, without diacritics, letters and digits separated
    /// by spaces. Every function in it is immutable, as a generated column requires.
    static func postgresNormalized(_ text: SQL) -> SQL {
        "regexp_replace(regexp_replace(normalize(lower((\(text)) COLLATE \"und-x-icu\"), NFD), "
            + "'[\\u0300-\\u036f]+', '', 'g'), '[^[:alnum:]]+', ' ', 'g')"
    }
}

extension Query {
    /// The search as a `tsquery`: each `matching(_:)`'s words, bound as one text and normalized
    /// as the index is, all required (`&`). `nil` when a text has no word, which matches
    /// nothing (as on SQLite); `plainto_tsquery` would say so in a notice.
    private var postgresFullTextQuery: SQL? {
        guard let match = fullTextMatch else { return nil }
        var query: SQL?
        for term in match.terms {
            // `backendSelectSQL` refuses FTS5 syntax before any SQL is built.
            guard case .words(let text) = term else { return nil }
            let words = FullTextQuery.words(in: text)
            guard !words.isEmpty else { return nil }
            let bound: SQL = "CAST(\(words.joined(separator: " ")) AS text)"
            let one: SQL = "plainto_tsquery('simple'::regconfig, \(FullTextIndex.postgresNormalized(bound)))"
            if var combined = query {
                combined.append(" && ")
                combined.append(one)
                query = combined
            } else {
                query = one
            }
        }
        return query.map { query -> SQL in "(\(query))" }
    }

    private var postgresSearchColumn: SQL? {
        guard let table = try? TableSchemaCache.schema(for: M.self), table.fullTextIndex != nil else {
            return nil
        }
        return SQL(
            SQL.quoteIdentifier(table.tableName) + "." + SQL.quoteIdentifier(FullTextIndex.postgresColumn))
    }

    /// The WHERE condition of a search: the search column matches the query.
    func postgresFullTextCondition() -> SQL? {
        guard fullTextMatch != nil, let column = postgresSearchColumn else { return nil }
        guard let query = postgresFullTextQuery else { return SQL(SQLDialect.postgres.falseCondition) }
        let condition: SQL = "\(column) @@ \(query)"
        return condition
    }

    /// The relevance of a row: `ts_rank`, divided by 1 + the logarithm of the document's length
    /// (normalization 1), so that a short text holding the words ranks above a long one, as
    /// with SQLite's `bm25`.
    private var postgresRank: SQL? {
        guard let column = postgresSearchColumn, let query = postgresFullTextQuery else { return nil }
        let rank: SQL = "ts_rank(\(column), \(query), 1)"
        return rank
    }

    /// `*` is the model's columns (never the search column, a `tsvector` as big as the text),
    /// with the rank when the results are ranked (so that `DISTINCT` may order by it) and the
    /// snippet when asked.
    func postgresFullTextSelection(_ selection: SQL, table: TableSchema) -> SQL {
        guard table.fullTextIndex != nil, selection.text == "*" else { return selection }
        let quotedTable = SQL.quoteIdentifier(table.tableName)
        var columns = SQL(
            table.columns.map { quotedTable + "." + SQL.quoteIdentifier($0.name) }.joined(separator: ", "))
        if orderings.isEmpty, let rank = postgresRank {
            columns.append(", \(rank) AS \(SQL(SQL.quoteIdentifier(FullTextIndex.postgresRankColumn)))")
        }
        if let snippet = fullTextMatch?.snippet, let index = table.fullTextIndex,
            let query = postgresFullTextQuery
        {
            let column = quotedTable + "." + SQL.quoteIdentifier(index.columns[snippet.column])
            let document = SQL(verbatim: "coalesce(CAST(" + column + " AS text), '')")
            // The same fragment twice: with the marks, and without them, which tells whether
            // text was left out before or after it (PostgreSQL writes no ellipsis).
            for (options, name) in [
                (snippet.style.postgresOptions(marked: true), FullTextIndex.postgresSnippetColumn),
                (snippet.style.postgresOptions(marked: false), FullTextIndex.postgresFragmentColumn),
            ] {
                columns.append(
                    ", ts_headline('simple'::regconfig, \(document), \(query), \(options)) "
                        + "AS \(SQL(SQL.quoteIdentifier(name)))")
            }
        }
        return columns
    }

    /// Best match first: by the rank selected beside the columns, or, for another selection,
    /// by the rank itself (not with `DISTINCT`, where PostgreSQL orders only by selected values:
    /// the rows then come unranked).
    func postgresFullTextRankOrder(_ table: TableSchema, selection: SQL) -> SQL {
        guard table.fullTextIndex != nil, let rank = postgresRank else { return orderClause() }
        if selection.text == "*" {
            return SQL(verbatim: " ORDER BY \(SQL.quoteIdentifier(FullTextIndex.postgresRankColumn)) DESC")
        }
        return isDistinct ? "" : " ORDER BY \(rank) DESC"
    }
}

extension FullTextIndex {
    /// The selected rank of a search (a name no model column is expected to have).
    static let postgresRankColumn = "literecord_match_rank"
    /// The selected snippet, with its marks.
    static let postgresSnippetColumn = "literecord_match_snippet"
    /// The selected snippet without marks.
    static let postgresFragmentColumn = "literecord_match_fragment"
}

extension SnippetStyle {
    /// `ts_headline`'s options, bound as one text: the marks, and at most ``clampedTokens``
    /// words (PostgreSQL wants at least 2), from the best match on; a text that fits is shown
    /// whole, and one that does not gets `MinWords`, one fewer. Values are double-quoted,
    /// inner quotes doubled, as PostgreSQL's option lists read them.
    func postgresOptions(marked: Bool) -> SQL {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        let maximum = Swift.max(clampedTokens, 2)
        let options =
            "StartSel=\(quoted(marked ? before : "")), StopSel=\(quoted(marked ? after : "")), "
            + "MaxWords=\(maximum), MinWords=\(maximum - 1), ShortWord=0"
        return "\(options)"
    }

    /// The snippet of a PostgreSQL headline: ``ellipsis`` added where the fragment (the same
    /// headline without marks) does not reach the start or the end of the document.
    /// The two are compared from their first to their last letter or digit: PostgreSQL may
    /// leave punctuation out at either end.
    package func postgresSnippet(marked: String, fragment: String, document: String) -> String {
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
