/// SQL text with its arguments, written with string interpolation that binds.
///
/// Every interpolated value becomes a `?` parameter and an argument, never text:
///
/// ```swift
/// let name = "O'Brien"; let minimum = 100
/// try db.fetchAll(Row.self, sql: "SELECT * FROM players WHERE name = \(name) AND score > \(minimum)")
/// // SQL: SELECT * FROM players WHERE name = ? AND score > ?   arguments: ['O''Brien', 100]
/// ```
///
/// Identifiers cannot be bound, so they have their own, quoting interpolation:
/// `"SELECT * FROM \(identifier: table)"` gives `SELECT * FROM "my ""table"""`.
/// Fragments compose: `"... WHERE \(fragment)"` splices another `SQL` value with its arguments.
/// A sequence of values becomes a parenthesized list: `"id IN \(list: ids)"` gives `id IN (?,?,?)`.
///
/// SQL text held in a `String` variable (a script loaded at run time) becomes an `SQL` value with
/// ``init(verbatim:arguments:)``, which takes it as written and binds only the arguments given.
public struct SQL: Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The SQL text, with `?` where values were interpolated.
    public var text: String { storedText ?? SQLTextMemo.text(of: pieces) }
    /// The values bound to the parameters of ``text``.
    public var arguments: StatementArguments {
        StatementArguments(positional: values.array, named: named)
    }
    /// The text, unless ``pieces`` give it (SQL interpolated with bound values only).
    @usableFromInline var storedText: String?
    /// The literals of an interpolation whose interpolations are all bound values, when
    /// ``storedText`` is `nil`: the same on every call from one place in the code, they also
    /// find the prepared statement without the text (the internal `StatementCache`).
    // Set by each initializer: a default value here was a call in inlined code.
    @usableFromInline var pieces: SQLPieces
    /// The positional values, inline when few, so running the SQL allocates nothing for them.
    @usableFromInline var values: SQLValues
    /// The named values.
    @usableFromInline var named: [String: DatabaseValue]
    /// A value that could not be converted while the literal was built; thrown when it runs.
    var conversionError: ValueConversionError? {
        get { conversionErrorBox?.error }
        set { conversionErrorBox = newValue.map(ConversionErrorBox.init) }
    }
    /// ``conversionError`` behind a reference: nil, one word, costs nothing to copy when there
    /// is no error, which is every SQL value but the failing one.
    @usableFromInline var conversionErrorBox: ConversionErrorBox?
    @usableFromInline final class ConversionErrorBox: Sendable {
        let error: ValueConversionError
        init(_ error: ValueConversionError) { self.error = error }
    }

    /// Whether ``pieces`` spell ``text``.
    var hasLiteralPieces: Bool { storedText == nil }

    /// An empty value for an interpolation to fill.
    @inlinable init() {
        self.pieces = SQLPieces()
        self.values = SQLValues()
        self.named = Dictionary()
    }

    /// Wraps SQL text and arguments you built yourself; the same as ``init(verbatim:arguments:)``.
    ///
    /// - Parameters:
    ///   - text: SQL text; it may hold positional and named parameters.
    ///   - arguments: The values for those parameters.
    public init(_ text: String, arguments: StatementArguments = []) {
        self.storedText = text
        self.pieces = SQLPieces()
        self.values = SQLValues(arguments.positional)
        self.named = arguments.named
    }

    /// Takes SQL text held in a `String` exactly as written: a script read from a file, a
    /// statement built at run time. Nothing in it is bound or escaped.
    ///
    /// Values must not be spliced into `text`: write parameters (`?`, `:name`) and pass the
    /// values as `arguments`, which are bound. For SQL written in code, prefer a literal, whose
    /// interpolations bind: `"... WHERE name = \(name)"`.
    ///
    /// ```swift
    /// let script = try String(contentsOf: schemaFile, encoding: .utf8)
    /// try db.execute(sql: SQL(verbatim: script))
    /// try db.execute(sql: SQL(verbatim: "DELETE FROM players WHERE score < ?", arguments: [10]))
    /// ```
    ///
    /// - Parameters:
    ///   - text: SQL text, taken as written; one statement or a script.
    ///   - arguments: Values for the parameters in `text`.
    public init(verbatim text: String, arguments: StatementArguments = []) {
        self.init(text, arguments: arguments)
    }

    public init(stringLiteral value: StaticString) {
        self.init(value.description)
    }

    // Not `@inlinable`, unlike the appends: inlined, the optimizer copied the finished value
    // out of the interpolation (a retain per slot) and destroyed the interpolation (a release
    // per slot); called, it takes the value over as is.
    public init(stringInterpolation: consuming Interpolation) {
        self = (consume stringInterpolation).sql
    }

    /// The text and, separately, the arguments: `SELECT ? [42]`.
    public var description: String {
        arguments.isEmpty ? text : "\(text) \(arguments)"
    }

    /// Appends another fragment (text and arguments).
    ///
    /// - Parameter other: The SQL to append, as is.
    public mutating func append(_ other: SQL) {
        storedText = text + other.text
        values.append(contentsOf: other.values)
        named.merge(other.named) { _, new in new }
        conversionError = conversionError ?? other.conversionError
    }

    /// Quotes an identifier for SQL: wraps it in double quotes and doubles inner double quotes.
    ///
    /// - Parameter name: A table, column, index or savepoint name; any characters are allowed.
    /// - Returns: The quoted identifier, safe to place in SQL text.
    public static func quoteIdentifier(_ name: String) -> String {
        // Foundation's `replacingOccurrences` costs ~14,000 instructions on Linux even when there
        // is nothing to replace (two per `update`, a quarter of a PostgreSQL read-modify-write's
        // client CPU): a name without a double quote, nearly every one, skips it.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Builds an ``SQL`` value piece by piece; used by string interpolation.
    ///
    /// While every interpolation is a bound value, the text depends only on the literals, which
    /// are the same on every call from one place in the code: the pieces are recorded (their
    /// addresses, no copying) and the text is built once per place (the internal `SQLTextMemo`), so a
    /// statement run in a loop does not pay for building its text again; the connection finds
    /// its prepared statement by those pieces, and binds the few values kept inline straight
    /// to it. An identifier, a fragment or a list makes the text depend on more: it is then
    /// built as it goes.
    ///
    /// The appends of literals and of strings, integers and reals are `@inlinable`: inlined into
    /// the code that writes the literal, they become stores into the value, which that code then
    /// destroys knowing which slots it filled. As calls, building and destroying the value cost
    /// about as much as binding and running the statement.
    public struct Interpolation: StringInterpolationProtocol {
        /// The value being built: its text stays `nil` while its pieces alone give it.
        @usableFromInline var sql = SQL()

        @inlinable
        public init(literalCapacity: Int, interpolationCount: Int) {}

        @inlinable
        public mutating func appendLiteral(_ literal: StaticString) {
            guard sql.storedText == nil, literal.hasPointerRepresentation, sql.pieces.append(literal) else {
                return appendText(literal.description)
            }
        }

        /// Appends text that is not a literal of the code: from then on the text is built.
        @usableFromInline
        mutating func appendText(_ text: String) {
            if sql.storedText == nil { sql.storedText = sql.pieces.joined() }
            sql.storedText?.append(text)
        }

        /// Appends the `?` of a bound value.
        @inlinable
        mutating func appendPlaceholder() {
            guard sql.storedText == nil, sql.pieces.appendPlaceholder() else { return appendText("?") }
        }

        /// Binds a value: its `?` in the text, and `append` adds it to the arguments.
        @inlinable @inline(__always)
        mutating func bind(_ append: (inout SQLValues) -> Void) {
            appendPlaceholder()
            append(&sql.values)
        }

        /// Binds a value: appends `?` to the text and the value to the arguments.
        public mutating func appendInterpolation(_ value: some DatabaseValueConvertible) {
            appendBound(value)
        }

        // The most common types have their own overloads, which keep the value as is: the
        // generic one converts through a witness table into a `DatabaseValue`, which cost more
        // than keeping it. They store what their `databaseValue()` gives.

        /// Binds a string: appends `?` to the text and the string to the arguments.
        @inlinable
        public mutating func appendInterpolation(_ value: String) {
            bind { $0.append(text: value) }
        }

        /// Binds an integer: appends `?` to the text and the integer to the arguments.
        @inlinable
        public mutating func appendInterpolation(_ value: Int) {
            appendInterpolation(Int64(value))
        }

        /// Binds an integer: appends `?` to the text and the integer to the arguments.
        @inlinable
        public mutating func appendInterpolation(_ value: Int64) {
            bind { $0.append(integer: value) }
        }

        /// Binds a real: appends `?` to the text and the real to the arguments. NaN is refused
        /// when the SQL runs, as for any `Double`.
        @inlinable
        public mutating func appendInterpolation(_ value: Double) {
            guard !value.isNaN else { return appendBound(value) }
            bind { $0.append(real: value) }
        }

        /// Binds any convertible value, or records why it cannot be converted.
        @usableFromInline
        mutating func appendBound<Value: DatabaseValueConvertible>(_ value: Value) {
            appendPlaceholder()
            do {
                sql.values.append(try value.databaseValue())
            } catch {
                sql.values.append(.null)
                sql.conversionError =
                    sql.conversionError ?? (error as? ValueConversionError)
                    ?? ValueConversionError(storing: type(of: value), reason: "\(error)")
            }
        }

        /// Binds `nil` as NULL, or the wrapped value.
        public mutating func appendInterpolation<T: DatabaseValueConvertible>(_ value: T?) {
            if let value {
                appendInterpolation(value)
            } else {
                appendPlaceholder()
                sql.values.append(.null)
            }
        }

        /// Appends a quoted identifier (table, column, index name).
        public mutating func appendInterpolation(identifier: String) {
            appendText(SQL.quoteIdentifier(identifier))
        }

        /// Appends a list of bound values in parentheses, for `IN`: `(?,?,?)`.
        /// An empty sequence gives `()`, which SQLite accepts: `IN ()` matches nothing and
        /// `NOT IN ()` matches everything, like an empty Swift list.
        public mutating func appendInterpolation<S: Sequence>(list values: S)
        where S.Element: DatabaseValueConvertible {
            // The number of values changes the text.
            appendText("(")
            var first = true
            for value in values {
                if !first { appendText(",") }
                first = false
                appendInterpolation(value)
            }
            appendText(")")
        }

        /// Splices another SQL fragment with its arguments.
        /// Its named arguments are kept; its positional ones follow the values already bound.
        public mutating func appendInterpolation(_ fragment: SQL) {
            appendText(fragment.text)
            sql.values.append(contentsOf: fragment.values)
            if !fragment.named.isEmpty {
                sql.named.merge(fragment.named) { _, new in new }
            }
            sql.conversionError = sql.conversionError ?? fragment.conversionError
        }
    }
}
