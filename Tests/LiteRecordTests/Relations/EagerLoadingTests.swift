import Foundation
import LiteRecord
import Testing

private struct ELAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<ELAuthor>(table: "el_authors")
}

private struct ELBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64?
    var title: String
    var year: Int
    static let schema = Schema<ELBook>(table: "el_books")
        .foreignKey(\.authorID, references: ELAuthor.self, onDelete: .setNull)
}

/// Two keys to one table: a relation must be named with `via:`.
private struct ELTranslation: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var translatorID: Int64
    static let schema = Schema<ELTranslation>(table: "el_translations")
        .foreignKey(\.authorID, references: ELAuthor.self)
        .foreignKey(\.translatorID, references: ELAuthor.self)
}

/// No foreign key to anything.
private struct ELStranger: Model, Equatable {
    var id: Int64?
    var label: String
}

@Suite struct EagerLoadingTests {
    /// Authors 1...n (named A1...), author k with k books, years 1900+k*10+i; one book with no author.
    private func library(authors: Int) throws -> Database {
        let db = try Database(.inMemory)
        try db.transaction { tx in
            for k in 1...authors {
                var author = ELAuthor(id: nil, name: "A\(k)")
                try tx.insert(&author)
                for i in 0..<(k % 4) {
                    var book = ELBook(
                        id: nil, authorID: author.id, title: "A\(k)-B\(i)", year: 1900 + k * 10 + i)
                    try tx.insert(&book)
                }
            }
            var anonymous = ELBook(id: nil, authorID: nil, title: "Anonymous", year: 1850)
            try tx.insert(&anonymous)
        }
        return db
    }

    @Test func toManyGivesEveryRootWithItsChildrenInRootOrder() throws {
        let db = try library(authors: 6)
        let shelves = try db.query(ELAuthor.self).order { $0.name.descending }.including(all: ELBook.self)
            .fetchAll()
        #expect(shelves.map(\.0.name) == ["A6", "A5", "A4", "A3", "A2", "A1"])
        #expect(
            shelves.map { $0.1.map(\.title) } == [
                ["A6-B0", "A6-B1"], ["A5-B0"], [], ["A3-B0", "A3-B1", "A3-B2"], ["A2-B0", "A2-B1"], ["A1-B0"],
            ])
        for (author, books) in shelves { #expect(books.allSatisfy { $0.authorID == author.id }) }
    }

    @Test func rootWhereOrderLimitApplyToRootsOnly() throws {
        let db = try library(authors: 8)
        let shelves = try db.query(ELAuthor.self)
            .where { $0.name != "A1" }
            .including(all: ELBook.self)
            .order { $0.id.descending }
            .limit(2, offset: 1)
            .fetchAll()
        #expect(shelves.map(\.0.name) == ["A7", "A6"])
        #expect(shelves.map { $0.1.count } == [3, 2])
    }

    @Test func childrenAreNarrowedAndOrderedByTheClosure() throws {
        let db = try library(authors: 7)
        let shelves = try db.query(ELAuthor.self).order { $0.id }
            .including(all: ELBook.self) { $0.where { $0.year % 2 == 0 }.order { $0.year.descending } }
            .fetchAll()
        let expected = try db.query(ELAuthor.self).order { $0.id }.fetchAll().map { author in
            try db.query(ELBook.self).where { $0.authorID == author.id && $0.year % 2 == 0 }
                .order { $0.year.descending }.fetchAll()
        }
        #expect(shelves.map(\.1) == expected)
        #expect(shelves[6].1.map(\.year) == [1972, 1970])
    }

