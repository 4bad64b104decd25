import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

/// The PostgreSQL server the tests use: `LITERECORD_POSTGRES_URL` (`.ci/run` starts one with
/// `Scripts/postgres-test-server`). Without it the PostgreSQL tests are skipped.
enum PostgresTestServer {
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["LITERECORD_POSTGRES_URL"], !url.isEmpty else {
            return nil
        }
        return url
    }()

    static var isAvailable: Bool { url != nil }

    static let skipMessage: Comment =
        "LITERECORD_POSTGRES_URL is not set: start a server with Scripts/postgres-test-server start"

    /// A database in a schema of its own, so that tests running in parallel never share a table.
    static func freshDatabase(configuration: PostgresConfiguration = PostgresConfiguration()) throws
        -> PostgresDatabase
    {
        try freshDatabases(count: 1, configuration: configuration)[0]
    }

    /// Databases with pools of their own (as separate processes) on one fresh schema.
    static func freshDatabases(count: Int, configuration: PostgresConfiguration = PostgresConfiguration())
        throws -> [PostgresDatabase]
    {
        let url = try freshURL()
        return try (0..<count).map { _ in try PostgresDatabase(url: url, configuration: configuration) }
    }

    /// The URL of a fresh schema of its own on the test server, for code that opens the database
    /// itself.
    static func freshURL() throws -> String {
        guard let url else { throw DatabaseError(resultCode: .misuse, message: "no PostgreSQL server") }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let setup = try PostgresDatabase(url: url)
        try setup.execute(sql: SQL(verbatim: "CREATE SCHEMA \(schema)"))
        let separator = url.contains("?") ? "&" : "?"
        return url + separator + "options=-csearch_path%3D\(schema)"
    }
}
