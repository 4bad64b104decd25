import CSQLite

/// SQL functions LiteRecord registers on every connection, so that query expressions compute
/// what Swift computes: integer arithmetic that fails on overflow instead of turning into a
/// REAL, and text functions with Swift's Unicode rules.
package enum QueryFunctions {
    /// Arithmetic on two numbers (one for `negate`): checked when both are integers, IEEE
    /// otherwise. NULL in, NULL out.
    package enum Arithmetic: Int, CaseIterable {
        case add = 1
        case subtract
        case multiply
        case divide
        case remainder
        case negate

        var name: String {
            switch self {
            case .add: "literecord_add"
            case .subtract: "literecord_subtract"
            case .multiply: "literecord_multiply"
            case .divide: "literecord_divide"
            case .remainder: "literecord_remainder"
            case .negate: "literecord_negate"
            }
        }

        /// The Swift operator, for error messages.
        package var symbol: String {
            switch self {
            case .add: "+"
            case .subtract, .negate: "-"
            case .multiply: "*"
            case .divide: "/"
            case .remainder: "%"
            }
        }
    }

    /// Text functions with Swift's semantics. NULL in, NULL out.
    package enum Text: Int, CaseIterable {
        case lowercased = 1
        case uppercased
        case characterCount

        var name: String {
            switch self {
            case .lowercased: "literecord_lowercased"
            case .uppercased: "literecord_uppercased"
            case .characterCount: "literecord_character_count"
            }
        }
    }

    /// `literecord_integer_in_range(value, low, high)`: the value, or an error when an integer
    /// result does not fit the Swift type of its column (`Int8`, `UInt32`, ...).
    static let integerInRange = "literecord_integer_in_range"

    /// Registers the functions on a connection.
    ///
    /// - Throws: ``DatabaseError`` when SQLite refuses (out of memory).
    static func register(on handle: OpaquePointer) throws {
        // Deterministic: SQLite may evaluate them once per statement for constant arguments.
        // Innocuous: they have no side effects, so schemas and triggers may use them.
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for function in Arithmetic.allCases {
            let code = sqlite3_create_function_v2(
                handle, function.name, function == .negate ? 1 : 2, flags,
                UnsafeMutableRawPointer(bitPattern: function.rawValue),
                { context, count, arguments in QueryFunctions.arithmetic(context, count, arguments) },
                nil, nil, nil)
            guard code == SQLITE_OK else { throw DatabaseError.fromConnection(handle, code: code) }
        }
        let code = sqlite3_create_function_v2(
            handle, integerInRange, 3, flags, nil,
            { context, count, arguments in QueryFunctions.integerInRange(context, count, arguments) },
            nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError.fromConnection(handle, code: code) }
        for function in Text.allCases {
            let code = sqlite3_create_function_v2(
                handle, function.name, 1, flags, UnsafeMutableRawPointer(bitPattern: function.rawValue),
                { context, count, arguments in QueryFunctions.text(context, count, arguments) },
                nil, nil, nil)
            guard code == SQLITE_OK else { throw DatabaseError.fromConnection(handle, code: code) }
        }
    }

    private static func arithmetic(
        _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        guard let context, let arguments, count >= 1,
            let function = Arithmetic(rawValue: Int(bitPattern: sqlite3_user_data(context)))
        else { return }
        let values = (0..<Int(count)).map { arguments[$0] }
        // Numeric affinity first: an integer another tool stored as text computes as a number.
        let types = values.map { sqlite3_value_numeric_type($0) }
        if types.contains(SQLITE_NULL) {
            sqlite3_result_null(context)
        } else if types.allSatisfy({ $0 == SQLITE_INTEGER }) {
            let left = sqlite3_value_int64(values[0])
            let right = values.count > 1 ? sqlite3_value_int64(values[1]) : 0
            integerArithmetic(function, left, right, context)
        } else {
            let left = sqlite3_value_double(values[0])
            let right = values.count > 1 ? sqlite3_value_double(values[1]) : 0
            let result: Double =
                switch function {
                case .add: left + right
                case .subtract: left - right
                case .multiply: left * right
                case .divide: left / right
                case .remainder: left.truncatingRemainder(dividingBy: right)
                case .negate: -left
                }
            sqlite3_result_double(context, result)
        }
    }

    /// Integer arithmetic as Swift's `Int64` does it: truncating division, and an error where
    /// Swift traps (overflow, division by zero), which aborts the statement and its changes.
    private static func integerArithmetic(
        _ function: Arithmetic, _ left: Int64, _ right: Int64, _ context: OpaquePointer
    ) {
        if (function == .divide || function == .remainder) && right == 0 {
            sqlite3_result_error(context, "division by zero: \(left) \(function.symbol) 0", -1)
            return
        }
        let (result, overflow): (Int64, Bool) =
            switch function {
            case .add: left.addingReportingOverflow(right)
            case .subtract: left.subtractingReportingOverflow(right)
            case .multiply: left.multipliedReportingOverflow(by: right)
            case .divide: left.dividedReportingOverflow(by: right)
            case .remainder: left.remainderReportingOverflow(dividingBy: right)
            case .negate: Int64(0).subtractingReportingOverflow(left)
            }
        guard !overflow else {
            let expression =
                function == .negate ? "-(\(left))" : "\(left) \(function.symbol) \(right)"
            sqlite3_result_error(context, "integer overflow: \(expression)", -1)
            return
        }
        sqlite3_result_int64(context, result)
    }

    private static func integerInRange(
        _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        guard let context, let arguments, count == 3 else { return }
        let value = arguments[0]
        guard sqlite3_value_numeric_type(value) == SQLITE_INTEGER else {
            sqlite3_result_value(context, value)
            return
        }
        let (number, low, high) = (
            sqlite3_value_int64(value), sqlite3_value_int64(arguments[1]), sqlite3_value_int64(arguments[2])
        )
        guard (low...high).contains(number) else {
            sqlite3_result_error(context, "integer overflow: \(number) is outside \(low)...\(high)", -1)
            return
        }
        sqlite3_result_value(context, value)
    }

    private static func text(
        _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        guard let context, let arguments, count == 1,
            let function = Text(rawValue: Int(bitPattern: sqlite3_user_data(context)))
        else { return }
        let value = arguments[0]
        guard sqlite3_value_type(value) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        // Byte length, not C string: the text may hold NUL characters.
        let bytes = sqlite3_value_text(value)
        let length = Int(sqlite3_value_bytes(value))
        let text = String(
            decoding: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : length), as: UTF8.self)
        switch function {
        case .lowercased: resultText(context, text.lowercased())
        case .uppercased: resultText(context, text.uppercased())
        case .characterCount: sqlite3_result_int64(context, Int64(text.count))
        }
    }

    private static func resultText(_ context: OpaquePointer, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                sqlite3_result_text(context, "", 0, literecord_sqlite_transient())
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                sqlite3_result_text64(
                    context, pointer, UInt64(buffer.count), literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }
}
