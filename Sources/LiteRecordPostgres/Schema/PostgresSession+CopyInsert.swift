import CLibPQ
import Foundation
import LiteRecord

// `insert(contentsOf:)` through `COPY ... FROM STDIN` (tracker issue 32, item 3): the rows go to
// the server as one stream, parsed by its fastest path, instead of one INSERT each. COPY
// returns no keys, so the keys of models whose key PostgreSQL generates are taken from the
// column's sequence first (as its default would have) and copied with the rows.
//
// What the caller of `insert(contentsOf:)` sees is what the INSERT path gave: the models with
// their keys, in order and increasing; the same values read back (every value is sent as the
// text the INSERT path sends, read by the same input function); the same errors (SQLSTATE,
// result code, message) and nothing written when one row is refused (COPY is all or nothing,
// and runs in the caller's transaction or savepoint); row and statement triggers (observation)
// fire. What COPY cannot do the same way goes to the INSERT path (see `copyInsertRows`).
//
// The rows are encoded while they are sent, a chunk at a time: the server parses one chunk
// while the client encodes the next (the two sides of a COPY are each about half of its time).
// A row found mid-stream that COPY cannot carry ends the COPY, rolled back to a savepoint sent
// with it, and the batch goes through INSERT statements.

extension PostgresSession {
    /// The fewest models sent by COPY. Measured (`postgres-insert-batch --size N`): from 4 to 32
    /// models COPY and the INSERT pipeline take the same time (the transaction's own round
    /// trips dominate), at 64 COPY a quarter of it; below, the pipeline's one round trip
    /// costs no more than COPY's three (the keys, the start, the end).
    static let copyThreshold = 64

    /// How many rows are encoded before they are sent (the first chunks are encoded while the
    /// server takes the keys).
    static let copyChunkRows = 2_048

    /// Inserts models by `COPY`, or returns `nil`, having written nothing, when the batch must
    /// go through INSERT statements: too few models, keys some generated and some chosen, a
    /// read-only transaction (whose INSERT error the caller expects), a value COPY does not
    /// carry as INSERT does (``PostgresCopyText/append(_:column:)``, NaN and NUL among them,
    /// which the INSERT path refuses with its own errors), models that encode different
    /// columns, a key column without a sequence of its own, a view or a table with rules, or
    /// values chosen for a `GENERATED ALWAYS` identity column (which INSERT refuses and COPY
    /// would store).
    ///
    /// - Returns: The models, their generated keys set; `nil` when nothing was inserted.
    /// - Throws: ``LiteRecord/DatabaseError`` as the INSERT path; `EncodingError` for a model
    ///   that cannot be encoded.
    func copyInsertRows<M: Model>(_ models: [M], table: BackendTable) throws -> [M]? {
        guard models.count >= Self.copyThreshold, !isReadOnly else { return nil }
        try connection.sendPendingBegin()
        guard PQtransactionStatus(connection.handle) == PQTRANS_INTRANS else { return nil }
        let generatedCount = models.reduce(0) { $0 + (table.hasNoGeneratedKey($1) ? 1 : 0) }
        guard generatedCount == 0 || generatedCount == models.count else { return nil }
        let generatedKey = generatedCount > 0 ? table.automaticKeyColumn : nil
        if let tracker = CancellationTracker.current, tracker.isCancelledNow {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .interrupt, message: "the task was cancelled before the statement started",
                sql: "COPY \(table.name)")
        }
        if let generatedKey {
            // Sent now and read after the first chunk is encoded: the server takes the keys
            // meanwhile.
            try connection.sendKeyReservation(table: table.name, column: generatedKey, count: models.count)
        }
        var encoder = PostgresCopyEncoder(table: table, dateStorage: dateStorage, leaving: generatedKey)
        var firstEncoded = true
        do {
            // The first chunk, then more for as long as the keys are on their way (taking a
            // key per row is the server's share of the work that COPY would otherwise do).
            var encoded = 0
            repeat {
                let chunk = models[encoded..<min(encoded + Self.copyChunkRows, models.count)]
                firstEncoded = try encoder.encode(chunk, appending: encoded > 0)
                encoded = chunk.endIndex
            } while firstEncoded && encoded < models.count && generatedKey != nil
                && connection.isAwaitingResult
        } catch {
            // The connection takes no statement before the keys are read.
            if generatedKey != nil { _ = try? connection.reservedKeys(count: models.count) }
            throw error
        }
        var keys: [Int64]?
        if generatedKey != nil {
            do {
                keys = try connection.reservedKeys(count: models.count)
            } catch {
                noteRetryableFailure(error)
                throw error
            }
            guard keys != nil else { return nil }
        }
        guard firstEncoded, let encodedColumns = encoder.columns,
            generatedKey != nil || !encodedColumns.isEmpty
        else { return nil }
        // Chosen keys, or no automatic key: COPY would write what INSERT refuses or does
        // otherwise (a view, rules, a `GENERATED ALWAYS` identity), so the table is looked up
        // first. Generated keys pay no lookup: the key reservation takes none for those tables.
        if generatedKey == nil, try !copyWritesAsInsert(into: table, columns: encodedColumns) {
            return nil
        }
        let columns = (generatedKey.map { [$0] } ?? []) + encodedColumns
        let sql = SQL(
            verbatim: "COPY " + SQL.quoteIdentifier(table.name) + " ("
                + columns.map(SQL.quoteIdentifier).joined(separator: ", ") + ") FROM STDIN")
        let copied: Int?
        do {
            copied = try connection.copyIn(
                sql,
                refusedLine: { line in
                    // The error names the INSERT that row's model would have run, with its
                    // values, as the INSERT path's error does.
                    guard models.indices.contains(line - 1) else { return nil }
                    return try? insertStatement(models[line - 1], table: table, upsert: false).sql
                },
                write: { send in
                    var start = 0
                    while true {
                        guard Self.write(encoder.text, keys: keys?[start...], to: send) else { return true }
                        start += encoder.text.rowCount
                        guard start < models.count else { return true }
                        let chunk = models[start..<min(start + Self.copyChunkRows, models.count)]
                        guard try encoder.encode(chunk, appending: false) else { return false }
                    }
                })
        } catch {
            noteRetryableFailure(error)
            throw error
        }
        guard let copied else { return nil }
        guard let keys else {
            try moveIdentityPastChosenKeys(table: table)
            return models
        }
        guard copied == models.count else {
            // A trigger skipped rows: their keys were not stored, as RETURNING would have said.
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .error, message: "PostgreSQL returned no generated key", sql: sql.text)
        }
        var inserted = models
        for index in inserted.indices {
            table.assignGeneratedKey(keys[index], to: &inserted[index])
        }
        return inserted
    }

    /// Whether COPY writes rows that give `columns` as INSERT statements would: not into a
    /// view (COPY cannot) or a table with rules (COPY skips them), nor a value for a
    /// `GENERATED ALWAYS` identity column (INSERT refuses it, SQLSTATE 428C9; COPY stores it).
    private func copyWritesAsInsert(into table: BackendTable, columns: [String]) throws -> Bool {
        let rows = try execute(
            """
            SELECT c.relkind IN ('r', 'p') AND NOT c.relhasrules,
                (SELECT attname::text FROM pg_attribute
                 WHERE attrelid = c.oid AND attidentity = 'a' AND NOT attisdropped)
            FROM pg_class c WHERE c.oid = \(SQL.quoteIdentifier(table.name))::regclass
            """
        ).rows
        guard let row = rows.first, row.count == 2, case .integer(1) = row[0] else { return false }
        if case .text(let identity) = row[1], columns.contains(identity) { return false }
        return true
    }

    /// Sends the rows in pieces of about 64 KiB, each row's key first when there are keys;
    /// `false` when a send failed.
    private static func write(
        _ rows: PostgresCopyText, keys: ArraySlice<Int64>?, to send: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        guard let keys else {
            return rows.bytes.withUnsafeBytes { bytes in
                var start = 0
                while start < bytes.count {
                    let end = min(start + 65_536, bytes.count)
                    guard send(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else { return false }
                    start = end
                }
                return true
            }
        }
        var piece: [UInt8] = []
        piece.reserveCapacity(65_536 + 4_096)
        for (row, key) in zip(0..<rows.rowCount, keys) {
            PostgresCopyText.appendDecimal(key, to: &piece)
            piece.append(UInt8(ascii: "\t"))
            piece.append(contentsOf: rows.row(row))
            if piece.count >= 65_536 {
                guard piece.withUnsafeBytes(send) else { return false }
                piece.removeAll(keepingCapacity: true)
            }
        }
        return piece.isEmpty || piece.withUnsafeBytes(send)
    }
}

