import CSQLite
import Foundation

/// `literecord_decimal_sum(x)`: the exact sum of a `Decimal` column, as `Decimal`'s own `+`
/// gives it, in the text the decoder reads; NULL when no row has a value (as `sum`).
///
/// SQLite's `sum` reads a column's text as a REAL: `0.1 + 0.2` would come back as
/// `0.30000000000000004`, and a 20-digit value loses its last digits. PostgreSQL sums such a
/// column as `numeric`, exactly; this gives SQLite the same answer. A value that is not a
/// decimal number fails the statement, as decoding it into a `Decimal` would.
enum DecimalSum {
    static let name = "literecord_decimal_sum"

    /// The running total, in the memory SQLite keeps per group (zeroed: a zero `Decimal`, no
    /// values seen).
    private struct State {
        var total: Decimal
        var hasValues: Bool
    }

    /// Registers the aggregate on a connection.
    static func register(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, nil, step, final, nil
        )
    }

    private static func state(_ context: OpaquePointer?, allocating: Bool) -> UnsafeMutablePointer<State>? {
        let size = allocating ? Int32(MemoryLayout<State>.stride) : 0
        return sqlite3_aggregate_context(context, size)?.bindMemory(to: State.self, capacity: 1)
    }

    private static let step: SQLFunctionBody = { context, _, arguments in
        guard let value = arguments?[0], sqlite3_value_type(value) != SQLITE_NULL else { return }
        guard let state = state(context, allocating: true) else { return sqlite3_result_error_nomem(context) }
        let stored: DatabaseValue
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: stored = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: stored = .real(sqlite3_value_double(value))
        default: stored = Statement.text(of: value).map { .text($0) } ?? .null
        }
        guard let decimal = try? Decimal.fromDatabaseValue(stored) else {
            return sqlite3_result_error(context, "\(name): \(stored) is not a decimal number", -1)
        }
        let total = state.pointee.total + decimal
        guard !total.isNaN else {
            return sqlite3_result_error(context, "\(name): the sum is beyond what Decimal can hold", -1)
        }
        state.pointee = State(total: total, hasValues: true)
    }

    private static let final: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let state = state(context, allocating: false), state.pointee.hasValues else {
            return sqlite3_result_null(context)
        }
        sqlite3_result_text(context, state.pointee.total.description, -1, literecord_sqlite_transient())
    }
}
