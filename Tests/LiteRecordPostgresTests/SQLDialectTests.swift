import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// The dialect seam and the SQLSTATE mapping: pure functions, no server needed.

@Suite struct SQLDialectTests {
    @Test func aSQLiteQueryIsInSQLitesDialect() throws {
        let db = try Database(.inMemory)
        #expect(db.query(ParityRecord.self).dialect is SQLiteDialect)
        #expect(
            Query<ParityRecord>(backendWithDateStorage: .text, dialect: PostgresDialect()).dialect
                is PostgresDialect)
    }

    @Test func columnTypes() {
        #expect(PostgresDialect().columnType(.integer, isJSON: false, isBoolean: false) == "bigint")
        #expect(PostgresDialect().columnType(.integer, isJSON: false, isBoolean: true) == "boolean")
        #expect(PostgresDialect().columnType(.real, isJSON: false, isBoolean: false) == "double precision")
        #expect(PostgresDialect().columnType(.text, isJSON: true, isBoolean: false) == "jsonb")
        #expect(PostgresDialect().columnType(.blob, isJSON: false, isBoolean: false) == "bytea")
        #expect(
            PostgresDialect().columnType(.text, isJSON: false, isBoolean: false) == "text COLLATE \"C\"")
        #expect(SQLiteDialect().columnType(.integer, isJSON: false, isBoolean: true) == "INTEGER")
    }

    /// The same query closure gives SQLite's SQL on a query in SQLite's dialect and
    /// PostgreSQL's on one in PostgreSQL's.
    @Test func oneQueryBuilderTwoDialects() throws {
        let sqlite = Query<ParityRecord>(backendWithDateStorage: .text, dialect: SQLiteDialect())
            .where { $0.team == .red && $0.stats.wins >= 3 }.offset(2)
        let sqliteText = try sqlite.backendSelectSQL("*").text
        #expect(sqliteText.contains("\"team\" IS ?"))
        #expect(sqliteText.contains("\"stats\" ->> ?"))
        #expect(sqliteText.contains("LIMIT -1 OFFSET ?"))
        let postgres = Query<ParityRecord>(backendWithDateStorage: .text, dialect: PostgresDialect())
            .where { $0.team == .red && $0.stats.wins >= 3 }.offset(2)
        let postgresText = try postgres.backendSelectSQL("*")
        #expect(postgresText.text.contains("(\"team\" COLLATE \"C\") IS NOT DISTINCT FROM ?"))
        #expect(postgresText.text.contains("((\"stats\" #>> ?::text[])::numeric) >= ?"))
        #expect(postgresText.text.contains("LIMIT ALL OFFSET ?"))
        #expect(postgresText.arguments.positional.contains(.text("{\"wins\"}")))
    }

    @Test func sqlStatesMapOntoResultCodeFamilies() {
        func code(_ state: String, _ constraint: String? = nil) -> ResultCode {
            PostgresErrorMapping.resultCode(sqlState: state, constraint: constraint)
        }
        #expect(code("23505", "players_name_key") == .constraintUnique)
        #expect(code("23505", "players_pkey") == .constraintPrimaryKey)
        #expect(code("23503") == .constraintForeignKey)
        #expect(code("23502") == .constraintNotNull)
        #expect(code("23514") == .constraintCheck)
        #expect(code("23P01") == .constraint)
        #expect(code("40001") == .busy)
        #expect(code("57014") == .interrupt)
        #expect(code("25006") == .readOnly)
        #expect(code("22021") == .mismatch)
        #expect(code("42601") == .error)
    }
}
