import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Async calls on PostgreSQL queries from the main actor, in Swift 6 mode: a query is `Sendable`
// (it did not compile before: "sending value of non-Sendable type 'PostgresQuery<...>'"), and a
// query built on a transaction still runs only inside it.

private struct Lamp: Model, Equatable {
    var id: Int64?
    var room: String
    var watts: Int
    var ownerID: Int64?
}

private struct LampOwner: Model, Equatable {
    var id: Int64?
    var name: String
}

extension Lamp {
    static let schema = Schema<Lamp>(table: "main_actor_lamps").foreignKey(
        \.ownerID, references: LampOwner.self)
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresMainActorTests {
    @MainActor @Test func asyncQueriesWithClosuresFromTheMainActor() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        var owner = LampOwner(name: "Ada")
        try await pg.insert(&owner)
        for (index, room) in ["hall", "kitchen", "hall", "attic"].enumerated() {
            var lamp = Lamp(
                room: room, watts: 10 * (index + 1), ownerID: index.isMultiple(of: 2) ? owner.id : nil)
            try await pg.insert(&lamp)
        }
        let minimum = 15
        let bright = try await pg.query(Lamp.self).where { $0.watts > minimum }.order { $0.watts.ascending }
            .fetchAll()
        #expect(bright.map(\.watts) == [20, 30, 40])
        let halls = try await pg.query(Lamp.self).where { $0.room.hasPrefix("ha") }.count()
        #expect(halls == 2)
        let owned = try await pg.query(Lamp.self).where { $0.ownerID == owner.id }.count()
        #expect(owned == 2)
        let first = try await pg.query(Lamp.self).where { $0.room == "attic" }.fetchOne()
        #expect(first?.watts == 40)
        let shelves = try await pg.query(LampOwner.self).where { $0.name == "Ada" }.including(all: Lamp.self)
            .fetchAll()
        #expect(shelves.map { $0.1.count } == [2])
    }

    @Test func aTransactionsQueryRunsOnlyOnItsThread() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var lamp = Lamp(room: "hall", watts: 5, ownerID: nil)
        try pg.insert(&lamp)
        let outcome = try pg.transaction { tx -> Result<Int, any Error> in
            let query = tx.query(Lamp.self).where { $0.watts == 5 }
            let inside = try query.count()
            #expect(inside == 1)
            let box = ResultBox()
            let thread = Thread { box.result = Result { try query.count() } }
            thread.start()
            while box.result == nil { Thread.sleep(forTimeInterval: 0.005) }
            return box.result ?? .success(-1)
        }
        guard case .failure(let error as DatabaseError) = outcome else {
            Issue.record("a transaction's query ran on another thread: \(outcome)")
            return
        }
        #expect(error.resultCode == .misuse)
        #expect(error.message.contains("inside that closure"))
    }
}

/// The result of work run on another thread, read back by the test's thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<Int, any Error>?
    var result: Result<Int, any Error>? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
