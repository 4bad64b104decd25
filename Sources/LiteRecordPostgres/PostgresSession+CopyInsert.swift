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

extension PostgresSession {
    /// The fewest models sent by COPY: below, the INSERT pipeline's one round trip costs less
    /// than COPY's three (the keys, the start, the end).
    static let copyThreshold = 64

    /// Inserts models by `COPY`, or returns `nil`, having written nothing, when the batch must
    /// go through INSERT statements: too few models, keys some generated and some chosen, a
    /// read-only transaction (whose INSERT error the caller expects), a value COPY does not
    /// carry as INSERT does (``PostgresCopyText/append(_:column:)``, NaN and NUL among them,
    /// which the INSERT path refuses with its own errors), models that encode different
    /// columns, or a key column without a sequence of its own.
    ///
    /// - Returns: The models, their generated keys set; `nil` when nothing was inserted.
    /// - Throws: ``LiteRecord/DatabaseError`` as the INSERT path; `EncodingError` for a model
    ///   that cannot be encoded.
    func copyInsertRows<M: Model>(_ models: [M], table: BackendTable) throws -> [M]? {
        guard models.count >= Self.copyThreshold, !isReadOnly,
            PQtransactionStatus(connection.handle) == PQTRANS_INTRANS
        else { return nil }
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
            // Sent now and read after encoding: the server takes the keys meanwhile.
            try connection.sendKeyReservation(table: table.name, column: generatedKey, count: models.count)
        }
        let encoded: (columns: [String], rows: PostgresCopyText)?
        do {
            encoded = try copyText(models, table: table, leaving: generatedKey)
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
        guard let encoded, generatedKey != nil || !encoded.columns.isEmpty else { return nil }
        let columns = (generatedKey.map { [$0] } ?? []) + encoded.columns
        let sql = SQL(
            verbatim: "COPY " + SQL.quoteIdentifier(table.name) + " ("
                + columns.map(SQL.quoteIdentifier).joined(separator: ", ") + ") FROM STDIN")
        let copied: Int
        do {
            copied = try connection.copyIn(
                sql,
                refusedLine: { line in
                    // The error names the INSERT that row's model would have run, with its
                    // values, as the INSERT path's error does.
                    guard models.indices.contains(line - 1) else { return nil }
                    return try? insertStatement(models[line - 1], table: table, upsert: false).sql
                },
                write: { send in Self.write(encoded.rows, keys: keys, to: send) })
        } catch {
            noteRetryableFailure(error)
            throw error
        }
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

    /// The models' rows in COPY's text format, and their columns (the generated key's left
    /// out: the caller writes it first); `nil` when one cannot be sent by COPY as INSERT sends
    /// it.
    private func copyText<M: Model>(_ models: [M], table: BackendTable, leaving generatedKey: String?) throws
        -> (columns: [String], rows: PostgresCopyText)?
    {
        var text = PostgresCopyText(rows: models.count)
        var encodedColumns: [String]?
        var stored: [BackendTable.Column?] = []
        for model in models {
            let row = try table.encode(model, dateStorage: dateStorage)
            if let encodedColumns {
                guard row.columns == encodedColumns else { return nil }
            } else {
                encodedColumns = row.columns
                stored = row.columns.map { name in
                    name == generatedKey ? nil : table.columns.first { $0.name == name }
                }
                // A column the model's table does not declare: its type is unknown.
                guard zip(row.columns, stored).allSatisfy({ $0 == generatedKey || $1 != nil }) else {
                    return nil
                }
            }
            text.beginRow()
            for (value, column) in zip(row.values, stored) {
                guard let column else { continue }
                guard text.append(value, column: column) else { return nil }
            }
            text.endRow()
        }
        guard let encodedColumns else { return nil }
        return (encodedColumns.filter { $0 != generatedKey }, text)
    }

    /// Sends the rows in pieces of about 64 KiB, each row's key first when there are keys.
    private static func write(
        _ rows: PostgresCopyText, keys: [Int64]?, to send: (UnsafeRawBufferPointer) -> Bool
    ) {
        guard let keys else {
            rows.bytes.withUnsafeBytes { bytes in
                var start = 0
                while start < bytes.count {
                    let end = min(start + 65_536, bytes.count)
                    guard send(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else { return }
                    start = end
                }
            }
            return
        }
        var piece: [UInt8] = []
        piece.reserveCapacity(65_536 + 4_096)
        for index in keys.indices {
            PostgresCopyText.appendDecimal(keys[index], to: &piece)
            piece.append(UInt8(ascii: "\t"))
            piece.append(contentsOf: rows.row(index))
            if piece.count >= 65_536 {
                guard piece.withUnsafeBytes(send) else { return }
                piece.removeAll(keepingCapacity: true)
            }
        }
        if !piece.isEmpty { _ = piece.withUnsafeBytes(send) }
    }
}
