import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `Query` is `Sendable`; a query built on a transaction's connection must still never run on
/// another thread than that transaction's. Run under the thread sanitizer:
/// `swift test --sanitize=thread --filter QueryTargetTests`.
@Suite("Query as a Sendable value", .offCooperativePool)
struct QueryTargetTests {
    @Test func aQueryBuiltOnTheDatabaseRunsFromManyTasksAtOnce() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("targets.sqlite"))
            try await db.insert(contentsOf: (0..<50).map { Note(id: nil, author: $0 % 5, body: "n\($0)") })
            let query = db.query(Note.self).where { $0.author == 3 }.order { $0.body.ascending }
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        index.isMultiple(of: 2) ? try await query.count() : try fetchedCount(query)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 10, count: 16))
        }
    }

    @Test func aQueryBuiltInATransactionRunsThereAndNowhereElse() throws {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [Note(id: nil, author: 1, body: "a"), Note(id: nil, author: 2, body: "b")])
        let escaped = try db.write { tx -> Query<Note> in
            let query = tx.query(Note.self).where { $0.author == 1 }
            #expect(try query.count() == 1)
            // Sent to another thread while the transaction holds the connection: refused.
            let fromElsewhere = Locked<(any Error)?>(nil)
            let done = Latch()
            Thread {
                do {
                    _ = try query.fetchAll()
                } catch {
                    fromElsewhere.withLock { $0 = error }
                }
                done.open()
            }.start()
            #expect(done.wait())
            let thrown = fromElsewhere.withLock { $0 }
            let error = try #require(thrown as? DatabaseError)
            #expect(error.resultCode == .misuse)
            #expect(error.message.contains("tx.query"))
            try tx.insert(Note(id: nil, author: 1, body: "c"))
            #expect(try query.count() == 2)  // sees the transaction's own write
            return query
        }
        // Run from another thread once the transaction is over: refused as well.
        let failure = Locked<(any Error)?>(nil)
        let finished = Latch()
        Thread {
            do {
                _ = try escaped.count()
            } catch {
                failure.withLock { $0 = error }
            }
            finished.open()
        }.start()
        #expect(finished.wait())
        #expect((failure.withLock { $0 } as? DatabaseError)?.resultCode == .misuse)
        #expect(try db.query(Note.self).count() == 3)
    }
}

/// Runs a query's synchronous `fetchAll`, from async code too.
func fetchedCount<M: Model>(_ query: Query<M>) throws -> Int {
    try query.fetchAll().count
}
