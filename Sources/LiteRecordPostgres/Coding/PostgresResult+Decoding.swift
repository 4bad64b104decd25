import LiteRecord

extension PostgresResult {
    /// Every row decoded as `T`: straight from the `PGresult` when the statement was run
    /// keeping it and `T` decodes in place (``PostgresLayoutBinding``), through copied
    /// ``LiteRecord/Row``s and `T`'s `init(from:)` otherwise, with the same values and errors.
    func decodeAll<T: Decodable>(_ type: T.Type, decoder: RowDecoder) throws -> [T] {
        if let raw { return try raw.decodeAll(T.self, decoder: decoder) }
        return try lrRows.map { try decoder.decode(T.self, from: $0) }
    }

    /// The first row decoded as `T`, `nil` without rows: in place when the result has that one
    /// row (a find's) and `T` decodes in place, as ``decodeAll(_:decoder:)`` does otherwise.
    func decodeFirst<T: Decodable>(_ type: T.Type, decoder: RowDecoder) throws -> T? {
        guard let raw else { return try lrRows.first.map { try decoder.decode(T.self, from: $0) } }
        if raw.rowCount == 1, let binding = raw.layoutBinding(for: T.self, keyToColumn: decoder.keyToColumn),
            let model = binding.decodeFirst(T.self, from: raw.handle)
        {
            return model
        }
        // As before: every row copied (and checked), the first one decoded.
        let (names, rows) = try raw.copiedRows()
        guard let first = rows.first else { return nil }
        let columns = raw.statement?.columns(named: names) ?? RowColumns(names: names)
        return try decoder.decode(T.self, from: Row.backendRows(columns: columns, values: [first])[0])
    }
}

extension PostgresRawResult {
    /// Every row decoded as `T`, in place when its layout allows and no row is declined;
    /// otherwise every row goes through ``decodeAllCopying(_:decoder:)``: a row declined halfway
    /// means a value only `init(from:)` reads, or an error only it reports.
    func decodeAll<T: Decodable>(_ type: T.Type, decoder: RowDecoder) throws -> [T] {
        if let binding = layoutBinding(for: T.self, keyToColumn: decoder.keyToColumn),
            let models = binding.decodeAll(T.self, from: handle)
        {
            return models
        }
        return try decodeAllCopying(T.self, decoder: decoder)
    }

    /// Every row copied into a ``LiteRecord/Row`` and decoded by LiteRecord's row decoder: the
    /// reference the in-place decoding must agree with, and its fallback.
    func decodeAllCopying<T: Decodable>(_ type: T.Type, decoder: RowDecoder) throws -> [T] {
        let (names, rows) = try copiedRows()
        let columns = statement?.columns(named: names) ?? RowColumns(names: names)
        return try Row.backendRows(columns: columns, values: rows).map {
            try decoder.decode(T.self, from: $0)
        }
    }

    /// The in-place decoding of `T` from this result's columns, or `nil` when `T` keeps its
    /// `init(from:)`; kept with the prepared statement that produced the result, whose columns
    /// are the same for each of its results.
    func layoutBinding<T: Decodable>(for type: T.Type, keyToColumn: [String: String]?)
        -> PostgresLayoutBinding?
    {
        if let prepared, let known = prepared.statement.layoutBinding, known.type == ObjectIdentifier(T.self),
            known.preparedName == prepared.name, known.keyToColumn == keyToColumn
        {
            return known
        }
        // Plain values and collections read the first column, as on SQLite (`DecodingPlan`).
        guard !(T.self is any DatabaseValueConvertible.Type), !(T.self is any Collection.Type),
            let layout = LayoutDecoding.layout(for: T.self),
            let binding = PostgresLayoutBinding(
                T.self, layout: layout, result: self, keyToColumn: keyToColumn, preparedName: prepared?.name)
        else { return nil }
        prepared?.statement.layoutBinding = binding
        return binding
    }
}

extension PostgresDatabase {
    /// Runs a query once and decodes its one `PGresult` both ways, for tests that compare the
    /// in-place decoding with LiteRecord's copied rows: the values or errors of each, and
    /// whether the rows were built in place (no row declined).
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: The query.
    ///   - decoder: The decoder (a model's own, for its column names).
    /// - Returns: Both outcomes.
    package func decodeBothWays<T: Decodable>(_ type: T.Type, sql: SQL, decoder: RowDecoder) throws -> (
        inPlace: Result<[T], any Error>, copied: Result<[T], any Error>, builtInPlace: Bool
    ) {
        try withSession { session in
            let result = try session.execute(sql, keepingResult: true)
            guard let raw = result.raw else {
                return (.success([]), .success([]), false)
            }
            let inPlace = Result { try raw.decodeAll(T.self, decoder: decoder) }
            let copied = Result { try raw.decodeAllCopying(T.self, decoder: decoder) }
            let binding = raw.layoutBinding(for: T.self, keyToColumn: decoder.keyToColumn)
            return (inPlace, copied, binding?.decodeAll(T.self, from: raw.handle) != nil)
        }
    }

    /// The decoder of a model's rows, as its fetches use it.
    package func rowDecoder<M: Model>(for type: M.Type) throws -> RowDecoder {
        try withReadingSession { session in
            guard let table = try session.readableTable(for: M.self) else {
                return RowDecoder(dateStorage: session.dateStorage)
            }
            return table.rowDecoder(dateStorage: session.dateStorage)
        }
    }
}
