import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// The same checks (BackendParityChecks.swift, QueryParityChecks.swift, ...), written once against
// the library's protocols, on each backend: an in-memory SQLite database, a SQLite file and
// PostgreSQL. The PostgreSQL suites are skipped, with the message, when no server is
// configured: `swift test` passes on a machine without PostgreSQL; `.ci/run` starts one and sets
// the variable (and runs every `Postgres...ParityTests` again on an ICU database).

@Suite(.offCooperativePool) struct SQLiteParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func modelRoundTrip() throws { try backend.run { try ParityChecks.modelRoundTrip($0, $1) } }
    @Test func hostileInput() throws { try backend.run { try ParityChecks.hostileInput($0, $1) } }
    @Test func nanParameterIsRefused() throws {
        try backend.run { try ParityChecks.nanParameterIsRefused($0, $1) }
    }
    @Test func constraintErrors() throws { try backend.run { try ParityChecks.constraintErrors($0, $1) } }
    @Test func transactions() throws { try backend.run { try ParityChecks.transactions($0, $1) } }
    @Test func concurrency() throws { try backend.run { try ParityChecks.concurrency($0, $1) } }
    @Test func queryDifferential() throws { try backend.run { try QueryParityChecks.differential($0, $1) } }
    @Test func fetchFromATable() throws {
        try backend.run { try TableFetchParityChecks.fetchFromATable($0, $1) }
    }
    @Test func savepoints() throws { try backend.run { try SavepointParityChecks.savepoints($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteFileParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func modelRoundTrip() throws { try backend.run { try ParityChecks.modelRoundTrip($0, $1) } }
    @Test func hostileInput() throws { try backend.run { try ParityChecks.hostileInput($0, $1) } }
    @Test func nanParameterIsRefused() throws {
        try backend.run { try ParityChecks.nanParameterIsRefused($0, $1) }
    }
    @Test func constraintErrors() throws { try backend.run { try ParityChecks.constraintErrors($0, $1) } }
    @Test func transactions() throws { try backend.run { try ParityChecks.transactions($0, $1) } }
    @Test func concurrency() throws { try backend.run { try ParityChecks.concurrency($0, $1) } }
    @Test func queryDifferential() throws { try backend.run { try QueryParityChecks.differential($0, $1) } }
    @Test func fetchFromATable() throws {
        try backend.run { try TableFetchParityChecks.fetchFromATable($0, $1) }
    }
    @Test func savepoints() throws { try backend.run { try SavepointParityChecks.savepoints($0, $1) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresParityTests {
    let backend = ParityBackend.postgres
    @Test func modelRoundTrip() throws { try backend.run { try ParityChecks.modelRoundTrip($0, $1) } }
    @Test func hostileInput() throws { try backend.run { try ParityChecks.hostileInput($0, $1) } }
    @Test func nanParameterIsRefused() throws {
        try backend.run { try ParityChecks.nanParameterIsRefused($0, $1) }
    }
    @Test func constraintErrors() throws { try backend.run { try ParityChecks.constraintErrors($0, $1) } }
    @Test func transactions() throws { try backend.run { try ParityChecks.transactions($0, $1) } }
    @Test func concurrency() throws { try backend.run { try ParityChecks.concurrency($0, $1) } }
    @Test func queryDifferential() throws { try backend.run { try QueryParityChecks.differential($0, $1) } }
    @Test func fetchFromATable() throws {
        try backend.run { try TableFetchParityChecks.fetchFromATable($0, $1) }
    }
    @Test func savepoints() throws { try backend.run { try SavepointParityChecks.savepoints($0, $1) } }
}

// The query language beyond comparisons (QueryLanguageParityChecks.swift,
// QueryChangesParityChecks.swift).

@Suite(.offCooperativePool) struct SQLiteQueryLanguageParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func textAndJSONDifferential() throws {
        try backend.run { try QueryLanguageParityChecks.differential($0, $1) }
    }
    @Test func graphemeClusters() throws {
        try backend.run { try GraphemeParityChecks.differential($0, $1) }
    }
    @Test func graphemeClustersAtViramas() throws {
        try backend.run { try GraphemeParityChecks.viramaNeedles($0, $1) }
    }
    @Test func updateAndDelete() throws {
        try backend.run { try QueryChangesParityChecks.updateAndDelete($0, $1) }
    }
    @Test func arithmetic() throws { try backend.run { try QueryChangesParityChecks.arithmetic($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteFileQueryLanguageParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func textAndJSONDifferential() throws {
        try backend.run { try QueryLanguageParityChecks.differential($0, $1) }
    }
    @Test func graphemeClusters() throws {
        try backend.run { try GraphemeParityChecks.differential($0, $1) }
    }
    @Test func graphemeClustersAtViramas() throws {
        try backend.run { try GraphemeParityChecks.viramaNeedles($0, $1) }
    }
    @Test func updateAndDelete() throws {
        try backend.run { try QueryChangesParityChecks.updateAndDelete($0, $1) }
    }
    @Test func arithmetic() throws { try backend.run { try QueryChangesParityChecks.arithmetic($0, $1) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresQueryLanguageParityTests {
    let backend = ParityBackend.postgres
    @Test func textAndJSONDifferential() throws {
        try backend.run { try QueryLanguageParityChecks.differential($0, $1) }
    }
    @Test func graphemeClusters() throws {
        try backend.run { try GraphemeParityChecks.differential($0, $1) }
    }
    @Test func graphemeClustersAtViramas() throws {
        try backend.run { try GraphemeParityChecks.viramaNeedles($0, $1) }
    }
    @Test func updateAndDelete() throws {
        try backend.run { try QueryChangesParityChecks.updateAndDelete($0, $1) }
    }
    @Test func arithmetic() throws { try backend.run { try QueryChangesParityChecks.arithmetic($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteAggregateParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func aggregates() throws { try backend.run { try QueryAggregateParityChecks.aggregates($0, $1) } }
    @Test func pagination() throws { try backend.run { try QueryAggregateParityChecks.pagination($0, $1) } }
    @Test func decimalComparisons() throws { try backend.run { try DecimalParityChecks.comparisons($0, $1) } }
    @Test func rawSums() throws { try backend.run { try RawAggregateParityChecks.sums($0, $1) } }
    @Test func arithmeticErrors() throws {
        try backend.run { try ArithmeticErrorParityChecks.resultCodes($0, $1) }
    }
}

@Suite(.offCooperativePool) struct SQLiteFileAggregateParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func aggregates() throws { try backend.run { try QueryAggregateParityChecks.aggregates($0, $1) } }
    @Test func pagination() throws { try backend.run { try QueryAggregateParityChecks.pagination($0, $1) } }
    @Test func decimalComparisons() throws { try backend.run { try DecimalParityChecks.comparisons($0, $1) } }
    @Test func rawSums() throws { try backend.run { try RawAggregateParityChecks.sums($0, $1) } }
    @Test func arithmeticErrors() throws {
        try backend.run { try ArithmeticErrorParityChecks.resultCodes($0, $1) }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresAggregateParityTests {
    let backend = ParityBackend.postgres
    @Test func aggregates() throws { try backend.run { try QueryAggregateParityChecks.aggregates($0, $1) } }
    @Test func pagination() throws { try backend.run { try QueryAggregateParityChecks.pagination($0, $1) } }
    @Test func decimalComparisons() throws { try backend.run { try DecimalParityChecks.comparisons($0, $1) } }
    @Test func rawSums() throws { try backend.run { try RawAggregateParityChecks.sums($0, $1) } }
    @Test func arithmeticErrors() throws {
        try backend.run { try ArithmeticErrorParityChecks.resultCodes($0, $1) }
    }
}
