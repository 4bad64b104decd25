import Foundation
import LiteRecord
import Testing

// Text order (CollationParityChecks.swift) and first-row limits (FirstRowParityChecks.swift) on
// each backend. `.ci/run` runs the PostgreSQL suites on a C-locale and on an ICU en-US database.

@Suite struct SQLiteCollationParityTests {
    @Test func comparisons() throws { try CollationParityChecks.comparisons(SQLiteBackend.temporary()) }
    @Test func orderings() throws { try CollationParityChecks.orderings(SQLiteBackend.temporary()) }
    @Test func handMadeColumn() throws { try CollationParityChecks.handMadeColumn(SQLiteBackend.temporary()) }
    @Test func firstRowLimits() throws { try FirstRowParityChecks.limits(SQLiteBackend.temporary()) }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresCollationParityTests {
    @Test func comparisons() throws { try CollationParityChecks.comparisons(PostgresTestServer.backend()) }
    @Test func orderings() throws { try CollationParityChecks.orderings(PostgresTestServer.backend()) }
    @Test func handMadeColumn() throws {
        try CollationParityChecks.handMadeColumn(PostgresTestServer.backend())
    }
    @Test func firstRowLimits() throws { try FirstRowParityChecks.limits(PostgresTestServer.backend()) }
}
