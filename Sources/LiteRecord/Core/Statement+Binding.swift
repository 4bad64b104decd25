import CSQLite

extension Statement {
    /// Binds all parameters at once, checking that every parameter gets exactly one value.
    ///
    /// - Parameter arguments: Positional values for `?` parameters, named values for the others.
    /// - Throws: ``DatabaseError`` with `.misuse` when a parameter has no value or a value has no
    ///   parameter; ``DatabaseError`` from SQLite when a value cannot be bound.
    public func bind(_ arguments: StatementArguments) throws {
        if arguments.named.isEmpty && !hasNamedParameters {
            try bind(positional: arguments)
            return
        }
        var consumer = ArgumentConsumer(arguments)
        try bind(consuming: &consumer)
        try consumer.finish(sql: sql)
    }

    /// The common case, positional values for `?` parameters, without the bookkeeping that
    /// scripts and named parameters need.
    private func bind(positional arguments: StatementArguments) throws {
        let values = arguments.positional
        guard values.count == parameterCount else {
            throw DatabaseError.misuse(
                "wrong number of arguments: \(values.count) positional values for \(parameterCount) parameters",
                sql: sql, arguments: arguments)
        }
        boundArguments = arguments
        for (index, value) in values.enumerated() {
            try bind(value, toParameter: index + 1)
        }
    }

    /// Binds the values of interpolated SQL straight from where the interpolation keeps them,
    /// as ``bind(_:)`` would bind `sql.arguments`, without keeping them for error messages:
    /// the caller, which holds `sql` while the statement runs, adds them to an error (see
    /// `Connection.withBound`). Copying the values into the statement on every run cost more
    /// than binding them.
    ///
    /// - Returns: Whether the values were bound that way; `false` when they were kept, as
    ///   ``bind(_:)`` keeps them (named parameters).
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    func bindWithoutKeeping(_ sql: SQL) throws -> Bool {
        // The statement's parameters first: reading `sql.named` before that call made the
        // compiler retain and release the dictionary around it, twice per run.
        guard !hasNamedParameters, sql.named.isEmpty else {
            try bind(sql.arguments)
            return false
        }
        guard sql.values.count == parameterCount else {
            throw DatabaseError.misuse(
                "wrong number of arguments: \(sql.values.count) positional values for \(parameterCount) parameters",
                sql: self.sql, arguments: sql.arguments)
        }
        forgetArguments()
        try sql.values.bind(to: self)
        return true
    }

    /// Binds the parameters this statement needs from `consumer`, leaving the rest for the next
    /// statement of a script.
    func bind(consuming consumer: inout ArgumentConsumer) throws {
        boundArguments = consumer.arguments
        for index in 0..<parameterCount {
            let value: DatabaseValue
            if let name = parameterNames[index] {
                guard let named = consumer.take(named: name) else {
                    throw DatabaseError.misuse(
                        "missing value for named parameter :\(name)", sql: sql, arguments: consumer.arguments)
                }
                value = named
            } else {
                guard let positional = consumer.takePositional() else {
                    throw DatabaseError.misuse(
                        "wrong number of arguments: the SQL has more parameters than the "
                            + "\(consumer.arguments.positional.count) positional values given",
                        sql: sql, arguments: consumer.arguments)
                }
                value = positional
            }
            try bind(value, toParameter: index + 1)
        }
    }

    /// Binds one value.
    ///
    /// - Parameters:
    ///   - value: The value; text and blobs are copied by SQLite, NUL characters included.
    ///   - index: The 1-based parameter index.
    /// - Throws: ``DatabaseError`` (`.range` for an index out of bounds, `.tooBig` for a value
    ///   over SQLite's length limit).
    public func bind(_ value: DatabaseValue, toParameter index: Int) throws {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            // SQLite would store NULL for NaN, silently.
            guard !real.isNaN else { throw ValueConversionError.nanParameter("\(index)") }
            code = sqlite3_bind_double(handle, position, real)
        case .text(let text):
            code = bind(text: text, at: position)
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, position, 0) }
                return sqlite3_bind_blob64(
                    handle, position, base, sqlite3_uint64(bytes.count), literecord_sqlite_transient())
            }
        }
        if code != SQLITE_OK {
            throw DatabaseError.fromConnection(connectionHandle, code: code, sql: sql)
        }
    }

    /// Binds text, NUL characters included; returns SQLite's code.
    @inline(__always)
    func bind(text: String, at position: Int32) -> Int32 {
        // Native text is read in place; only other text (bridged) is copied to be contiguous,
        // which `withUTF8` needs a mutable copy for, and that copy cost a retain and a release.
        if let code = text.utf8.withContiguousStorageIfAvailable({ bind(utf8: $0, at: position) }) {
            return code
        }
        var text = text
        return text.withUTF8 { bind(utf8: $0, at: position) }
    }

    @inline(__always)
    private func bind(utf8 bytes: UnsafeBufferPointer<UInt8>, at position: Int32) -> Int32 {
        // An empty buffer may have no base address, which SQLite would bind as NULL.
        let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? emptyBytes
        return sqlite3_bind_text64(
            handle, position, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
            literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
    }

    /// Binds one value to a named parameter.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The parameter name with or without its `:`, `@` or `$` prefix.
    /// - Throws: ``DatabaseError`` with `.misuse` when the SQL has no such parameter.
    public func bind(_ value: DatabaseValue, named name: String) throws {
        let bare = name.first.map { ":@$".contains($0) } == true ? String(name.dropFirst()) : name
        guard let index = parameterNames.firstIndex(of: bare) else {
            throw DatabaseError.misuse("no parameter named :\(bare)", sql: sql)
        }
        try bind(value, toParameter: index + 1)
    }

    /// Drops the arguments kept for error messages, so that a cached statement does not keep a
    /// caller's values (a large blob, private text) alive after the call that bound them.
    func forgetArguments() {
        // Usually nothing is kept: assigning nil anyway released two nil references per run.
        if boundArguments != nil { boundArguments = nil }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
        boundArguments = nil
    }
}

/// A valid address for zero bytes of text.
private var emptyBytes: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

/// Hands out the values of a ``StatementArguments`` to the statements of a script, in order,
/// and reports the ones left over.
struct ArgumentConsumer {
    let arguments: StatementArguments
    private var nextPositional = 0
    private var usedNames: Set<String> = []

    init(_ arguments: StatementArguments) {
        self.arguments = arguments
    }

    mutating func takePositional() -> DatabaseValue? {
        guard nextPositional < arguments.positional.count else { return nil }
        defer { nextPositional += 1 }
        return arguments.positional[nextPositional]
    }

    mutating func take(named name: String) -> DatabaseValue? {
        guard let value = arguments.named[name] else { return nil }
        usedNames.insert(name)
        return value
    }

    /// Throws when values were given that no parameter used.
    func finish(sql: String) throws {
        if nextPositional < arguments.positional.count {
            throw DatabaseError.misuse(
                "wrong number of arguments: \(arguments.positional.count) positional values for "
                    + "\(nextPositional) parameters", sql: sql, arguments: arguments)
        }
        let unused = Set(arguments.named.keys).subtracting(usedNames)
        if !unused.isEmpty {
            throw DatabaseError.misuse(
                "no parameter for named values: " + unused.sorted().map { ":" + $0 }.joined(separator: ", "),
                sql: sql, arguments: arguments)
        }
    }
}
