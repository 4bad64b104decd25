// The README's upsert lines and the Model's life article, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct ModelLifecycleDocumentationTests {
    typealias Player = QuickStartDocumentationTests.Player

    @Test func theReadmesUpsert() throws {
        let db = try Database(.inMemory)
        var alice = Player(
            id: nil, name: "Alice", score: 120, team: nil, tags: [], stats: .init(wins: 0, losses: 0),
            joinedAt: Date())
        try db.insert(&alice)
        let id = alice.id
        alice.id = nil
        alice.score = 130
        try db.upsert(&alice, onConflict: [\.name], update: [\.score])   // insert, or update the score
        #expect(alice.id == id)
        #expect(try db.find(Player.self, id: id!)?.score == 130)
        #expect(try db.count(Player.self) == 1)
    }

    struct Member: Model {
        var id: Int64?
        var email: String
        var name: String
        static let schema = Schema<Member>(table: "members", primaryKey: \.id, unique: [\.email])
    }

    @Test func theArticlesUpserts() throws {
        let db = try Database(.inMemory)
        var ada = Member(id: nil, email: "ada@example.com", name: "Ada")
        try db.upsert(&ada, onConflict: [\.email], update: [\.name])   // insert, or update only the name
        let isNew = try db.insertOrIgnore(&ada, onConflict: [\.email])  // false: that email is stored
        #expect(isNew == false)
        #expect(ada.id != nil)
        #expect(try db.count(Member.self) == 1)
        let stored = try db.insertAndFetch(Member(id: nil, email: "bo@example.com", name: "Bo"))
        let met = try db.upsertAndFetch(Member(id: nil, email: "bo@example.com", name: "Bob"), onConflict: [\.email], update: [])
        #expect(stored.id != nil)
        #expect(met.id == stored.id)
        #expect(met.name == "Bo")
    }
}
