import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Upserts on PostgreSQL give SQLite's answers (`UpsertTests`), on a C and an ICU database.

private struct Member: Model, Equatable {
    var id: Int64?
    var email: String
    var name: String
    var bio: String
    static let schema = Schema<Member>(table: "upsert_members", primaryKey: \.id, unique: [\.email])
}

private struct Gadget: Model, Equatable {
    var id: UUID
    var label: String
    static let schema = Schema<Gadget>(table: "upsert_gadgets", primaryKey: \.id)
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresUpsertParityTests {
    @Test func keyedOnAUniqueColumnInsertsThenUpdatesOnlyTheNamedColumns() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var ada = Member(email: "ada@example.com", name: "Ada", bio: "first")
        try pg.upsert(&ada, onConflict: [\.email], update: [\.name])
        let id = try #require(ada.id)
        var again = Member(email: "ada@example.com", name: "Ada L.", bio: "ignored")
        try pg.upsert(&again, onConflict: [\.email], update: [\.name])
        #expect(again.id == id)
        #expect(
            try pg.query(Member.self).fetchAll() == [
                Member(id: id, email: "ada@example.com", name: "Ada L.", bio: "first")
            ])
        var third = Member(email: "ada@example.com", name: "Ada King", bio: "all")
        try pg.upsert(&third, onConflict: [\.email])
        #expect(
            try pg.find(Member.self, id: id)
                == Member(id: id, email: "ada@example.com", name: "Ada King", bio: "all"))
        var other = Member(email: "other@example.com", name: "O", bio: "")
        try pg.insert(&other)  // the identity keeps counting past the upserts
        #expect(other.id != nil && other.id != id)
    }

    @Test func insertOrIgnoreAndTheDefaultTarget() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var first = Member(email: "bo@example.com", name: "Bo", bio: "")
        #expect(try pg.insertOrIgnore(&first, onConflict: [\.email]))
        var second = Member(email: "bo@example.com", name: "Other", bio: "x")
        #expect(try pg.insertOrIgnore(&second, onConflict: [\.email]) == false)
        #expect(second.id == first.id)
        first.name = "Bob"
        try pg.upsert(&first)
        #expect(try pg.query(Member.self).fetchAll() == [first])
        var gadget = Gadget(id: UUID(), label: "phone")
        try pg.upsert(&gadget)
        gadget.label = "tablet"
        try pg.upsert(&gadget)
        #expect(try pg.query(Gadget.self).fetchAll() == [gadget])
    }

    @Test func aConflictTargetWithoutAUniqueConstraintFailsBeforeWriting() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var ann = Member(email: "ann@example.com", name: "Ann", bio: "")
        let error = #expect(throws: SchemaError.self) { try pg.upsert(&ann, onConflict: [\.name]) }
        #expect(error?.message.contains("no unique constraint") == true)
        #expect(try pg.count(Member.self) == 0)
        #expect(throws: SchemaError.self) { try pg.upsert(&ann, onConflict: [\.email], update: [\.id]) }
        #expect(try pg.count(Member.self) == 0)
    }

    @Test func concurrentUpsertsOfOneEmailNeverFail() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var seed = Member(email: "seed@example.com", name: "", bio: "")
        try pg.insert(&seed)  // the table exists before the race
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            do {
                var member = Member(email: "race@example.com", name: "n\(index)", bio: "")
                try pg.upsert(&member, onConflict: [\.email], update: [\.name])
                guard member.id != nil else { throw SchemaError("no key") }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        #expect(try pg.query(Member.self).where { $0.email == "race@example.com" }.count() == 1)
    }

    /// Rows another client wrote (raw SQL, as psql would): met by the upsert; a UUID key in
    /// lower case is updated in place.
    @Test func rowsAnotherClientWroteAreMet() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var seed = Member(email: "seed@example.com", name: "seed", bio: "")
        try pg.insert(&seed)
        var gadget = Gadget(id: UUID(), label: "seed")
        try pg.insert(&gadget)
        try pg.execute(
            sql: "INSERT INTO upsert_members(email, name, bio) VALUES ('client@example.com', 'C', 'kept')")
        try pg.execute(sql: "UPDATE upsert_gadgets SET id = lower(id)")
        var member = Member(email: "client@example.com", name: "Renamed", bio: "lost")
        try pg.upsert(&member, onConflict: [\.email], update: [\.name])
        #expect(
            try pg.query(Member.self).where { $0.email == "client@example.com" }.fetchAll().map(\.bio) == [
                "kept"
            ])
        #expect(member.id != nil)
        gadget.label = "upserted"
        try pg.upsert(&gadget)
        #expect(try pg.count(Gadget.self) == 1)
        #expect(try pg.find(Gadget.self, id: gadget.id)?.label == "upserted")
        var ignored = gadget
        #expect(try pg.insertOrIgnore(&ignored, onConflict: []) == false)
    }

    @MainActor @Test func theAsyncForms() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        var dee = Member(email: "dee@example.com", name: "Dee", bio: "")
        try await pg.upsert(&dee, onConflict: [\.email], update: [\.name])
        var again = Member(email: "dee@example.com", name: "Dee 2", bio: "")
        let inserted = try await pg.insertOrIgnore(&again, onConflict: [\.email])
        #expect(!inserted)
        #expect(again.id == dee.id)
    }
}
