/// The full-text search a query carries: what `matching` was given, and the snippet to select
/// beside each model, when asked.
struct FullTextMatch: Sendable {
    /// One `matching` call's search; several must all hold.
    enum Term: Sendable {
        /// `matching(_:)`: user text, whose words must all be found.
        case words(String)
        /// `matching(fts5Query:)`: FTS5 syntax, which only SQLite reads.
        case fts5(String)

        /// The FTS5 query of `matching(fts5Query:)`, if this is one.
        var fts5Query: String? {
            if case .fts5(let query) = self { return query }
            return nil
        }

        /// The term as an FTS5 query expression.
        var fts5Expression: String {
            switch self {
            case .words(let text): FullTextQuery.expression(forWordsIn: text)
            case .fts5(let query): query
            }
        }
    }

    var terms: [Term]
    var snippet: SnippetRequest?

    struct SnippetRequest: Sendable {
        /// The position of the column among the index's columns.
        let column: Int
        let style: SnippetStyle
    }

    /// The terms as one FTS5 query.
    var expression: String {
        let expressions = terms.map(\.fts5Expression)
        return expressions.count == 1
            ? expressions[0] : expressions.map { "(\($0))" }.joined(separator: " AND ")
    }
}

// Names in the FROM subquery that no model column is expected to have, so that the query's
// own conditions and selections, which name columns without their table, stay unambiguous.
private let matchAlias = SQL.quoteIdentifier("literecord_match")
private let matchRowID = SQL.quoteIdentifier("literecord_match_rowid")
private let matchRank = SQL.quoteIdentifier("literecord_match_rank")
private let matchSnippet = SQL.quoteIdentifier("literecord_match_snippet")

extension Query {
    /// Keeps the rows that hold every word of `text` in the properties of the schema's
    /// full-text index, best match first.
    ///
    /// `text` is any user text, such as a search box's: it is split into words (runs of Unicode
    /// letters and digits), and a row matches when it holds each of them, ignoring case and
    /// diacritics (with the default tokenizer). Everything else in it is plain text: quotes,
    /// `*`, `AND`, `OR`, `NOT`, `NEAR`, `column:`, `^`, `-` and parentheses are never operators
    /// and never an error. Text without a word matches nothing.
    ///
    /// The results come best match first (FTS5's `bm25` rank), unless the query has its own
    /// `order`. The search composes with `where`, `order`, `limit`, `count`, `exists`,
    /// `select`, `updateAll`, `deleteAll`, observation and the async forms; several `matching`
    /// calls must all hold.
    ///
    /// ```swift
    /// let hits = try db.query(Article.self).matching("swift orm").limit(20).fetchAll()
    /// ```
    ///
    /// - Parameter text: The words to find.
    /// - Returns: The narrowed query. Running it throws ``SchemaError`` when the model's schema
    ///   declares no `fullTextSearch(on:tokenizer:)`.
    public func matching(_ text: String) -> Query {
        adding(.words(text))
    }

    /// Keeps the rows matching a query in FTS5's own query language, best match first.
    ///
    /// Unlike ``matching(_:)``, the text is FTS5 syntax (`"swift OR rust"`, `"title: swi*"`,
    /// `"NEAR(swift orm, 3)"`); use it only for text your app writes, never for raw user input.
    /// SQLite only: PostgreSQL reads another query language; a query on PostgreSQL throws a
    /// ``SchemaError`` when it runs.
    ///
    /// - Parameter fts5Query: An FTS5 full-text query.
    /// - Returns: The narrowed query. Running it throws ``DatabaseError`` (`fts5: syntax error
    ///   near ...`) when the query is not valid FTS5.
    public func matching(fts5Query: String) -> Query {
        adding(.fts5(fts5Query))
    }

    private func adding(_ term: FullTextMatch.Term) -> Query {
        var copy = self
        if copy.fullTextMatch == nil {
            copy.fullTextMatch = FullTextMatch(terms: [term])
        } else {
            copy.fullTextMatch?.terms.append(term)
        }
        return copy
    }

