import CSQLite

/// `literecord_sum(x)`: the sum of an integer column as Swift computes it: exact whatever the
/// order of the rows, an error only when the total itself does not fit a 64-bit integer; NULL
/// when no row has a value (as `sum`).
///
/// SQLite's own `sum` fails as soon as a partial sum overflows: `Int.max + 1 - 2` is an error
/// in one row order and `Int.max - 1` in another. PostgreSQL sums `bigint` as `numeric`,
/// exactly; this gives SQLite the same answer. The total is kept as a wrapped `Int64` and a
/// count of wraps (a 128-bit integer, in effect), so a row costs one checked addition. A value
/// that is not an integer (a REAL, or text another tool stored) makes the result a REAL, as in
/// SQLite's `sum`. Also a window function (`OVER (...)`).
enum IntegerSum {
    static let name = "literecord_sum"

    /// The running total, in the memory SQLite keeps per group (zeroed: no values seen).
    private struct State {
        /// The total modulo 2⁶⁴, as a two's complement `Int64`.
        var low: Int64
        /// How many times `low` wrapped: the exact total is `low + wraps × 2⁶⁴`.
        var wraps: Int64
        /// The sum of the values that are not integers.
        var real: Double
        /// How many values (not NULL) are in the total, and how many of them are not integers.
        var count: Int64
        var realCount: Int64
    }

    /// Registers the aggregate on a connection.
    static func register(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_window_function(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, step, final,
            value, inverse, nil)
    }

    private static func state(_ context: OpaquePointer?, allocating: Bool) -> UnsafeMutablePointer<State>? {
        let size = allocating ? Int32(MemoryLayout<State>.stride) : 0
        return sqlite3_aggregate_context(context, size)?.bindMemory(to: State.self, capacity: 1)
    }

    private static let step: SQLFunctionBody = { context, _, arguments in
        add(context, arguments?[0], sign: 1)
    }

    private static let inverse: SQLFunctionBody = { context, _, arguments in
        add(context, arguments?[0], sign: -1)
    }

    /// Adds (`sign` 1) or removes (`sign` -1, for a window's rows leaving the frame) a value.
    private static func add(_ context: OpaquePointer?, _ argument: OpaquePointer?, sign: Int64) {
        // Numeric affinity first, as `sum`: an integer another tool stored as text is an integer.
        let type = sqlite3_value_numeric_type(argument)
        guard type != SQLITE_NULL else { return }
        guard let state = state(context, allocating: true) else { return sqlite3_result_error_nomem(context) }
        state.pointee.count += sign
        guard type == SQLITE_INTEGER else {
            state.pointee.real += Double(sign) * sqlite3_value_double(argument)
            state.pointee.realCount += sign
            return
        }
        let number = sqlite3_value_int64(argument)
        let (low, overflow) =
            sign > 0
            ? state.pointee.low.addingReportingOverflow(number)
            : state.pointee.low.subtractingReportingOverflow(number)
        state.pointee.low = low
        if overflow {
            // Adding a negative number (removing a positive one) wraps downwards.
            state.pointee.wraps += (number < 0) == (sign > 0) ? -1 : 1
        }
    }

    private static let final: @convention(c) (OpaquePointer?) -> Void = { context in
        result(context, state(context, allocating: false)?.pointee)
    }

    private static let value: @convention(c) (OpaquePointer?) -> Void = { context in
        result(context, state(context, allocating: false)?.pointee)
    }

    private static func result(_ context: OpaquePointer?, _ state: State?) {
        guard let state, state.count > 0 else { return sqlite3_result_null(context) }
        let exact = Int128(state.low) + Int128(state.wraps) << 64
        if state.realCount > 0 {
            return sqlite3_result_double(context, Double(exact) + state.real)
        }
        guard state.wraps == 0 else {
            return sqlite3_result_error(context, "integer overflow: the sum \(exact) does not fit Int64", -1)
        }
        sqlite3_result_int64(context, state.low)
    }
}
