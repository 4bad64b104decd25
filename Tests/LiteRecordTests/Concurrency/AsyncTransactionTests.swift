import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

private struct Entry: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String
    static let schema = Schema<Entry>(table: "entries").fullTextSearch(on: [\.title, \.body])
}

private struct Refused: Error {}

/// The thread running the caller.
private func currentThread() -> ObjectIdentifier {
    ObjectIdentifier(Thread.current)
}

/// The async forms of `transaction`, `savepoint` and `fetchAll(withSnippetsOf:)`, called from the
/// main actor as an app would: they commit, roll back and return what the synchronous forms do.
@Suite(.offCooperativePool) struct AsyncTransactionTests {
    @MainActor @Test func anAsyncTransactionCommitsOrRollsBackAsAWhole() async throws {
        let db = try Database(.inMemory)
        let caller = currentThread()
        let (total, bodyThread) = try await db.transaction(.deferred) { tx in
            try tx.insert(Entry(id: nil, title: "one", body: "first"))
            try tx.insert(Entry(id: nil, title: "two", body: "second"))
            return (try tx.count(Entry.self), currentThread())
        }
        #expect(total == 2)
        // The synchronous form would run the body on the caller's thread, blocking it.
        #expect(bodyThread != caller)
        await #expect(throws: Refused.self) {
            try await db.transaction { tx in
                try tx.insert(Entry(id: nil, title: "three", body: "third"))
                throw Refused()
            }
        }
        let titles = try await db.fetchAll(Entry.self).map(\.title)
        #expect(titles == ["one", "two"])
    }

    @MainActor @Test func anAsyncSavepointOutsideATransactionCommitsWhenItReturns() async throws {
        let db = try Database(.inMemory)
        let caller = currentThread()
        let bodyThread = try await db.savepoint("first") { connection in
            try connection.insert(Entry(id: nil, title: "kept", body: "x"))
            return currentThread()
        }
        #expect(bodyThread != caller)
        await #expect(throws: Refused.self) {
            try await db.savepoint { connection in
                try connection.insert(Entry(id: nil, title: "dropped", body: "y"))
                throw Refused()
            }
        }
        let titles = try await db.fetchAll(Entry.self).map(\.title)
        #expect(titles == ["kept"])
    }

    @MainActor @Test func asyncSnippetsAreTheSynchronousOnes() async throws {
        let db = try Database(.inMemory)
        try await db.insert(contentsOf: [
            Entry(id: nil, title: "Swift on Linux", body: "no dependencies at all"),
            Entry(id: nil, title: "Gardening", body: "tomatoes and swift growth"),
            Entry(id: nil, title: "Cooking", body: "nothing to find here"),
        ])
        let query = db.query(Entry.self).matching("swift")
        let awaited = try await query.fetchAll(withSnippetsOf: \.body)
        let direct = try Self.synchronousSnippets(query)
        #expect(awaited.count == 2)
        #expect(awaited.map(\.0) == direct.map(\.0))
        #expect(awaited.map(\.1) == direct.map(\.1))
        let bodies = awaited.map(\.0.body).sorted()
        #expect(bodies == ["no dependencies at all", "tomatoes and swift growth"])
    }

    /// The synchronous form (an async context would pick the async overload).
    private static func synchronousSnippets(_ query: Query<Entry>) throws -> [(Entry, String)] {
        try query.fetchAll(withSnippetsOf: \.body)
    }
}
