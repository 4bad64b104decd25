import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// A query carries the dialect of the database it runs on, and so do the columns its closures
// receive (issue 31): SQL is the runner's own, whatever code or task builds it. It used to be
// a task-local set around a PostgreSQL query's closures, which leaked into a SQLite query
// built and run inside one of them.

private struct Runner: Model, Equatable {
    var id: Int64?
    var name: String
    var wins: Int
    var nick: String?
    static let schema = Schema<Runner>(table: "dialect_runners")
}

extension Query where M == Runner {
    /// A query's own vocabulary, written once over `Query` with no backend in sight.
    fileprivate func veterans() -> Self {
        self.where { $0.wins >= 3 && $0.nick.hasPrefix("a") }.order { $0.name.descending }
    }
}

private func seed(_ insert: (inout Runner) throws -> Void) throws {
    for (name, wins, nick) in [("Ann", 5, "ace"), ("Bo", 1, "ant"), ("Cid", 3, "arrow"), ("Dot", 4, nil)]
        as [(String, Int, String?)]
    {
        var runner = Runner(id: nil, name: name, wins: wins, nick: nick)
        try insert(&runner)
    }
}

/// A SQLite and a PostgreSQL database holding the same runners.
private func seededDatabases() throws -> (Database, PostgresDatabase) {
    let local = try Database(.inMemory)
    let pg = try PostgresTestServer.freshDatabase()
    try seed { try local.insert(&$0) }
    try seed { try pg.insert(&$0) }
    return (local, pg)
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct QueryDialectTests {
    /// A SQLite query built and run inside a PostgreSQL query's closure is SQLite's: with the
    /// task-local it was built in PostgreSQL's dialect (`COLLATE "C"`, `starts_with`,
    /// `LIMIT ALL`), which SQLite refused.
    @Test func aSQLiteQueryInsideAPostgresClosureSpeaksSQLite() throws {
        let (local, pg) = try seededDatabases()
        var innerError: (any Error)?
        let query = pg.query(Runner.self).where { runner in
            do {
                // The local favourites: nicks starting with "a", all but the first by name.
                let names = try local.query(Runner.self).where { $0.nick.hasPrefix("a") }
                    .order { $0.name }.offset(1).fetchAll().map(\.name)
                return runner.name.in(names)
            } catch {
                innerError = error
                return runner.name.in([String]())
            }
        }
        #expect(innerError == nil, "\(String(describing: innerError))")
        #expect(try query.order { $0.name }.fetchAll().map(\.name) == ["Bo", "Cid"])
        #expect(query.sqlDescription.contains("IN ("))
    }

    /// The other way round: a PostgreSQL query run inside a SQLite query's closure is
    /// PostgreSQL's, and the SQLite query around it stays SQLite's.
    @Test func aPostgresQueryInsideASQLiteClosureSpeaksPostgreSQL() throws {
        let (local, pg) = try seededDatabases()
        var innerError: (any Error)?
        let query = local.query(Runner.self).where { runner in
            do {
                let most = try pg.query(Runner.self).where { $0.nick != nil }.max { $0.wins } ?? 0
                return runner.wins == most
            } catch {
                innerError = error
                return runner.wins == -1
            }
        }
        #expect(innerError == nil, "\(String(describing: innerError))")
        #expect(try query.fetchAll().map(\.name) == ["Ann"])
        #expect(!query.sqlDescription.contains("DISTINCT FROM"))
    }

    /// An extension of `Query` builds in the dialect of the query it is called on: the same
    /// closures give each backend its own SQL and the same rows.
    @Test func aQueryExtensionBuildsInTheDialectOfItsQuery() throws {
        let (local, pg) = try seededDatabases()
        let onPostgreSQL = pg.query(Runner.self).veterans()
        let onSQLite = local.query(Runner.self).veterans()
        let veterans = try onPostgreSQL.fetchAll()
        #expect(veterans.map(\.name) == ["Cid", "Ann"])
        #expect(try onSQLite.fetchAll().map(\.name) == ["Cid", "Ann"])
        #expect(try onPostgreSQL.page(after: veterans.first, limit: 5).fetchAll().map(\.name) == ["Ann"])
        #expect(onPostgreSQL.sqlDescription.contains("starts_with("))
        #expect(!onSQLite.sqlDescription.contains("starts_with("))
    }

    /// A column keeps its query's dialect once its closure has returned: a query built on
    /// PostgreSQL in one task and run from another reads PostgreSQL's SQL there.
    @Test func aPostgresQueryBuiltInOneTaskRunsInAnother() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try seed { try pg.insert(&$0) }
        let query = pg.query(Runner.self).veterans()
        let names = try await withThrowingTaskGroup(of: [String].self) { group in
            group.addTask { try await query.fetchAll().map(\.name) }
            return try await group.next() ?? []
        }
        #expect(names == ["Cid", "Ann"])
    }
}
