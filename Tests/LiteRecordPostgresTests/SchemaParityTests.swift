import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Schema evolution (SchemaParityChecks.swift) and reads of a model whose table was never created,
// on each backend: an in-memory SQLite database, a SQLite file and PostgreSQL.

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

extension SchemaParityChecks {
    /// A read never creates a table and reads a missing one as empty (PostgreSQL used to fail
    /// with SQLSTATE 42P01); once written, the table reads as usual in a read.
    static func readOfAMissingTableIsEmpty(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        let reads = try db.read { tx in
            MissingTableReads(
                all: try tx.fetchAll(NeverMade.self), count: try tx.query(NeverMade.self).count(),
                found: try tx.find(NeverMade.self, id: 1), first: try tx.query(NeverMade.self).first(),
                exists: try tx.query(NeverMade.self).exists(),
                maximum: try tx.query(NeverMade.self).max { $0.id },
                withChildren: try tx.query(NeverMade.self).including(all: NeverMadeChild.self).fetchAll()
                    .count)
        }
        let projected = try db.read { tx in
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
        #expect(reads == .empty, "\(backend.name)")
        #expect(projected == .empty, "\(backend.name)")
        var visited: [NeverMade] = []
        try db.read { tx in
            // swift-format-ignore: ReplaceForEachWithForLoop
            try tx.query(NeverMade.self).forEach { visited.append($0) }
        }
        #expect(visited == [], "\(backend.name)")
        #expect(try backend.tableNames(in: db) == [], "\(backend.name)")
        // Once written, the table reads as usual in a read.
        var made = NeverMade(id: nil, name: "now")
        try db.insert(&made)
        #expect(try db.read { try $0.fetchAll(NeverMade.self) } == [made], "\(backend.name)")
    }

    /// A read filtering by a relation whose table does not exist finds nothing (PostgreSQL used
    /// to fail with SQLSTATE 42P01), and creates nothing.
    static func readThroughAMissingRelatedTableIsEmpty(_ db: some ModelDatabase, _ backend: ParityBackend)
        throws
    {
        var parent = NeverMade(id: nil, name: "parent")
        try db.insert(&parent)
        let (all, count, maximum) = try db.read { tx in
            let query = tx.query(NeverMade.self).where(any: NeverMadeChild.self) { $0.id > 0 }
            return (try query.fetchAll(), try query.count(), try query.max { $0.id })
        }
        #expect(all == [], "\(backend.name)")
        #expect(count == 0, "\(backend.name)")
        #expect(maximum == nil, "\(backend.name)")
        #expect(try backend.tableNames(in: db) == ["neverMade"], "\(backend.name)")
    }
}

@Suite(.offCooperativePool) struct SQLiteSchemaParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func optionalAndRemovedPropertiesAcceptNil() throws {
        try backend.run { try SchemaParityChecks.optionalAndRemovedPropertiesAcceptNil($0, $1) }
    }
    @Test func newRequiredPropertyNeedsADefault() throws {
        try backend.run { try SchemaParityChecks.newRequiredPropertyNeedsADefault($0, $1) }
    }
    @Test func newUniqueOverDuplicatesIsRefused() throws {
        try backend.run { try SchemaParityChecks.newUniqueOverDuplicatesIsRefused($0, $1) }
    }
    @Test func hostileTableNameKeepsItsConstraints() throws {
        try backend.run { try SchemaParityChecks.hostileTableNameKeepsItsConstraints($0, $1) }
    }
    @Test func longNamedConstraintsAreEnforced() throws {
        try backend.run { try SchemaParityChecks.longNamedConstraintsAreEnforced($0, $1) }
    }
    @Test func readOfAMissingTableIsEmpty() throws {
        try backend.run { try SchemaParityChecks.readOfAMissingTableIsEmpty($0, $1) }
    }
    @Test func readThroughAMissingRelatedTableIsEmpty() throws {
        try backend.run { try SchemaParityChecks.readThroughAMissingRelatedTableIsEmpty($0, $1) }
    }
}

@Suite(.offCooperativePool) struct SQLiteFileSchemaParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func optionalAndRemovedPropertiesAcceptNil() throws {
        try backend.run { try SchemaParityChecks.optionalAndRemovedPropertiesAcceptNil($0, $1) }
    }
    @Test func newRequiredPropertyNeedsADefault() throws {
        try backend.run { try SchemaParityChecks.newRequiredPropertyNeedsADefault($0, $1) }
    }
    @Test func newUniqueOverDuplicatesIsRefused() throws {
        try backend.run { try SchemaParityChecks.newUniqueOverDuplicatesIsRefused($0, $1) }
    }
    @Test func hostileTableNameKeepsItsConstraints() throws {
        try backend.run { try SchemaParityChecks.hostileTableNameKeepsItsConstraints($0, $1) }
    }
    @Test func longNamedConstraintsAreEnforced() throws {
        try backend.run { try SchemaParityChecks.longNamedConstraintsAreEnforced($0, $1) }
    }
    @Test func readOfAMissingTableIsEmpty() throws {
        try backend.run { try SchemaParityChecks.readOfAMissingTableIsEmpty($0, $1) }
    }
    @Test func readThroughAMissingRelatedTableIsEmpty() throws {
        try backend.run { try SchemaParityChecks.readThroughAMissingRelatedTableIsEmpty($0, $1) }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresSchemaParityTests {
    let backend = ParityBackend.postgres
    @Test func optionalAndRemovedPropertiesAcceptNil() throws {
        try backend.run { try SchemaParityChecks.optionalAndRemovedPropertiesAcceptNil($0, $1) }
    }
    @Test func newRequiredPropertyNeedsADefault() throws {
        try backend.run { try SchemaParityChecks.newRequiredPropertyNeedsADefault($0, $1) }
    }
    @Test func newUniqueOverDuplicatesIsRefused() throws {
        try backend.run { try SchemaParityChecks.newUniqueOverDuplicatesIsRefused($0, $1) }
    }
    @Test func hostileTableNameKeepsItsConstraints() throws {
        try backend.run { try SchemaParityChecks.hostileTableNameKeepsItsConstraints($0, $1) }
    }
    @Test func longNamedConstraintsAreEnforced() throws {
        try backend.run { try SchemaParityChecks.longNamedConstraintsAreEnforced($0, $1) }
    }
    @Test func readOfAMissingTableIsEmpty() throws {
        try backend.run { try SchemaParityChecks.readOfAMissingTableIsEmpty($0, $1) }
    }
    @Test func readThroughAMissingRelatedTableIsEmpty() throws {
        try backend.run { try SchemaParityChecks.readThroughAMissingRelatedTableIsEmpty($0, $1) }
    }
}
