import Foundation
import LiteRecord
import Testing

// Projections, grouping and forEach (ProjectionParityChecks.swift, ForEachParityChecks.swift) on
// each backend.

@Suite struct SQLiteProjectionParityTests {
    @Test func projections() throws { try ProjectionParityChecks.projections(SQLiteBackend.temporary()) }
    @Test func grouping() throws { try ProjectionParityChecks.grouping(SQLiteBackend.temporary()) }
    @Test func errors() throws { try ProjectionParityChecks.errors(SQLiteBackend.temporary()) }
    @Test func forEach() throws { try ForEachParityChecks.iteration(SQLiteBackend.temporary()) }
    @Test func forEachInsideATransaction() throws {
        try ForEachParityChecks.insideTransaction(SQLiteBackend.temporary())
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresProjectionParityTests {
    @Test func projections() throws { try ProjectionParityChecks.projections(PostgresTestServer.backend()) }
    @Test func grouping() throws { try ProjectionParityChecks.grouping(PostgresTestServer.backend()) }
    @Test func errors() throws { try ProjectionParityChecks.errors(PostgresTestServer.backend()) }
    @Test func forEach() throws { try ForEachParityChecks.iteration(PostgresTestServer.backend()) }
    @Test func forEachInsideATransaction() throws {
        try ForEachParityChecks.insideTransaction(PostgresTestServer.backend())
    }
}
