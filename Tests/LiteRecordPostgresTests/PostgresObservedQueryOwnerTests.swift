import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// `b.observe` of a query built on another PostgreSQL database `a` is refused, as a SQLite query
// already was (issue 45, item 4): before, it watched `b` in silence. A query built on the
// database, or in one of its transactions, is observed as before.

private struct PGOwnerAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<PGOwnerAuthor>(table: "owner_authors")
}

private struct PGOwnerBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    static let schema = Schema<PGOwnerBook>(table: "owner_books")
        .foreignKey(\.authorID, references: PGOwnerAuthor.self, onDelete: .cascade)
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresObservedQueryOwnerTests {
    private func firstError<Value>(_ observation: DatabaseObservation<Value>) async -> DatabaseError? {
        var iterator = observation.makeAsyncIterator()
        do {
            _ = try await iterator.next()
            return nil
        } catch {
            return error as? DatabaseError
        }
    }

    @Test func aQueryBuiltOnAnotherDatabaseIsRefused() async throws {
        let a = try PostgresTestServer.freshDatabase()
        let b = try PostgresTestServer.freshDatabase()
        try await a.insert(PGOwnerAuthor(id: 1, name: "in a"))
        try await b.insert(PGOwnerAuthor(id: 1, name: "in b"))

        let refused = try #require(await firstError(b.observe(a.query(PGOwnerAuthor.self))))
        #expect(refused.resultCode == .misuse)
        #expect(refused.message.contains("another PostgreSQL database"))
        let tree = a.query(PGOwnerAuthor.self).including(all: PGOwnerBook.self)
        #expect(await firstError(b.observe(tree))?.resultCode == .misuse)

        var own = a.observe(a.query(PGOwnerAuthor.self)).makeAsyncIterator()
        #expect(try await own.next()?.map(\.name) == ["in a"])
        var ownTree = a.observe(tree).makeAsyncIterator()
        #expect(try await ownTree.next()?.map(\.0.name) == ["in a"])
        let builtInTransaction = try await a.transaction { tx in a.observe(tx.query(PGOwnerAuthor.self)) }
        var inTransaction = builtInTransaction.makeAsyncIterator()
        #expect(try await inTransaction.next()?.map(\.name) == ["in a"])
    }
}
