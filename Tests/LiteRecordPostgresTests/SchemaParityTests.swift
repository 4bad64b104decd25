import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Schema evolution (SchemaParityChecks.swift) on each backend, and reads of a model whose table
// was never created.

/// A model no test ever writes: its table never exists.
struct NeverMade: Model, Equatable {
    var id: Int64?
    var name: String
}

/// A child of ``NeverMade``, never written either.
struct NeverMadeChild: Model, Equatable {
    var id: Int64?
    var parentID: Int64
    static let schema = Schema<NeverMadeChild>().foreignKey(\.parentID, references: NeverMade.self)
}

/// A projection of ``NeverMade``.
struct NeverMadeName: Decodable, Equatable {
    var name: String
}

/// An aggregate projection of ``NeverMade``.
struct NeverMadeTotals: Decodable, Equatable {
    var rows: Int
}

/// What each read of a model whose table does not exist returned.
struct MissingTableReads: Equatable {
    var projected: [NeverMadeName] = []
    var projectedOne: NeverMadeName?
    var projectedEach: [NeverMadeName] = []
    var totals: [NeverMadeTotals] = []
    var all: [NeverMade]
    var count: Int
    var found: NeverMade?
    var first: NeverMade?
    var exists: Bool
    var maximum: Int64?
    var withChildren: Int

    /// Every read empty: what a missing table gives.
    static let empty = MissingTableReads(
        all: [], count: 0, found: nil, first: nil, exists: false, maximum: nil, withChildren: 0)
}

@Suite struct SQLiteSchemaParityTests {
    @Test func optionalAndRemovedPropertiesAcceptNil() throws {
        try SchemaParityChecks.optionalAndRemovedPropertiesAcceptNil(SQLiteBackend.temporary())
    }
    @Test func newRequiredPropertyNeedsADefault() throws {
        try SchemaParityChecks.newRequiredPropertyNeedsADefault(SQLiteBackend.temporary())
    }
    @Test func newUniqueOverDuplicatesIsRefused() throws {
        try SchemaParityChecks.newUniqueOverDuplicatesIsRefused(SQLiteBackend.temporary())
    }
    @Test func hostileTableNameKeepsItsConstraints() throws {
        try SchemaParityChecks.hostileTableNameKeepsItsConstraints(SQLiteBackend.temporary())
    }
    @Test func longNamedConstraintsAreEnforced() throws {
        try SchemaParityChecks.longNamedConstraintsAreEnforced(SQLiteBackend.temporary())
    }

    /// A read never creates a table and reads a missing one as empty.
    @Test func readOfAMissingTableIsEmpty() throws {
        let db = try Database(.temporary)
        let reads = try db.read { connection in
            MissingTableReads(
                all: try connection.fetchAll(NeverMade.self),
                count: try connection.query(NeverMade.self).count(),
                found: try connection.find(NeverMade.self, id: 1),
                first: try connection.query(NeverMade.self).first(),
                exists: try connection.query(NeverMade.self).exists(),
                maximum: try connection.query(NeverMade.self).max { $0.id },
                withChildren: try connection.query(NeverMade.self).including(all: NeverMadeChild.self)
                    .fetchAll().count)
        }
        let projected = try db.read { connection in
            var each: [NeverMadeName] = []
            let projection = connection.query(NeverMade.self).select(NeverMadeName.self)
            // swift-format-ignore: ReplaceForEachWithForLoop
            try projection.forEach { each.append($0) }
            var reads = MissingTableReads.empty
            reads.totals = try connection.query(NeverMade.self).select(NeverMadeTotals.self) {
                [$0.rowCount.as("rows")]
            }
            .fetchAll()
            reads.projected = try projection.fetchAll()
            reads.projectedOne = try projection.fetchOne()
            reads.projectedEach = each
            return reads
        }
        #expect(reads == .empty)
        #expect(projected == .empty)
        #expect(
            try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") == [])
    }