    @Test func toOneWithANullKeyGivesNil() throws {
        let db = try library(authors: 3)
        let credits = try db.query(ELBook.self).order { $0.year }.including(one: ELAuthor.self).fetchAll()
        #expect(
            credits.map(\.0.title) == ["Anonymous", "A1-B0", "A2-B0", "A2-B1", "A3-B0", "A3-B1", "A3-B2"])
        #expect(credits.map { $0.1?.name } == [nil, "A1", "A2", "A2", "A3", "A3", "A3"])
    }

    @Test func emptyResultsRunNoChildQuery() throws {
        let db = try library(authors: 2)
        let statements = StatementLog(db)
        let none = try db.query(ELAuthor.self).where { $0.name == "nobody" }.including(all: ELBook.self)
            .fetchAll()
        #expect(none.isEmpty)
        #expect(statements.selects.count == 1)
        let emptyTable = try Database(.inMemory)
        #expect(try emptyTable.query(ELAuthor.self).including(all: ELBook.self).fetchAll().isEmpty)
        #expect(try emptyTable.query(ELBook.self).including(one: ELAuthor.self).fetchAll().isEmpty)
    }

    @Test func statementCountDoesNotGrowWithTheRoots() throws {
        for authors in [3, 40, 400] {
            let db = try library(authors: authors)
            let statements = StatementLog(db)
            let shelves = try db.query(ELAuthor.self).including(all: ELBook.self).fetchAll()
            #expect(shelves.count == authors)
            #expect(statements.selects.count == 2, "\(authors) authors: \(statements.all)")
            #expect(statements.all.count <= 4, "\(statements.all)")  // with BEGIN and COMMIT
            let bookCount = try db.query(ELBook.self).count()
            let credits = try db.query(ELBook.self).including(one: ELAuthor.self).fetchAll()
            #expect(credits.count == bookCount)
            #expect(statements.selects.count == 5)  // with the count
        }
    }

    @Test func childQueryUsesTheForeignKeyIndex() throws {
        let db = try library(authors: 5)
        let statements = StatementLog(db)
        _ = try db.query(ELAuthor.self).including(all: ELBook.self).fetchAll()
        let childSQL = try #require(statements.selects.last)
        #expect(childSQL.contains("json_each(?)"))
        let plan = try db.fetchAll(
            Row.self, sql: SQL(verbatim: "EXPLAIN QUERY PLAN " + childSQL, arguments: ["[1,2]"])
        )
        .map { try $0.value(String.self, named: "detail") }
        #expect(plan.contains { $0.contains("USING INDEX el_books_on_authorID") }, "\(plan)")
    }

    @Test func keyValuesAreBoundNeverWrittenIntoTheSQL() throws {
        let db = try library(authors: 3)
        let statements = StatementLog(db)
        _ = try db.query(ELBook.self).including(one: ELAuthor.self).fetchAll()
        #expect(statements.all.allSatisfy { !$0.contains("[1") })
    }

    @Test func ambiguousAndMissingRelationsNameBothTypesAndTheFix() throws {
        let db = try library(authors: 1)
        let ambiguous = schemaError {
            _ = try db.query(ELAuthor.self).including(all: ELTranslation.self).fetchAll()
        }
        #expect(ambiguous?.message.contains("ELAuthor") == true)
        #expect(ambiguous?.message.contains("ELTranslation") == true)
        #expect(ambiguous?.message.contains("via: \\.authorID") == true)
        let named = try db.query(ELAuthor.self).including(all: ELTranslation.self, via: \.translatorID)
            .fetchAll()
        #expect(named.count == 1)
        let missing = schemaError {
            _ = try db.query(ELAuthor.self).including(all: ELStranger.self).fetchAll()
        }
        #expect(missing?.message.contains("ELAuthor") == true)
        #expect(missing?.message.contains("ELStranger") == true)
        #expect(missing?.message.contains(".foreignKey(") == true)
        let wrongVia = schemaError {
            _ = try db.query(ELAuthor.self).including(all: ELBook.self, via: \.year).fetchAll()
        }
        #expect(wrongVia?.message.contains("\\ELBook.year") == true)
    }

    @Test func aLimitOnTheChildrenIsRefused() throws {
        let db = try library(authors: 2)
        let error = schemaError {
            _ = try db.query(ELAuthor.self).including(all: ELBook.self) { $0.limit(1) }.fetchAll()
        }
        #expect(error?.message.contains("limit") == true)
    }

    @Test func insideATransactionItSeesItsOwnWrites() throws {
        let db = try library(authors: 2)
        try db.transaction { tx in
            var book = ELBook(id: nil, authorID: 1, title: "New", year: 2000)
            try tx.insert(&book)
            let shelves = try tx.query(ELAuthor.self).order { $0.id }.including(all: ELBook.self).fetchAll()
            #expect(shelves[0].1.map(\.title) == ["A1-B0", "New"])
        }
    }

    @Test func asyncFetchGivesTheSameResults() async throws {
        let db = try library(authors: 5)
        let query = db.query(ELAuthor.self).order { $0.id }.including(all: ELBook.self) {
            $0.order { $0.year }
        }
        let fetched = try await query.fetchAll()
        let expected = try Self.fetchBlocking(query)
        #expect(fetched.map(\.0) == expected.map(\.0))
        #expect(fetched.map(\.1) == expected.map(\.1))
        let credits = try await db.query(ELBook.self).including(one: ELAuthor.self).fetchAll()
        #expect(credits.count == 8)
    }

    private static func fetchBlocking(_ query: QueryIncludingAll<ELAuthor, ELBook>) throws -> [(
        ELAuthor, [ELBook]
    )] {
        try query.fetchAll()
    }
}

/// Records the statements a database runs, through its trace hook.
final class StatementLog: Sendable {
    private let log = EventLog<String>()

    init(_ db: Database) {
        db.trace { [log] in log.append($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    var all: [String] { log.events }
    var selects: [String] { log.events.filter { $0.uppercased().hasPrefix("SELECT") } }
}
