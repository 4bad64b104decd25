import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// Projections, grouping and forEach (ProjectionParityChecks.swift, ForEachParityChecks.swift) on
// each backend: an in-memory SQLite database, a SQLite file and PostgreSQL.

@Suite(.offCooperativePool) struct SQLiteProjectionParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func projections() throws { try backend.run { try ProjectionParityChecks.projections($0, $1) } }
    @Test func grouping() throws { try backend.run { try ProjectionParityChecks.grouping($0, $1) } }
    @Test func errors() throws { try backend.run { try ProjectionParityChecks.errors($0, $1) } }
    @Test func forEach() throws { try backend.run { try ForEachParityChecks.iteration($0, $1) } }
    @Test func forEachInsideATransaction() throws {
        try backend.run { try ForEachParityChecks.insideTransaction($0, $1) }
    }
}

@Suite(.offCooperativePool) struct SQLiteFileProjectionParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func projections() throws { try backend.run { try ProjectionParityChecks.projections($0, $1) } }
    @Test func grouping() throws { try backend.run { try ProjectionParityChecks.grouping($0, $1) } }
    @Test func errors() throws { try backend.run { try ProjectionParityChecks.errors($0, $1) } }
    @Test func forEach() throws { try backend.run { try ForEachParityChecks.iteration($0, $1) } }
    @Test func forEachInsideATransaction() throws {
        try backend.run { try ForEachParityChecks.insideTransaction($0, $1) }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresProjectionParityTests {
    let backend = ParityBackend.postgres
    @Test func projections() throws { try backend.run { try ProjectionParityChecks.projections($0, $1) } }
    @Test func grouping() throws { try backend.run { try ProjectionParityChecks.grouping($0, $1) } }
    @Test func errors() throws { try backend.run { try ProjectionParityChecks.errors($0, $1) } }
    @Test func forEach() throws { try backend.run { try ForEachParityChecks.iteration($0, $1) } }
    @Test func forEachInsideATransaction() throws {
        try backend.run { try ForEachParityChecks.insideTransaction($0, $1) }
    }
}
