import CLibPQ
import LiteRecord

/// What statements may leave behind on their connection after they return, beyond their
/// transaction: the reason a pooled connection is reset before another operation gets it.
///
/// `pg.execute(sql: "SET statement_timeout = 50")` would otherwise stay on whichever pooled
/// connection ran it and fail some later, unrelated query.
package enum PostgresSessionChange: Int, Comparable, Sendable {
    /// Nothing that outlives the transaction.
    case none
    /// Run-time settings (`SET` without `LOCAL`, `set_config`): undone by `RESET ALL`.
    case settings
    /// Something `RESET ALL` does not undo: temporary tables, session advisory locks, `LISTEN`,
    /// cursors `WITH HOLD`, prepared statements, `SET SESSION AUTHORIZATION`, or `DO`/`CALL`
    /// (code that may do any of these): undone by `DISCARD ALL`.
    case everything

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Notes, from the key words the lexer meets outside strings and comments, the statements that
/// change session state (``PostgresSessionChange``).
///
/// It errs on the side of a reset: a false alarm costs one round trip when the connection is
/// handed back, a miss leaks state into another operation. A change made inside a function the
/// SQL calls (a `set_config` in a PL/pgSQL body) cannot be seen here.
struct PostgresSessionChangeDetector {
    private(set) var change = PostgresSessionChange.none
    /// How many statements the text holds (a `;` with no word after it starts none).
    private(set) var statementCount = 0
    /// Whether the first statement is one PostgreSQL can prepare (`PREPARE`'s list: `SELECT`,
    /// `INSERT`, `UPDATE`, `DELETE`, `MERGE`, `VALUES`, and `WITH` in front of them).
    private(set) var firstStatementIsPreparable = false
    /// Whether a statement removes prepared statements (`DEALLOCATE`, `DISCARD`), so that
    /// ``PostgresStatementCache`` must forget the ones it made.
    private(set) var dropsPreparedStatements = false
    private var wordIndex = 0
    private var startsWithSet = false

    /// The key words that make a statement change the session wherever they appear.
    private static let anywhere: [(word: [UInt8], change: PostgresSessionChange)] = {
        let words: [(String, PostgresSessionChange)] = [
            ("set_config", .settings), ("pg_advisory_lock", .everything),
            ("pg_advisory_lock_shared", .everything), ("pg_try_advisory_lock", .everything),
            ("pg_try_advisory_lock_shared", .everything), ("temp", .everything),
            ("temporary", .everything), ("pg_temp", .everything), ("hold", .everything),
        ]
        return words.map { (Array($0.0.utf8), $0.1) }
    }()

    /// The first key words of statements that change the session.
    private static let leading: [[UInt8]] = ["listen", "prepare", "do", "call"].map { Array($0.utf8) }

    /// What may follow `SET` without changing more than the transaction.
    private static let transactionScoped: [[UInt8]] = ["local", "transaction", "constraints"].map {
        Array($0.utf8)
    }

    private static let preparable: [[UInt8]] = [
        "select", "insert", "update", "delete", "merge", "values", "with",
    ]
    .map { Array($0.utf8) }
    private static let dropping: [[UInt8]] = ["deallocate", "discard"].map { Array($0.utf8) }

    private static let set = Array("set".utf8)
    private static let authorization = Array("authorization".utf8)

    /// An unquoted identifier or key word.
    mutating func word(_ word: ArraySlice<UInt8>) {
        defer { wordIndex += 1 }
        if wordIndex == 0 {
            statementCount += 1
            if statementCount == 1 {
                firstStatementIsPreparable = Self.preparable.contains { Self.matches(word, $0) }
            }
            if Self.dropping.contains(where: { Self.matches(word, $0) }) { dropsPreparedStatements = true }
            startsWithSet = Self.matches(word, Self.set)
            if Self.leading.contains(where: { Self.matches(word, $0) }) { note(.everything) }
        } else if wordIndex == 1 && startsWithSet {
            if !Self.transactionScoped.contains(where: { Self.matches(word, $0) }) { note(.settings) }
        } else if startsWithSet && Self.matches(word, Self.authorization) {
            note(.everything)
        }
        if let found = Self.anywhere.first(where: { Self.matches(word, $0.word) }) { note(found.change) }
    }

    /// A `;` outside strings and comments: the next word begins a statement.
    mutating func endStatement() {
        wordIndex = 0
        startsWithSet = false
    }

    private mutating func note(_ found: PostgresSessionChange) {
        change = max(change, found)
    }

    /// Whether `word` is `keyword` (lowercase ASCII) in any case.
    private static func matches(_ word: ArraySlice<UInt8>, _ keyword: [UInt8]) -> Bool {
        guard word.count == keyword.count else { return false }
        return zip(word, keyword).allSatisfy { pair in
            let (byte, expected) = pair
            return byte == expected
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == expected)
        }
    }
}

/// Resets a pooled connection's session state when it is handed back after SQL that may have
/// changed it, so that the next operation finds the connection as LiteRecord opened it.
///
/// Measured with `pgbench` on the test server (Unix socket, one client, medians of 7 runs of
/// 1,000 on a loaded 2-core machine): `SELECT 1` 0.20 ms, `RESET ALL` with LiteRecord's settings
/// in the same round trip 0.18 ms, `DISCARD ALL` then the settings (two round trips) 0.23 ms. Only
/// connections that ran such SQL pay it; the rest are handed back as they are.
enum PostgresSessionReset {
    /// The settings every LiteRecord connection runs with: text is exchanged as UTF-8 whatever
    /// the server's default; dates and numbers have one spelling (ISO, '.' decimal point) and
    /// doubles their shortest exact digits whatever the server's locale settings; a backslash in
    /// a string is an ordinary character (what ``PostgresPlaceholders`` expects); the time zone
    /// is UTC, the zone of the date text LiteRecord writes without an offset, so that a `Date`
    /// stored in a `timestamptz` column is the instant written whatever the server's zone.
    static let connectionSettings =
        "SET client_encoding = 'UTF8'; SET datestyle = 'ISO'; SET extra_float_digits = 1; "
        + "SET standard_conforming_strings = on; SET TimeZone = 'UTC'"

    /// Puts the session back as LiteRecord opened it: `RESET ALL` for settings, `DISCARD ALL`
    /// (its own round trip: it cannot run inside the implicit transaction of a multi-statement
    /// query) for everything else, then LiteRecord's settings again.
    ///
    /// - Parameters:
    ///   - handle: The connection, idle (outside any transaction).
    ///   - change: What its statements may have changed.
    /// - Returns: Whether the reset succeeded; a connection that could not be reset is closed.
    static func reset(_ handle: OpaquePointer, undoing change: PostgresSessionChange) -> Bool {
        switch change {
        case .none:
            return true
        case .settings:
            return run(handle, "RESET ALL; " + connectionSettings)
        case .everything:
            return run(handle, "DISCARD ALL") && run(handle, connectionSettings)
        }
    }

    private static func run(_ handle: OpaquePointer, _ text: String) -> Bool {
        guard let result = PQexec(handle, text) else { return false }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_COMMAND_OK
    }
}
