import Foundation
import LiteRecord
import Testing

// The same checks (BackendParityChecks.swift, QueryParityChecks.swift) on each backend.

@Suite struct SQLiteParityTests {
    @Test func modelRoundTrip() throws { try ParityChecks.modelRoundTrip(SQLiteBackend.temporary()) }
    @Test func hostileInput() throws { try ParityChecks.hostileInput(SQLiteBackend.temporary()) }
    @Test func nanParameterIsRefused() throws {
        try ParityChecks.nanParameterIsRefused(SQLiteBackend.temporary())
    }
    @Test func constraintErrors() throws { try ParityChecks.constraintErrors(SQLiteBackend.temporary()) }
    @Test func transactions() throws { try ParityChecks.transactions(SQLiteBackend.temporary()) }
    @Test func concurrency() throws { try ParityChecks.concurrency(SQLiteBackend.temporary()) }
    @Test func queryDifferential() throws { try QueryParityChecks.differential(SQLiteBackend.temporary()) }
    @Test func fetchFromATable() throws {
        try TableFetchParityChecks.fetchFromATable(SQLiteBackend.temporary())
    }
    @Test func savepoints() throws { try SavepointParityChecks.savepoints(SQLiteBackend.temporary()) }
}

// Skipped, with the message, when no server is configured: `swift test` passes on a machine
// without PostgreSQL; `.ci/run` starts one and sets the variable.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresParityTests {
    @Test func modelRoundTrip() throws { try ParityChecks.modelRoundTrip(PostgresTestServer.backend()) }
    @Test func hostileInput() throws { try ParityChecks.hostileInput(PostgresTestServer.backend()) }
    @Test func nanParameterIsRefused() throws {
        try ParityChecks.nanParameterIsRefused(PostgresTestServer.backend())
    }
    @Test func constraintErrors() throws { try ParityChecks.constraintErrors(PostgresTestServer.backend()) }
    @Test func transactions() throws { try ParityChecks.transactions(PostgresTestServer.backend()) }
    @Test func concurrency() throws { try ParityChecks.concurrency(PostgresTestServer.backend()) }
    @Test func queryDifferential() throws { try QueryParityChecks.differential(PostgresTestServer.backend()) }
    @Test func fetchFromATable() throws {
        try TableFetchParityChecks.fetchFromATable(PostgresTestServer.backend())
    }
    @Test func savepoints() throws { try SavepointParityChecks.savepoints(PostgresTestServer.backend()) }
}

// The query language beyond comparisons (QueryLanguageParityChecks.swift,
// QueryChangesParityChecks.swift) on each backend.

@Suite struct SQLiteQueryLanguageParityTests {
    @Test func textAndJSONDifferential() throws {
        try QueryLanguageParityChecks.differential(SQLiteBackend.temporary())
    }
    @Test func updateAndDelete() throws {
        try QueryChangesParityChecks.updateAndDelete(SQLiteBackend.temporary())
    }
    @Test func arithmetic() throws { try QueryChangesParityChecks.arithmetic(SQLiteBackend.temporary()) }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresQueryLanguageParityTests {
    @Test func textAndJSONDifferential() throws {
        try QueryLanguageParityChecks.differential(PostgresTestServer.backend())
    }
    @Test func updateAndDelete() throws {
        try QueryChangesParityChecks.updateAndDelete(PostgresTestServer.backend())
    }
    @Test func arithmetic() throws { try QueryChangesParityChecks.arithmetic(PostgresTestServer.backend()) }
}

@Suite struct SQLiteAggregateParityTests {
    @Test func aggregates() throws { try QueryAggregateParityChecks.aggregates(SQLiteBackend.temporary()) }
    @Test func pagination() throws { try QueryAggregateParityChecks.pagination(SQLiteBackend.temporary()) }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresAggregateParityTests {
    @Test func aggregates() throws { try QueryAggregateParityChecks.aggregates(PostgresTestServer.backend()) }
    @Test func pagination() throws { try QueryAggregateParityChecks.pagination(PostgresTestServer.backend()) }
}
