import Foundation

/// How the text of a full-text index is split into words and normalized (an FTS5 tokenizer).
///
/// The default, ``unicode61``, splits on everything that is not a Unicode letter or digit and
/// ignores case and diacritics, so `"Café"` is found by `"cafe"`. ``porter`` adds English
/// stemming on top of it (`"running"` finds `"runs"`).
///
/// ## Topics
/// - ``unicode61``
/// - ``porter``
/// - ``ascii``
/// - ``init(rawValue:)``
public struct FullTextTokenizer: RawRepresentable, Hashable, Sendable {
    /// The FTS5 `tokenize` option, as written in `CREATE VIRTUAL TABLE ... USING fts5(...)`.
    public let rawValue: String

    /// Wraps an FTS5 `tokenize` option, such as `"unicode61 remove_diacritics 0"`.
    ///
    /// - Parameter rawValue: The option's text; it is checked when the index is created.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Unicode letters and digits, ignoring case and diacritics (`unicode61 remove_diacritics 2`).
    public static let unicode61 = FullTextTokenizer(rawValue: "unicode61 remove_diacritics 2")
    /// ``unicode61`` with English (Porter) stemming.
    public static let porter = FullTextTokenizer(rawValue: "porter unicode61 remove_diacritics 2")
    /// ASCII letters and digits only; other characters are kept as they are, case included.
    public static let ascii = FullTextTokenizer(rawValue: "ascii")
}

/// What `Schema.fullTextSearch(on:tokenizer:)` declared, before key paths name columns.
struct FullTextSearchDeclaration: Sendable {
    let properties: [PropertyReference]
    let tokenizer: FullTextTokenizer
}

extension Schema {
    /// Keeps a full-text index of some text properties, so that `query(...).matching(text)`
    /// finds rows by the words they hold.
    ///
    /// The index is an external-content FTS5 table named `<table>_fts`, kept in sync by
    /// triggers on the table (`<table>_fts_after_insert`, `_after_delete`, `_after_update`,
    /// `_before_insert`, `_before_update`, with the small table `<table>_fts_replaced` that
    /// holds the rows a `REPLACE` deletes), so every write keeps it right, raw SQL included. It is created with the table, or beside an
    /// existing table (indexing the rows already there, once); a change of the property list or
    /// tokenizer rebuilds it, and a schema without this call drops it. Each of these happens
    /// once, in one transaction, the first time the model is used.
    ///
    /// The table must have an integer primary key (`var id: Int64?`), the rowid that the index
    /// refers to; SQLite may renumber any other rowid (`VACUUM`), which would break the index.
    ///
    /// ```swift
    /// static let schema = Schema<Article>(table: "articles").fullTextSearch(on: [\.title, \.body])
    /// ```
    ///
    /// - Parameters:
    ///   - properties: The text properties to index, in order (at least one).
    ///   - tokenizer: How text is split into words; by default Unicode words, ignoring case and
    ///     diacritics.
    /// - Returns: The schema with the index.
    public func fullTextSearch(on properties: [PartialKeyPath<M>], tokenizer: FullTextTokenizer = .unicode61)
        -> Schema
    {
        var copy = self
        copy.fullTextSearchDeclaration = FullTextSearchDeclaration(
            properties: properties.map(PropertyReference.init), tokenizer: tokenizer)
        return copy
    }
}

/// A model table's full-text index: its names and the SQL that creates it.
struct FullTextIndex: Sendable {
    /// The content table.
    let table: String
    /// The FTS5 table, `<table>_fts`.
    let name: String
    /// The indexed columns of the content table, in index order.
    let columns: [String]
    /// The content table's `INTEGER PRIMARY KEY`, which the index's rowids are.
    let rowIDColumn: String
    let tokenizer: FullTextTokenizer

    init(
        _ declaration: FullTextSearchDeclaration, table: String, typeName: String, rowIDColumn: String?,
        columns: [String]
    ) throws {
        guard let rowIDColumn else {
            throw SchemaError(
                "full-text search of \(typeName) needs an integer primary key (such as `var id: Int64?`): "
                    + "the index refers to rows by rowid, and SQLite may renumber the rowids of a table "
                    + "without one (VACUUM), which would silently break the index")
        }
        guard !columns.isEmpty else {
            throw SchemaError("full-text search of \(typeName) needs at least one property to index")
        }
        guard Set(columns.map { $0.lowercased() }).count == columns.count else {
            throw SchemaError("full-text search of \(typeName) names a property twice: \(columns)")
        }
        guard !declaration.tokenizer.rawValue.utf8.contains(0),
            !declaration.tokenizer.rawValue.trimmingCharacters(in: .whitespaces).isEmpty
        else {
            throw SchemaError("the full-text tokenizer of \(typeName) is empty or contains a NUL character")
        }
        self.table = table
        self.name = FullTextIndex.indexName(table: table)
        self.columns = columns
        self.rowIDColumn = rowIDColumn
        self.tokenizer = declaration.tokenizer
    }

    /// The name of the FTS5 table of `table`.
    static func indexName(table: String) -> String { table + "_fts" }

    /// The names of the triggers that keep the index of `table` in sync, in the order of
    /// ``createTriggerSQL(uniqueKeys:)``.
    static func triggerNames(table: String) -> [String] {
        ["after_insert", "after_delete", "after_update", "before_insert", "before_update"].map {
            "\(indexName(table: table))_\($0)"
        }
    }

    /// The name of the table where the triggers keep, during one row's write, the indexed
    /// values of the rows that the write may replace (`INSERT OR REPLACE`).
    static func replacedTableName(table: String) -> String { indexName(table: table) + "_replaced" }

    /// The shadow tables FTS5 creates beside an external-content table named `name`.
    static func shadowTableNames(index name: String) -> [String] {
        ["data", "idx", "docsize", "config", "content"].map { "\(name)_\($0)" }
    }

    /// Marks the triggers as LiteRecord's: SQLite keeps comments in a trigger's stored SQL.
    static let triggerMarker = "/* LiteRecord full-text index */"

    var quotedName: String { SQL.quoteIdentifier(name) }
    var quotedColumns: [String] { columns.map(SQL.quoteIdentifier) }

    /// An SQL string literal (DDL takes no parameters); the text comes from the schema.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `CREATE VIRTUAL TABLE`, exactly as SQLite stores it in `sqlite_master`, which is how an
    /// existing index is recognized as up to date.
    var createTableSQL: String {
        "CREATE VIRTUAL TABLE \(quotedName) USING fts5(\(quotedColumns.joined(separator: ", ")), "
            + "content=\(FullTextIndex.literal(table)), content_rowid=\(FullTextIndex.literal(rowIDColumn)), "
            + "tokenize=\(FullTextIndex.literal(tokenizer.rawValue)))"
    }

    /// Indexes every row of the content table again, from scratch.
    var rebuildSQL: String { "INSERT INTO \(quotedName)(\(quotedName)) VALUES ('rebuild')" }
}
