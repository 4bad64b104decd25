import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Where PostgreSQL cannot compute what Swift computes, the query fails with a clear error and
// changes nothing; and the SQL of the text and JSON functions in each dialect.

struct SmallCounter: Model, Equatable {
    var id: Int64?
    var small: UInt8
    var medium: Int32
}

@Suite struct PostgresQueryLanguageSQLTests {
    @Test func textPredicatesUseBytesAndBoundValuesOnPostgres() throws {
        let query = Query<TextRecord>(backendWithDateStorage: .text, dialect: SQLiteDialect())
        let text = try Query<TextRecord>(backendWithDateStorage: .text, dialect: PostgresDialect())
            .where { $0.text.hasPrefix("a%") && $0.nick.caseInsensitiveContains("_") }
            .backendSelectSQL("*")
        // A text column states its collation (byte order, whatever the database's locale).
        // The bytes first (an index serves them), then, on those rows only, a bound pattern for
        // Swift's characters: "a%" is not a prefix of "a%\u{301}" (U+0301 is among U+0300-U+036F).
        let prefix = "starts_with((\"text\" COLLATE \"C\"), CAST(? AS text))"
        #expect(
            text.text.contains(
                "\(prefix) AND CASE WHEN \(prefix) THEN (\"text\" COLLATE \"C\") ~ CAST(? AS text) END"))
        #expect(
            text.text.contains(
                "strpos(lower((\"nick\" COLLATE \"C\") COLLATE \"C\"), lower(CAST(? AS text) COLLATE \"C\")) > 0"
            ))
        #expect(!text.text.contains("LIKE"))
        let arguments = text.arguments.positional
        #expect(
            arguments.count == 4 && arguments.prefix(2) == [.text("a%"), .text("a%")]
                && arguments.last == .text("_"))
        if arguments.count == 4, case .text(let pattern) = arguments[2] {
            #expect(pattern.hasPrefix("^a\\%(?![") && pattern.contains("\\u0300-\\u036F"))
        }
        // SQLite's SQL is unchanged.
        let sqlite = try query.where { $0.text.hasPrefix("a%") }.backendSelectSQL("*").text
        #expect(
            sqlite.contains(
                "coalesce(substr(CAST(\"text\" AS BLOB), 1, length(CAST(? AS BLOB))), x'') = CAST(? AS BLOB)")
        )
    }

    /// The pattern that gives Swift's answer on characters is built in Swift and bound: the
    /// needle never reaches the SQL text, and its regular-expression characters are escaped.
    @Test func characterPatternsAreBoundNotSpliced() throws {
        let needle = "👍'); DROP TABLE x; -- .*"
        let sql = try Query<TextRecord>(backendWithDateStorage: .text, dialect: PostgresDialect())
            .where { $0.text.contains(needle) || $0.nick.hasSuffix(needle) || $0.text.hasPrefix("\u{1F44D}") }
            .backendSelectSQL("*")
        #expect(!sql.text.contains("DROP") && !sql.text.contains("\u{1F44D}"))
        let patterns = sql.arguments.positional.compactMap { value -> String? in
            guard case .text(let text) = value, text != needle, text != "\u{1F44D}" else { return nil }
            return text
        }
        #expect(patterns.count == 3)
        #expect(
            patterns.allSatisfy {
                $0.contains("\u{1F44D}\\'\\)\\;\\ DROP\\ TABLE\\ x\\;\\ \\-\\-\\ \\.\\*")
                    || $0.hasPrefix("^\u{1F44D}(?![")
            })
    }

    @Test func jsonContainmentUsesJSONBOperatorsOnPostgres() throws {
        let text = try Query<TextRecord>(backendWithDateStorage: .text, dialect: PostgresDialect())
            .where { $0.tags.contains("pro") && $0.items.count > 1 }
            .backendSelectSQL("*")
        #expect(text.text.contains("\"tags\" @> CAST(? AS jsonb)"))
        #expect(text.text.contains("jsonb_array_length(\"items\")"))
        #expect(text.arguments.positional.first == .text("[\"pro\"]"))
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresQueryLanguageTests {
    @Test func characterCountIsRefusedWithAClearError() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var record = TextRecord(
            id: nil, text: "👍🏽", nick: nil, level: 0, tags: [], marks: [], scores: [:], items: [],
            address: nil,
            grid: [])
        try pg.insert(&record)
        #expect {
            try pg.query(TextRecord.self).where { $0.text.count == 1 }.fetchAll()
        } throws: { error in
            (error as? SchemaError)?.message.contains("grapheme clusters") == true
        }
        // SQLite counts characters as Swift does.
        let db = try Database(.temporary)
        try db.insert(&record)
        #expect(try db.query(TextRecord.self).where { $0.text.count == 1 }.count() == 1)
    }

    @Test func nulInANeedleIsAClearErrorOnPostgres() throws {
        let pg = try PostgresTestServer.freshDatabase()
        #expect {
            try pg.query(TextRecord.self).where { $0.text.contains("a\u{0}b") }.fetchAll()
        } throws: { error in
            let error = error as? DatabaseError
            return error?.resultCode == .mismatch && error?.message.contains("NUL") == true
        }
        #expect {
            try pg.query(TextRecord.self).updateAll { [$0.text.set(to: "a\u{0}b")] }
        } throws: { error in
            (error as? DatabaseError)?.message.contains("NUL") == true
        }
    }

    @Test func narrowIntegerArithmeticFailsWhereSwiftTraps() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var counter = SmallCounter(id: nil, small: 250, medium: Int32.max - 1)
        try pg.insert(&counter)
        // Int32: PostgreSQL's `integer` checks the result, as Swift traps.
        #expect(throws: DatabaseError.self) {
            try pg.query(SmallCounter.self).updateAll { [$0.medium.set(to: $0.medium + 2)] }
        }
        #expect(try pg.query(SmallCounter.self).updateAll { [$0.medium.set(to: $0.medium + 1)] } == 1)
        // UInt8: PostgreSQL has no type to check it against, so the query is refused.
        #expect {
            try pg.query(SmallCounter.self).updateAll { [$0.small.set(to: $0.small + 10)] }
        } throws: { error in
            (error as? SchemaError)?.message.contains("UInt8") == true
        }
        let stored = try pg.find(SmallCounter.self, id: #require(counter.id))
        #expect(stored == SmallCounter(id: counter.id, small: 250, medium: Int32.max))
    }
}