/// Encodes models into COPY rows a chunk at a time, checking that every model encodes the
/// columns the first did.
struct PostgresCopyEncoder {
    let table: BackendTable
    let dateStorage: DateStorage
    /// The generated key's column, left out of the rows (each row's key is written first).
    let generatedKey: String?
    /// The rows of the last chunk encoded.
    private(set) var text = PostgresCopyText(rows: PostgresSession.copyChunkRows)
    /// The columns the first model encoded; `nil` before it.
    private var encodedColumns: [String]?
    /// The table's column for each encoded column, `nil` for the generated key.
    private var stored: [BackendTable.Column?] = []

    init(table: BackendTable, dateStorage: DateStorage, leaving generatedKey: String?) {
        self.table = table
        self.dateStorage = dateStorage
        self.generatedKey = generatedKey
    }

    /// The columns of the rows, in order, the generated key's left out.
    var columns: [String]? { encodedColumns?.filter { $0 != generatedKey } }

    /// Encodes a chunk of models, after the previous chunk's rows or replacing them; `false`
    /// when one cannot be sent by COPY as INSERT sends it.
    mutating func encode<M: Model>(_ models: ArraySlice<M>, appending: Bool) throws -> Bool {
        if !appending { text.removeAll() }
        for model in models {
            let row = try table.encode(model, dateStorage: dateStorage)
            if let encodedColumns {
                guard row.columns == encodedColumns else { return false }
            } else {
                encodedColumns = row.columns
                stored = row.columns.map { name in
                    name == generatedKey ? nil : table.columns.first { $0.name == name }
                }
                // A column the model's table does not declare: its type is unknown.
                guard zip(row.columns, stored).allSatisfy({ $0 == generatedKey || $1 != nil }) else {
                    return false
                }
            }
            text.beginRow()
            for (value, column) in zip(row.values, stored) {
                guard let column else { continue }
                guard text.append(value, column: column) else { return false }
            }
            text.endRow()
        }
        return true
    }
}
