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

/// Whether the main actor runs other work while the caller of this function runs: called
/// from an async form's body, false when that body blocks the main actor, its caller (as the
/// synchronous form would). Comparing threads says nothing on Linux, where one Dispatch worker
/// may serve the main queue and a database's queue in turn.
private func mainActorRunsMeanwhile() -> Bool {
    let ran = DispatchSemaphore(value: 0)
    Task { @MainActor in ran.signal() }
    return ran.wait(timeout: .now() + 60) == .success
}

/// The async forms of `transaction`, `savepoint` and `fetchAll(withSnippetsOf:)`, called from the
/// main actor as an app would: they commit, roll back and return what the synchronous forms do.
@Suite(.offCooperativePool) struct AsyncTransactionTests {
    @MainActor @Test func anAsyncTransactionCommitsOrRollsBackAsAWhole() async throws {
        let db = try Database(.inMemory)
        let (total, mainActorWasFree) = try await db.transaction(.deferred) { tx in
            try tx.insert(Entry(id: nil, title: "one", body: "first"))
            try tx.insert(Entry(id: nil, title: "two", body: "second"))
            return (try tx.count(Entry.self), mainActorRunsMeanwhile())
        }
        #expect(total == 2)
        #expect(mainActorWasFree)
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
        let mainActorWasFree = try await db.savepoint("first") { connection in
            try connection.insert(Entry(id: nil, title: "kept", body: "x"))
            return mainActorRunsMeanwhile()
        }
        #expect(mainActorWasFree)
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
