// The README's "Relationships" block on a junction with both keys to one table, line for line
// (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct JunctionKeysDocumentationTests {
    struct User: Model, Equatable {
        var id: Int64?
        var name: String
    }
    struct Follow: Model, Equatable {
        var id: Int64?
        var followerID: Int64
        var followedID: Int64
        static let schema = Schema<Follow>(table: "follows")
            .foreignKey(\.followerID, references: User.self).foreignKey(\.followedID, references: User.self)
    }

    @Test func followingAndFollowers() throws {
        let db = try Database(.inMemory)
        var ann = User(id: nil, name: "Ann")
        var bob = User(id: nil, name: "Bob")
        var cid = User(id: nil, name: "Cid")
        try db.insert(&ann)
        try db.insert(&bob)
        try db.insert(&cid)
        for (follower, followed) in [(ann, bob), (ann, cid), (bob, cid)] {
            var follow = Follow(id: nil, followerID: follower.id ?? 0, followedID: followed.id ?? 0)
            try db.insert(&follow)
        }
        let following: [(User, [User])] = try db.query(User.self)
            .including(all: User.self, through: Follow.self, via: \.followerID, to: \.followedID).fetchAll()
        let followers: [(User, [User])] = try db.query(User.self)
            .including(all: User.self, through: Follow.self, via: \.followedID, to: \.followerID).fetchAll()
        #expect(following.map { $0.0.name } == ["Ann", "Bob", "Cid"])
        #expect(following.map { $0.1.map(\.name).sorted() } == [["Bob", "Cid"], ["Cid"], []])
        #expect(followers.map { $0.1.map(\.name).sorted() } == [[], ["Ann"], ["Ann", "Bob"]])
    }
}
