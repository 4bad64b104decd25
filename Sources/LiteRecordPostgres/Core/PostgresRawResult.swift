import CLibPQ
import LiteRecord

/// A `PGresult` kept as libpq returned it, so that rows can be decoded straight from its
/// values (``PostgresLayoutBinding``) instead of being copied into ``LiteRecord/Row``s first;
/// cleared when the last reference to it goes.
final class PostgresRawResult {
    let handle: OpaquePointer
    /// The statement, for error messages.
    let sql: SQL
    /// Whether the values are in binary format (see ``PostgresResult/ValueKind/binary(oid:)``).
    let binary: Bool
    /// The statement that ran, which keeps the column list and the in-place decoding.
    var statement: PostgresStatement?
    /// The prepared statement and name that produced the result, when it ran prepared: its
    /// columns are then those of every later result of the same name.
    var prepared: (statement: PostgresStatement, name: String)?

    init(_ handle: OpaquePointer, sql: SQL, binary: Bool) {
        self.handle = handle
        self.sql = sql
        self.binary = binary
    }

    deinit {
        PQclear(handle)
    }

    var rowCount: Int { Int(PQntuples(handle)) }
    var fieldCount: Int { Int(PQnfields(handle)) }

    /// The column names, as the server sent them.
    var columnNames: [String] {
        (0..<PQnfields(handle)).map { String(cString: PQfname(handle, $0)) }
    }

    /// How each column's value is read: by its type, and the result's format.
    var kinds: [PostgresResult.ValueKind] {
        (0..<PQnfields(handle)).map { field in
            let oid = PQftype(handle, field)
            return binary
                ? PostgresResult.ValueKind.binary(oid: oid) ?? PostgresResult.ValueKind(oid: oid)
                : PostgresResult.ValueKind(oid: oid)
        }
    }

    /// Every row copied out as ``LiteRecord/DatabaseValue``s: what LiteRecord's own row decoder
    /// reads, and what the direct reads must agree with.
    ///
    /// - Throws: ``LiteRecord/DatabaseError`` for a value its type's reading cannot read.
    func copiedRows() throws -> (columnNames: [String], rows: [[DatabaseValue]]) {
        let names = columnNames
        let kinds = kinds
        let fieldCount = names.count
        let rowCount = rowCount
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            var values: [DatabaseValue] = []
            values.reserveCapacity(fieldCount)
            for field in 0..<Int32(fieldCount) {
                if PQgetisnull(handle, row, field) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(handle, row, field))
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(handle, row, field), count: length)
                values.append(try kinds[Int(field)].value(of: bytes, column: names[Int(field)], sql: sql))
            }
            rows.append(values)
        }
        return (names, rows)
    }
}
