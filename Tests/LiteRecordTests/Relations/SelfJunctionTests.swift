import Foundation
import LiteRecord
import Testing

private struct SJUser: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<SJUser>(table: "sj_users")
}

/// A junction with both foreign keys to one table: who follows whom.
private struct SJFollow: Model, Equatable {
    var id: Int64?
    var followerID: Int64
    var followedID: Int64
    static let schema = Schema<SJFollow>(table: "sj_follows")
        .foreignKey(\.followerID, references: SJUser.self, onDelete: .cascade)
        .foreignKey(\.followedID, references: SJUser.self, onDelete: .cascade)
}

@Suite struct SelfJunctionTests {
    /// `users` users U1...; `pairs` random (follower, followed) pairs, duplicates and self-follows allowed.
    private func network(users: Int, pairs: Int, seed: UInt64) throws -> (Database, [SJFollow]) {
        let db = try Database(.inMemory)
        var random = SeededGenerator(seed: seed)
        var follows: [SJFollow] = []
        try db.transaction { tx in
            for index in 1...users {
                var user = SJUser(id: nil, name: "U\(index)")
                try tx.insert(&user)
            }
            for _ in 0..<pairs {
                var follow = SJFollow(
                    id: nil, followerID: Int64(random.next() % UInt64(users)) + 1,
                    followedID: Int64(random.next() % UInt64(users)) + 1)
                try tx.insert(&follow)
                follows.append(follow)
            }
        }
        return (db, follows)
    }

    @Test func bothDirectionsMatchTheSameJoinDoneInSwift() throws {
        for seed in UInt64(1)...6 {
            let (db, follows) = try network(users: 12, pairs: 40, seed: seed)
            let users = try db.query(SJUser.self).fetchAll()
            let byID = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0) })
            let following = try db.query(SJUser.self).order { $0.id }
                .including(all: SJUser.self, through: SJFollow.self, via: \.followerID, to: \.followedID) {
                    $0.order { $0.name }
                }
                .fetchAll()
            let followers = try db.query(SJUser.self).order { $0.id }
                .including(all: SJUser.self, through: SJFollow.self, via: \.followedID, to: \.followerID) {
                    $0.order { $0.name }
                }
                .fetchAll()
            #expect(following.map(\.0) == users.sorted { ($0.id ?? 0) < ($1.id ?? 0) })
            for (user, followed) in following {
                let expected = follows.filter { $0.followerID == user.id }.compactMap { byID[$0.followedID] }
                #expect(followed == expected.sorted { $0.name < $1.name }, "seed \(seed), \(user.name)")
            }
            for (user, followedBy) in followers {
                let expected = follows.filter { $0.followedID == user.id }.compactMap { byID[$0.followerID] }
                #expect(followedBy == expected.sorted { $0.name < $1.name }, "seed \(seed), \(user.name)")
            }
        }
    }

    @Test func childrenCanBeNarrowedAndStatementsStayConstant() throws {
        for users in [3, 40, 400] {
            let (db, follows) = try network(users: users, pairs: users * 3, seed: UInt64(users))
            let statements = StatementLog(db)
            let loaded = try db.query(SJUser.self)
                .including(all: SJUser.self, through: SJFollow.self, via: \.followerID, to: \.followedID) {
                    $0.where { $0.name != "U1" }
                }
                .fetchAll()
            #expect(statements.selects.count == 2, "\(statements.all)")
            #expect(loaded.count == users)
            let expectedPairs = follows.filter { $0.followedID != 1 }.count
            #expect(loaded.map { $0.1.count }.reduce(0, +) == expectedPairs)
        }
    }

    /// A relation filter in the children closure names the target's table, which is the roots'
    /// table too: each user with the users they follow who themselves follow U1.
    @Test func childrenCanBeNarrowedByARelationFilter() throws {
        var kept = 0
        var dropped = 0
        for seed in UInt64(1)...4 {
            let (db, follows) = try network(users: 12, pairs: 40, seed: seed)
            let users = try db.query(SJUser.self).order { $0.id }.fetchAll()
            let loaded = try db.query(SJUser.self).order { $0.id }
                .including(all: SJUser.self, through: SJFollow.self, via: \.followerID, to: \.followedID) {
                    $0.where(any: SJFollow.self, via: \.followerID) { $0.followedID == 1 }.order { $0.id }
                }
                .fetchAll()
            let followersOfU1 = Set(follows.filter { $0.followedID == 1 }.map(\.followerID))
            #expect(loaded.map(\.0) == users)
            for (user, followed) in loaded {
                // One row per follow, as without the filter.
                let expected = follows.filter {
                    $0.followerID == user.id && followersOfU1.contains($0.followedID)
                }
                .map { Optional($0.followedID) }.sorted { ($0 ?? 0) < ($1 ?? 0) }
                #expect(followed.map(\.id) == expected, "seed \(seed), \(user.name)")
                kept += expected.count
                dropped += follows.filter { $0.followerID == user.id }.count - expected.count
            }
        }
        #expect(kept > 0)
        #expect(dropped > 0)
    }

    @Test func withoutTheKeysTheErrorSaysWhatToWrite() throws {
        let (db, _) = try network(users: 2, pairs: 2, seed: 9)
        var message = ""
        do {
            _ = try db.query(SJUser.self).including(all: SJUser.self, through: SJFollow.self).fetchAll()
        } catch let error as SchemaError {
            message = error.message
        }
        #expect(message.contains("ambiguous"), "\(message)")
        #expect(message.contains("SJFollow"), "\(message)")
        #expect(
            message.contains(
                ".including(all: SJUser.self, through: SJFollow.self, via: \\.followerID, to: \\.followedID)"),
            "\(message)")
    }

    @Test func aKeyThatIsNotTheJunctionsForeignKeyIsNamed() throws {
        let (db, _) = try network(users: 2, pairs: 2, seed: 3)
        var message = ""
        do {
            _ = try db.query(SJUser.self)
                .including(all: SJUser.self, through: SJFollow.self, via: \.followerID, to: \.id).fetchAll()
        } catch let error as SchemaError {
            message = error.message
        }
        #expect(message.contains("\\SJFollow.id"), "\(message)")
        #expect(message.contains("not a foreign key of SJFollow"), "\(message)")
    }
}
