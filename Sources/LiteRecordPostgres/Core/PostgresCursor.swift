import LiteRecord
import Synchronization

// `forEach` streams rows through a server-side cursor (`DECLARE ... CURSOR`, then `FETCH` a
// batch at a time) rather than through libpq's single-row mode (`PQsetSingleRowMode`).
//
// Why: in single-row mode the connection stays busy until the last row has arrived, so a body
// that stops early (it throws) leaves two choices: read the rest of the result anyway, or cancel
// the statement, which aborts the transaction the caller may be in. And a body could not run a
// statement on the same transaction (`tx.insert` while iterating `tx.query`), as it can on
// SQLite. A cursor is closed with `CLOSE`, which leaves the transaction as it was, and between
// two `FETCH`es the connection is free for the body's own statements.
//
// The price: a cursor lives in a transaction, so outside one the rows are read in a read-only
// transaction of their own (which also gives the whole iteration one snapshot, as a SQLite read
// has), and each batch costs a round trip.

extension PostgresSession {
    /// How many rows each `FETCH` reads: enough that the round trips cost little next to
    /// decoding the rows, few enough that a batch stays small in memory.
    static let cursorBatchSize = 500

    /// Numbers the cursors, whose names must differ when one iteration runs inside another on
    /// the same transaction.
    private static let cursorNumbers = Atomic<Int>(0)

    /// Runs a query and hands its rows to `body` one at a time, holding at most one batch of
    /// them in memory.
    ///
    /// - Parameters:
    ///   - sql: A query (SELECT).
    ///   - body: Called with each row; throwing stops the iteration and closes the cursor.
    /// - Throws: ``LiteRecord/DatabaseError``, or what `body` throws.
    func forEachRow(_ sql: SQL, _ body: (Row) throws -> Void) throws {
        guard transactionDepth > 0 else {
            // One read-only snapshot, as a SQLite read: reads in `body` join it and see what it
            // sees; a write in `body` runs on a connection of its own (see
            // `PostgresHeldSession`), as SQLite's writer does beside a reader.
            let wasReadOnly = isReadOnly
            isReadOnly = true
            defer { isReadOnly = wasReadOnly }
            try runTransaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { _ in
                try streamRows(sql, body)
            }
            return
        }
        try streamRows(sql, body)
    }

    private func streamRows(_ sql: SQL, _ body: (Row) throws -> Void) throws {
        let number = Self.cursorNumbers.wrappingAdd(1, ordering: .relaxed).newValue
        let name = "literecord_cursor_\(number)"
        // An observation learns the tables a fetch reads from the queries it runs: the query,
        // not the DECLARE around it.
        connection.statementLog?.append(sql)
        var declare = SQL(verbatim: "DECLARE \(name) NO SCROLL CURSOR FOR ")
        declare.append(sql)
        try execute(declare)
        let fetch = SQL(verbatim: "FETCH FORWARD \(Self.cursorBatchSize) FROM \(name)")
        do {
            while true {
                let rows = try execute(fetch).lrRows
                for row in rows { try body(row) }
                // A short batch is the last one: no round trip for an empty one.
                if rows.count < Self.cursorBatchSize { break }
            }
        } catch {
            // Closed so that the caller's transaction goes on as it was before the iteration;
            // unless a FETCH failed, which aborted the transaction (CLOSE would fail as well).
            if !connection.isTransactionAborted { _ = try? execute(SQL(verbatim: "CLOSE \(name)")) }
            throw error
        }
        try execute(SQL(verbatim: "CLOSE \(name)"))
    }
}
