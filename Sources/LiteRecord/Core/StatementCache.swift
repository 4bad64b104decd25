import Foundation

/// Prepared statements of one connection, keyed by SQL text, so repeated SQL is parsed once.
struct StatementCache {
    /// Keyed by exact UTF-8 bytes: Swift's `String` equality treats canonically equivalent
    /// spellings (a composed `é` and `e` + combining accent) as equal, SQLite does not.
    private struct Key: Hashable {
        let sql: String

        static func == (lhs: Key, rhs: Key) -> Bool {
            var left = lhs.sql
            var right = rhs.sql
            return left.withUTF8 { leftBytes in
                right.withUTF8 { rightBytes in
                    guard leftBytes.count == rightBytes.count else { return false }
                    guard let leftBase = leftBytes.baseAddress, let rightBase = rightBytes.baseAddress else {
                        return true  // both empty
                    }
                    return memcmp(leftBase, rightBase, leftBytes.count) == 0
                }
            }
        }

        func hash(into hasher: inout Hasher) {
            var sql = sql
            sql.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private var statements: [Key: Statement] = [:]
    /// The statement found or kept last: SQL run in a loop (an insert per row) finds it with
    /// one byte comparison instead of hashing its whole text on every call.
    private var lastUsed: (key: Key, statement: Statement)?
    /// The same statements keyed by the literals of interpolated SQL (``SQL/pieces``):
    /// comparing a few addresses finds the statement of SQL run in a loop without building,
    /// hashing or comparing its text.
    private var byPieces: [SQLPieces: Statement] = [:]
    /// Kept apart from its statement, not as an optional tuple: comparing in place, without
    /// copying the pieces out first.
    private var lastUsedPieces = SQLPieces()
    private var lastUsedPiecesStatement: Statement?
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cached statement for this SQL text, if any.
    mutating func statement(for sql: String) -> Statement? {
        let key = Key(sql: sql)
        if let lastUsed, lastUsed.key == key { return lastUsed.statement }
        guard let statement = statements[key] else { return nil }
        lastUsed = (key, statement)
        return statement
    }

    /// The cached statement for this SQL, found by its literals when it has them.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    mutating func statement(for sql: SQL) -> Statement? {
        guard sql.hasLiteralPieces else { return statement(for: sql.text) }
        if let lastUsedPiecesStatement, lastUsedPieces == sql.pieces { return lastUsedPiecesStatement }
        let pieces = sql.pieces
        if let statement = byPieces[pieces] {
            (lastUsedPieces, lastUsedPiecesStatement) = (pieces, statement)
            return statement
        }
        // First run from this place on this connection: found by text (or not cached yet, and
        // found by text on the next run, after it was prepared and kept).
        guard let statement = statement(for: sql.text) else { return nil }
        if byPieces.count < capacity { byPieces[pieces] = statement }
        (lastUsedPieces, lastUsedPiecesStatement) = (pieces, statement)
        return statement
    }

    /// Keeps a statement; when full, drops the statements not in use (a cached statement that
    /// a caller still holds stays valid, it is just no longer shared).
    mutating func insert(_ statement: Statement, for sql: String) {
        guard capacity > 0 else { return }
        if statements.count >= capacity {
            statements = statements.filter { $0.value.isInUse }
            byPieces = byPieces.filter { $0.value.isInUse }
            lastUsed = nil
            lastUsedPiecesStatement = nil
        }
        let key = Key(sql: sql)
        statements[key] = statement
        lastUsed = (key, statement)
    }

    mutating func removeAll() {
        statements.removeAll()
        byPieces.removeAll()
        lastUsed = nil
        lastUsedPiecesStatement = nil
    }

    var count: Int { statements.count }
}

/// Looks at SQL text around statement boundaries without parsing it.
enum ScriptScanner {
    /// Whether `text` holds anything but spaces, semicolons and comments.
    static func hasStatement(after text: UnsafePointer<CChar>) -> Bool {
        var cursor = text
        while true {
            switch UInt8(bitPattern: cursor.pointee) {
            case 0:
                return false
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                UInt8(ascii: ";"):
                cursor += 1
            case UInt8(ascii: "-") where cursor[1] == CChar(UInt8(ascii: "-")):
                while cursor.pointee != 0 && cursor.pointee != CChar(UInt8(ascii: "\n")) { cursor += 1 }
            case UInt8(ascii: "/") where cursor[1] == CChar(UInt8(ascii: "*")):
                cursor += 2
                while cursor.pointee != 0
                    && !(cursor.pointee == CChar(UInt8(ascii: "*")) && cursor[1] == CChar(UInt8(ascii: "/")))
                {
                    cursor += 1
                }
                if cursor.pointee != 0 { cursor += 2 }
            default:
                return true
            }
        }
    }

    /// The statement that failed to compile, for the error message: the text from `position`
    /// to the next semicolon, or the whole text when it is short.
    static func excerpt(from position: UnsafePointer<CChar>, whole: String) -> String {
        if whole.utf8.count <= 1000 { return whole }
        let rest = String(cString: position)
        let statement = rest.prefix { $0 != ";" }
        return statement.count > 1000 ? String(statement.prefix(1000)) + "..." : String(statement)
    }
}
