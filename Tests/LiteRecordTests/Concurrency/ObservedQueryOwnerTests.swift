import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// A query carries the database it was built on (issue 45, item 4): `b.observe` of a query built
// on `a` used to watch `b` in silence, running the query there. It is refused now, on every
// entry point that takes a built query (a plain query, an `including` tree, the callback form),
// while a query built on the database itself, or in one of its closures, is observed as before.

private struct OwnerAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<OwnerAuthor>(table: "owner_authors")
}

private struct OwnerBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    static let schema = Schema<OwnerBook>(table: "owner_books")
        .foreignKey(\.authorID, references: OwnerAuthor.self, onDelete: .cascade)
}

@Suite(.offCooperativePool)
struct ObservedQueryOwnerTests {
    /// The error iterating `observation` throws first.
    private func firstError<Value>(_ observation: DatabaseObservation<Value>) async -> DatabaseError? {
        var iterator = observation.makeAsyncIterator()
        do {
            _ = try await iterator.next()
            return nil
        } catch {
            return error as? DatabaseError
        }
    }

    @Test(arguments: [false, true])
    func aQueryBuiltOnAnotherDatabaseIsRefused(onFiles: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let a = onFiles ? try Database(path: dir.file("a.sqlite")) : try Database(.inMemory)
            let b = onFiles ? try Database(path: dir.file("b.sqlite")) : try Database(.inMemory)
            try await a.insert(OwnerAuthor(id: 1, name: "in a"))
            try await b.insert(OwnerAuthor(id: 1, name: "in b"))

            let refused = try #require(await firstError(b.observe(a.query(OwnerAuthor.self))))
            #expect(refused.resultCode == .misuse)
            #expect(refused.message.contains("built on another database"))

            let tree = a.query(OwnerAuthor.self).including(all: OwnerBook.self)
            let treeRefused = try #require(await firstError(b.observe(tree)))
            #expect(treeRefused.resultCode == .misuse)

            // Its own database observes it, as before.
            var own = a.observe(a.query(OwnerAuthor.self)).makeAsyncIterator()
            #expect(try await own.next()?.map(\.name) == ["in a"])
            var ownTree = a.observe(tree).makeAsyncIterator()
            #expect(try await ownTree.next()?.map(\.0.name) == ["in a"])
        }
    }

    @Test func theCallbackFormReportsTheRefusal() async throws {
        let a = try Database(.inMemory)
        let b = try Database(.inMemory)
        let (errors, continuation) = AsyncStream.makeStream(of: DatabaseError.self)
        let cancellable = b.observe(
            a.query(OwnerAuthor.self), onChange: { _ in },
            onError: { error in
                if let error = error as? DatabaseError { continuation.yield(error) }
                continuation.finish()
            })
        var iterator = errors.makeAsyncIterator()
        #expect(await iterator.next()?.resultCode == .misuse)
        cancellable.cancel()
    }

    @Test func aQueryBuiltInOneOfItsClosuresIsAccepted() async throws {
        try await withTemporaryDirectory { dir in
            let a = try Database(path: dir.file("a.sqlite"))
            let b = try Database(path: dir.file("b.sqlite"))
            try await a.insert(OwnerAuthor(id: 1, name: "in a"))
            let (own, foreign) = try await a.read { connection in
                (a.observe(connection.query(OwnerAuthor.self)), b.observe(connection.query(OwnerAuthor.self)))
            }
            var iterator = own.makeAsyncIterator()
            #expect(try await iterator.next()?.map(\.name) == ["in a"])
            #expect(await firstError(foreign)?.resultCode == .misuse)
        }
    }
}