    /// A search of a model whose schema has no full-text index.
    var fullTextMatchError: (any Error)? {
        guard fullTextMatch != nil, let table = try? TableSchemaCache.schema(for: M.self),
            table.fullTextIndex == nil
        else { return nil }
        return SchemaError(
            "matching(_:) searches the full-text index of \(table.typeName), but its schema declares none; "
                + "add .fullTextSearch(on: [...]) to the schema")
    }

    // MARK: - SQL

    /// The FROM of a query: its table, with its search in the query's dialect.
    func fullTextSource(_ table: TableSchema) -> SQL {
        guard fullTextMatch != nil, table.fullTextIndex != nil else {
            return SQL(SQL.quoteIdentifier(table.tableName))
        }
        return dialect.fullTextSource(of: self, table: table)
    }

    /// What a query selects for `selection`, with its search in the query's dialect.
    func fullTextSelection(_ selection: SQL, table: TableSchema) -> SQL {
        guard table.fullTextIndex != nil else { return selection }
        return dialect.fullTextSelection(selection, of: self, table: table)
    }

    /// Best match first, in the query's dialect.
    func fullTextRankOrder(_ table: TableSchema, selection: SQL) -> SQL {
        guard fullTextMatch != nil, table.fullTextIndex != nil else { return orderClause() }
        return dialect.fullTextRankOrder(of: self, table: table, selection: selection)
    }

    /// SQLite's FROM of a search: the index's matches (rowid, rank, snippet), each joined to its
    /// row. The matches come first (`CROSS JOIN` keeps that order), so that SQLite reads the
    /// index once rather than once per row of the table.
    func fts5Source(_ table: TableSchema) -> SQL {
        let quotedTable = SQL(SQL.quoteIdentifier(table.tableName))
        guard let match = fullTextMatch, let index = table.fullTextIndex else { return quotedTable }
        let name = SQL(SQL.quoteIdentifier(index.name))
        var columns: SQL = "rowid AS \(SQL(matchRowID)), rank AS \(SQL(matchRank))"
        if let snippet = match.snippet {
            let style = snippet.style
            columns.append(
                ", snippet(\(name), \(snippet.column), \(style.before), \(style.after), \(style.ellipsis), "
                    + "\(style.clampedTokens)) AS \(SQL(matchSnippet))")
        }
        let key = SQL(SQL.quoteIdentifier(index.rowIDColumn))
        return
            "(SELECT \(columns) FROM \(name) WHERE \(name) MATCH \(match.expression)) AS \(SQL(matchAlias)) "
            + "CROSS JOIN \(quotedTable) ON \(quotedTable).\(key) = \(SQL(matchAlias)).\(SQL(matchRowID))"
    }

    /// SQLite's selection of a search: `*` means the table's columns only (not the matches'
    /// own), and the snippet when asked.
    func fts5Selection(_ selection: SQL, table: TableSchema) -> SQL {
        guard let match = fullTextMatch, table.fullTextIndex != nil else { return selection }
        let quotedTable = SQL(SQL.quoteIdentifier(table.tableName))
        let columns: SQL = selection.text == "*" ? "\(quotedTable).*" : selection
        guard match.snippet != nil else { return columns }
        return "\(columns), \(SQL(matchAlias)).\(SQL(matchSnippet))"
    }

    /// SQLite's best match first. Ordered by the rank alone, FTS5 sorts the matches itself (no
    /// temporary b-tree over every match); equal ranks come in the order FTS5 gives them.
    func fts5RankOrder(_ table: TableSchema) -> SQL {
        guard fullTextMatch != nil, table.fullTextIndex != nil else { return orderClause() }
        return SQL(verbatim: " ORDER BY \(matchAlias).\(matchRank)")
    }

    /// The WHERE of `updateAll` and `deleteAll` on a search: the key among the matches' keys.
    func fullTextRowSelection(_ table: TableSchema) -> SQL? {
        guard fullTextMatch != nil, let index = table.fullTextIndex else { return nil }
        let key = "\(SQL.quoteIdentifier(table.tableName)).\(SQL.quoteIdentifier(index.rowIDColumn))"
        return
            " WHERE \(SQL(SQL.quoteIdentifier(index.rowIDColumn))) IN (\(selectSQL(SQL(key), table: table)))"
    }
}
