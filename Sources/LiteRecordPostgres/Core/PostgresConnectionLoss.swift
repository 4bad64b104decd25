import CLibPQ
import LiteRecord

/// The error of a statement whose connection broke after the statement was sent: the server
/// restarted or ended the session, or the network failed.
///
/// Such a statement may or may not have run (a `COMMIT` may or may not have committed), which
/// no SQL error means, so it has a kind of its own: ``LiteRecord/ResultCode/ioError`` and the
/// SQLSTATE `08006` (connection failure), whatever the server or libpq said (their words are in
/// the message). A connection that broke while it sat idle in the pool never gets here: the
/// pool replaces it before the statement is sent.
package enum PostgresConnectionLoss {
    /// The SQLSTATE of a lost connection: `08006`, connection failure.
    package static let sqlState = "08006"

    /// The error for `sql`, lost on `connection`.
    ///
    /// - Parameters:
    ///   - reason: The server's error, when it sent one before closing (such as SQLSTATE 57P01,
    ///     "terminating connection due to administrator command").
    ///   - connection: The broken connection, for libpq's own message.
    ///   - sql: The statement.
    /// - Returns: The error.
    static func error(reason: DatabaseError?, connection: OpaquePointer, sql: SQL) -> DatabaseError {
        var cause =
            reason.map { error in error.sqlState.map { "SQLSTATE \($0): \(error.message)" } ?? error.message }
            ?? String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
        // libpq's text spans lines ("FATAL:  terminating connection ...\nserver closed the
        // connection unexpectedly\n\tThis probably means ..."): one line reads better in a log.
        cause = cause.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if cause.isEmpty { cause = "the server closed the connection" }
        return DatabaseError(
            backendName: "PostgreSQL",
            resultCode: .ioError,
            message:
                "the connection to PostgreSQL was lost; the statement may or may not have run (\(cause))",
            sql: sql.text, arguments: sql.arguments.isEmpty ? nil : sql.arguments, sqlState: sqlState)
    }
}