    /// A read filtering by a relation whose table does not exist finds nothing.
    @Test func readThroughAMissingRelatedTableIsEmpty() throws {
        let db = try Database(.temporary)
        var parent = NeverMade(id: nil, name: "parent")
        try db.insert(&parent)
        let (all, count, maximum) = try db.read { connection in
            let query = connection.query(NeverMade.self).where(any: NeverMadeChild.self) { $0.id > 0 }
            return (try query.fetchAll(), try query.count(), try query.max { $0.id })
        }
        #expect(all == [])
        #expect(count == 0)
        #expect(maximum == nil)
        #expect(
            try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") == [
                "neverMade"
            ])
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresSchemaParityTests {
    @Test func optionalAndRemovedPropertiesAcceptNil() throws {
        try SchemaParityChecks.optionalAndRemovedPropertiesAcceptNil(PostgresTestServer.backend())
    }
    @Test func newRequiredPropertyNeedsADefault() throws {
        try SchemaParityChecks.newRequiredPropertyNeedsADefault(PostgresTestServer.backend())
    }
    @Test func newUniqueOverDuplicatesIsRefused() throws {
        try SchemaParityChecks.newUniqueOverDuplicatesIsRefused(PostgresTestServer.backend())
    }
    @Test func hostileTableNameKeepsItsConstraints() throws {
        try SchemaParityChecks.hostileTableNameKeepsItsConstraints(PostgresTestServer.backend())
    }
    @Test func longNamedConstraintsAreEnforced() throws {
        try SchemaParityChecks.longNamedConstraintsAreEnforced(PostgresTestServer.backend())
    }

    /// A read never creates a table and reads a missing one as empty, as on SQLite (it used to
    /// fail with SQLSTATE 42P01).
    @Test func readOfAMissingTableIsEmpty() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let reads = try pg.read { tx in
            MissingTableReads(
                all: try tx.fetchAll(NeverMade.self), count: try tx.query(NeverMade.self).count(),
                found: try tx.find(NeverMade.self, id: 1), first: try tx.query(NeverMade.self).first(),
                exists: try tx.query(NeverMade.self).exists(),
                maximum: try tx.query(NeverMade.self).max { $0.id },
                withChildren: try tx.query(NeverMade.self).including(all: NeverMadeChild.self).fetchAll()
                    .count)
        }
        let projected = try pg.read { tx in
            var each: [NeverMadeName] = []
            let projection = tx.query(NeverMade.self).select(NeverMadeName.self)
            // swift-format-ignore: ReplaceForEachWithForLoop
            try projection.forEach { each.append($0) }
            var reads = MissingTableReads.empty
            reads.totals = try tx.query(NeverMade.self).select(NeverMadeTotals.self) {
                [$0.rowCount.as("rows")]
            }
            .fetchAll()
            reads.projected = try projection.fetchAll()
            reads.projectedOne = try projection.fetchOne()
            reads.projectedEach = each
            return reads
        }
        #expect(reads == .empty)
        #expect(projected == .empty)
        var visited: [NeverMade] = []
        try pg.read { tx in
            // swift-format-ignore: ReplaceForEachWithForLoop
            try tx.query(NeverMade.self).forEach { visited.append($0) }
        }
        #expect(visited == [])
        let tables: SQL =
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()"
        #expect(try pg.fetchAll(String.self, sql: tables) == [])
        // Once written, the table reads as usual in a read.
        var made = NeverMade(id: nil, name: "now")
        try pg.insert(&made)
        #expect(try pg.read { try $0.fetchAll(NeverMade.self) } == [made])
    }

    /// A read filtering by a relation whose table does not exist finds nothing, as on SQLite
    /// (it used to fail with SQLSTATE 42P01), and creates nothing.
    @Test func readThroughAMissingRelatedTableIsEmpty() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var parent = NeverMade(id: nil, name: "parent")
        try pg.insert(&parent)
        let (all, count, maximum) = try pg.read { tx in
            let query = tx.query(NeverMade.self).where(any: NeverMadeChild.self) { $0.id > 0 }
            return (try query.fetchAll(), try query.count(), try query.max { $0.id })
        }
        #expect(all == [])
        #expect(count == 0)
        #expect(maximum == nil)
        let tables: SQL =
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()"
        #expect(try pg.fetchAll(String.self, sql: tables) == ["neverMade"])
    }
}
