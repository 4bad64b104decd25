import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Text order (CollationParityChecks.swift) and first-row limits (FirstRowParityChecks.swift) on
// each backend (in-memory SQLite, a SQLite file, PostgreSQL). `.ci/run` runs the PostgreSQL suites on a C-locale and on an ICU en-US database.

@Suite(.offCooperativePool) struct SQLiteCollationParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func comparisons() throws { try backend.run { try CollationParityChecks.comparisons($0, $1) } }
    @Test func orderings() throws { try backend.run { try CollationParityChecks.orderings($0, $1) } }
    @Test func handMadeColumn() throws {
        try backend.run { try CollationParityChecks.handMadeColumn($0, $1) }
    }
    @Test func firstRowLimits() throws { try backend.run { try FirstRowParityChecks.limits($0, $1) } }
    @Test func eagerLoading() throws { try backend.run { try CollationEagerLoadingChecks.orderings($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteFileCollationParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func comparisons() throws { try backend.run { try CollationParityChecks.comparisons($0, $1) } }
    @Test func orderings() throws { try backend.run { try CollationParityChecks.orderings($0, $1) } }
    @Test func handMadeColumn() throws {
        try backend.run { try CollationParityChecks.handMadeColumn($0, $1) }
    }
    @Test func firstRowLimits() throws { try backend.run { try FirstRowParityChecks.limits($0, $1) } }
    @Test func eagerLoading() throws { try backend.run { try CollationEagerLoadingChecks.orderings($0, $1) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresCollationParityTests {
    let backend = ParityBackend.postgres
    @Test func comparisons() throws { try backend.run { try CollationParityChecks.comparisons($0, $1) } }
    @Test func orderings() throws { try backend.run { try CollationParityChecks.orderings($0, $1) } }
    @Test func handMadeColumn() throws {
        try backend.run { try CollationParityChecks.handMadeColumn($0, $1) }
    }
    @Test func firstRowLimits() throws { try backend.run { try FirstRowParityChecks.limits($0, $1) } }
    @Test func eagerLoading() throws { try backend.run { try CollationEagerLoadingChecks.orderings($0, $1) } }
}

/// The SQL the text checks above rely on, checked without a server.
@Suite struct PostgresCollationSQLTests {
    @Test func textStatesItsCollation() throws {
        let query = Query<CollationWord>(backendWithDateStorage: .text, dialect: SQLiteDialect())
        let text = try Query<CollationWord>(backendWithDateStorage: .text, dialect: PostgresDialect())
            .where { $0.info.nick > "Z" && $0.id > 0 }
            .order { [$0.word.descending, $0.labels["k"].ascending] }
            .backendSelectSQL("*").text
        #expect(text.contains("((\"info\" #>> ?::text[]) COLLATE \"C\") > ?"))
        #expect(
            text.contains(
                "ORDER BY (\"word\" COLLATE \"C\") DESC, ((\"labels\" #>> ?::text[]) COLLATE \"C\") ASC"))
        // Numbers take no collation.
        #expect(text.contains("(\"id\" > ? AND \"id\" IS NOT NULL)"))
        // SQLite's SQL is unchanged.
        let sqlite = try query.where { $0.info.nick > "Z" }.order { $0.word }.backendSelectSQL("*").text
        #expect(!sqlite.contains("COLLATE"))
    }
}

/// A table made by hand whose text primary key has the database's collation.
struct HandMadeKeyedWord: Model, Equatable {
    var code: String
    var label: String
    static let schema = Schema<HandMadeKeyedWord>(table: "collation_hand_made_keyed", primaryKey: \.code)
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresCollationTests {
    /// `fetchAll(M.self)` returns the rows in primary key order, a text key by bytes, whatever
    /// its column's collation (SQLite returns rowid order, which differs for a text key).
    @Test func fetchAllOrdersATextKeyByBytes() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(
            sql: "CREATE TABLE collation_hand_made_keyed (code text PRIMARY KEY, label text NOT NULL)")
        for word in CollationParityChecks.words.reversed() {
            try database.insert(HandMadeKeyedWord(code: word, label: "label " + word))
        }
        let codes = try database.fetchAll(HandMadeKeyedWord.self).map(\.code)
        #expect(codes == CollationParityChecks.words.sorted())
    }
}
