import Foundation

/// The SQL a backend speaks where it differs from SQLite's: the one seam between LiteRecord's
/// SQL generation (models, schema, the query language) and another database.
///
/// LiteRecord itself speaks ``SQLiteDialect``, and its output does not change. Another backend
/// builds its queries with the same `Query` and `Column` code: a query built on it carries its
/// dialect (`QueryBackend.dialect`), its columns carry the query's, and each requirement is
/// answered with the backend's own SQL; adding a backend adds a conformance and touches no
/// file of LiteRecord. Each requirement is one point where the text
/// differs, or a question about the database's behaviour, never a question of identity.
/// Package access only: it is not part of LiteRecord's public API.
package protocol SQLDialect: Sendable {
    /// The dialect. A dialect holds no state, so a ``Column`` carries its type alone (two words
    /// copied without reference counting, cheaper than an existential value in every column of
    /// every query) and makes the dialect where it writes SQL.
    init()

    /// The database's name, for messages.
    var name: String { get }

    // MARK: Conditions and clauses

    /// The keywords and literals of conditions and clauses.
    var keywords: DialectKeywords { get }
    /// How the database behaves where SQLite's behaviour cannot be assumed; SQLite: none.
    var behaviours: DialectBehaviours { get }

    // MARK: Schema

    /// The column type for a model column.
    ///
    /// - Parameters:
    ///   - declared: The type LiteRecord declares for SQLite.
    ///   - isJSON: Whether the column holds JSON.
    ///   - isBoolean: Whether the Swift value is a `Bool`.
    /// - Returns: The type's SQL text.
    func columnType(_ declared: DatabaseColumnType, isJSON: Bool, isBoolean: Bool) -> String

    /// A model column as a query reads, compares and sorts it (SQLite: its quoted name).
    func columnExpression(_ column: TableSchema.Column) -> SQL

    // MARK: JSON

    /// A value inside a JSON column, read as the member's Swift type compares.
    ///
    /// - Parameters:
    ///   - column: The JSON column's name.
    ///   - path: SQLite's JSON path text, bound as is.
    ///   - keys: The member names along the path.
    ///   - memberType: The Swift type of the member.
    /// - Returns: The expression.
    func jsonMember(column: String, path: String, keys: [String], memberType: Any.Type) -> SQL

    /// The number of elements of a JSON array (or keys of an object, when `isObject`) a column
    /// holds; 0 for NULL.
    func jsonCount<Value>(of column: Column<Value>, isObject: Bool) -> SQL

    /// Whether a JSON array a column holds contains `element`, and the error met encoding it.
    func jsonArray<Value, Element: Encodable>(
        _ column: Column<Value>, containing element: Element
    ) -> (SQL, (any Error)?)

    /// The elements of a JSON array a column holds, as a `FROM` source with a `value` column.
    func jsonElements<Value>(of column: Column<Value>) -> SQL

    /// One element of a JSON array, selected under `name`, as a `type` compares.
    func jsonElement(named name: String, type: Any.Type) -> SQL

    // MARK: Text

    /// A text predicate (``TextPredicate``) over a text expression and a bound value.
    func textPredicate(_ predicate: TextPredicate, column: SQL, value: DatabaseValue) -> SQL

    /// A text function with Swift's semantics.
    ///
    /// - Throws: ``SchemaError`` for a function the database cannot compute as Swift does.
    func textFunction(_ function: QueryFunctions.Text, of column: SQL) throws -> SQL

    // MARK: Numbers

    /// `left op right` (or `- left` for `.negate`, `right` then `nil`) for a Swift numeric type,
    /// failing where Swift traps.
    ///
    /// - Throws: ``SchemaError`` for a type whose arithmetic cannot be computed as Swift's.
    func arithmetic(
        _ function: QueryFunctions.Arithmetic, _ left: SQL, _ right: SQL?, number: Any.Type
    ) throws -> SQL

    /// An aggregate (`sum`, `min`, `max` or `avg`) as the Swift type it decodes to reads it.
    func aggregateResult(_ aggregate: SQL, function: String, resultType: Any.Type) -> SQL

    /// The function computing `min` or `max` of values of `type`.
    func extremumFunction(_ function: String, of type: Any.Type) -> String

    /// `sum` of an expression whose values are of the Swift type `type`: exact whatever the
    /// order of the rows, failing only where the total does not fit the type (where Swift's
    /// `reduce(0, +)` of the values traps).
    func sum(_ expression: SQL, of type: Any.Type) -> SQL

    // MARK: Eager loads

    /// The distinct integer keys of an eager load's roots, as the text bound to its one
    /// parameter.
    func boundKeys(_ keys: [Int64]) throws -> String

    /// The distinct keys of an eager load's roots, as the text bound to its one parameter.
    ///
    /// - Throws: ``SchemaError`` for a key that cannot be passed exactly.
    func boundKeys(_ keys: [RelationKey]) throws -> String

    /// SQL true when the key columns hold one of the bound keys.
    ///
    /// - Parameters:
    ///   - columns: The key columns, quoted (and qualified).
    ///   - keys: The parameter the keys are bound to.
    ///   - names: The key columns' names in `table`.
    ///   - table: The table the columns belong to.
    ///   - forms: How each key column's values compare (see ``RelationKeyForm``).
    func keyMembership(
        _ columns: [SQL], keys: String, names: [String], in table: TableSchema, forms: [RelationKeyForm]
    ) -> SQL

    // MARK: Full-text search

    /// The WHERE condition of a query's search, when the dialect searches there; `nil` if not.
    func fullTextCondition<M: Model>(of query: Query<M>) -> SQL?

    /// The FROM of a query on `table`, with its search.
    func fullTextSource<M: Model>(of query: Query<M>, table: TableSchema) -> SQL

    /// What a query with a search selects for `selection`.
    func fullTextSelection<M: Model>(_ selection: SQL, of query: Query<M>, table: TableSchema) -> SQL

    /// The ORDER BY of a search ordered by relevance (best match first).
    func fullTextRankOrder<M: Model>(of query: Query<M>, table: TableSchema, selection: SQL) -> SQL

    // MARK: Migrations

    /// Creates the migrations table when it is missing: `name` (the primary key, compared by
    /// bytes), `position` (the order migrations were applied in) and `applied_at` (UTC text).
    func createMigrationsTable(named table: String) -> SQL

    /// A query that returns one row when the migrations table exists, none otherwise, and
    /// creates nothing.
    func migrationsTableExists(named table: String) -> SQL

    /// The applied migrations' names, in the order they were applied.
    func appliedMigrationNames(in table: String) -> SQL
}

/// The text predicates of `Column+Strings.swift`, which a dialect writes
/// (``SQLDialect/textPredicate(_:column:value:)``). The case-sensitive ones compare exact bytes;
/// the case-insensitive ones fold ASCII letters only.
package enum TextPredicate: Sendable {
    case hasPrefix
    case hasSuffix
    /// Never asked with an empty value.
    case contains
    case caseInsensitiveHasPrefix
    case caseInsensitiveHasSuffix
    /// Never asked with an empty value.
    case caseInsensitiveContains
    case caseInsensitiveEquals

    /// Whether the predicate ignores the case of ASCII letters.
    package var foldsCase: Bool {
        switch self {
        case .hasPrefix, .hasSuffix, .contains: false
        case .caseInsensitiveHasPrefix, .caseInsensitiveHasSuffix, .caseInsensitiveContains,
            .caseInsensitiveEquals:
            true
        }
    }
}
