import CLibPQ
import LiteRecord

/// One SQL text a connection has run: its `$n` form and, once it came back, the name of the
/// server-side prepared statement that runs it without parsing and planning it again.
final class PostgresStatement {
    let numbered: PostgresPlaceholders
    /// How many times the text was run on this connection.
    var uses = 0
    /// The prepared statement's name on the server, `nil` while it is not prepared.
    var preparedName: String?
    /// The parameter types it was prepared with (0: inferred by the server, 17: `bytea`); a
    /// call with other types runs unprepared.
    var preparedTypes: [UInt32] = []
    /// Whether its rows are fetched in binary format: every result column has a type whose
    /// binary form ``PostgresResult`` decodes.
    var binaryResults = false
    /// The column list of its last result, shared by the next results with the same names: a
    /// find, one row per result, would otherwise build a name index for every call.
    private var lastColumns: RowColumns?
    /// The in-place decoding of its prepared form's rows, for the last type decoded from them.
    var layoutBinding: PostgresLayoutBinding?

    init(numbered: PostgresPlaceholders) {
        self.numbered = numbered
    }

    /// The column list for a result with these column names: the last one when the names are
    /// the same.
    func columns(named names: [String]) -> RowColumns {
        if let last = lastColumns, last.names == names { return last }
        let columns = RowColumns(names: names)
        lastColumns = columns
        return columns
    }
}

/// The SQL texts a connection ran, by text, with the prepared statements made for those that
/// came back: a model's `find`, `insert` and `update` are parsed and planned once per
/// connection rather than at every call.
///
/// A text is prepared at its second use, so that SQL run once (an `IN` list of a length never
/// seen again) costs no extra round trip. The cache is bounded: past ``capacity`` texts it
/// starts again, and the statements it prepared are deallocated. Prepared statements live in
/// the server's session, so whatever ends them there ends them here: `DISCARD ALL` (the pool's
/// reset, or the caller's SQL), `DEALLOCATE`, a new connection.
struct PostgresStatementCache {
    /// Past this many texts the cache is emptied.
    static let capacity = 256

    private var statements: [String: PostgresStatement] = [:]
    /// Names prepared on the server and no longer in the cache, deallocated before the next
    /// statement is prepared (not at once: the transaction may be aborted, which refuses even
    /// `DEALLOCATE`).
    private var namesToDeallocate: [String] = []
    private var nextNumber = 0

    /// The statement of a text, numbered on its first use.
    mutating func statement(for text: String) -> PostgresStatement {
        if let statement = statements[text] { return statement }
        if statements.count >= Self.capacity {
            for statement in statements.values {
                if let name = statement.preparedName { namesToDeallocate.append(name) }
            }
            statements.removeAll(keepingCapacity: true)
        }
        let statement = PostgresStatement(numbered: PostgresPlaceholders(numbering: text))
        statements[text] = statement
        return statement
    }

    /// A name for a new prepared statement, unlike any a caller would choose.
    mutating func newName() -> String {
        nextNumber += 1
        return "literecord_\(nextNumber)"
    }

    /// Forgets a statement's prepared form and deallocates it later (a plan the server refuses
    /// to reuse after a schema change).
    mutating func unprepare(_ statement: PostgresStatement) {
        if let name = statement.preparedName { namesToDeallocate.append(name) }
        statement.preparedName = nil
    }

    /// Forgets every prepared statement without deallocating it: the server already dropped
    /// them (`DISCARD ALL`, `DEALLOCATE ALL`).
    mutating func forgetPreparedStatements() {
        for statement in statements.values { statement.preparedName = nil }
        namesToDeallocate.removeAll()
    }

    /// Deallocates the names waiting for it, in one round trip, when the connection is outside
    /// any transaction (where a `DEALLOCATE` that failed could abort none); otherwise they wait.
    mutating func deallocatePending(on handle: OpaquePointer) {
        guard !namesToDeallocate.isEmpty, PQtransactionStatus(handle) == PQTRANS_IDLE else { return }
        // The names are LiteRecord's own (`literecord_n`), quoted all the same.
        let script = namesToDeallocate.map { "DEALLOCATE \(SQL.quoteIdentifier($0))" }.joined(separator: "; ")
        if let result = PQexec(handle, script) { PQclear(result) }
        namesToDeallocate.removeAll()
    }
}
