import Foundation
import LiteRecord

/// How `query --json` writes rows so that no value is lost: an array of objects, one per row,
/// keys in column order.
///
/// JSON has no infinities and objects should not repeat keys, while SQLite has both
/// (`SELECT 1e308 * 10`, `SELECT 1 AS a, 2 AS a`, a join of two tables with an `id` each).
/// Infinite reals become the strings `"Infinity"` and `"-Infinity"` (what JavaScript's
/// `Number`, Python's `float` and Swift's `Double` parse back), and a column whose name an
/// earlier column already has gets the first free key of `name:2`, `name:3`, ...
enum QueryJSON {
    /// The JSON text of `rows`, indented by two spaces, ending in a newline.
    ///
    /// - Parameters:
    ///   - columns: The column names, in order (names may repeat).
    ///   - rows: The values of each row, one per column.
    static func text(columns: [String], rows: [[DatabaseValue]]) -> String {
        let keys = self.keys(for: columns)
        let objects = rows.map { row in JSONValue.object(zip(keys, row).map { ($0, JSONValue($1)) }) }
        return JSONValue.array(objects).text(indent: 2) + "\n"
    }

    /// One distinct key per column: the first column with a name keeps it; a later one gets
    /// `name:N` with the smallest N ≥ 2 that is neither a column's own name nor a key already
    /// given, so that the keys do not depend on anything but the column list.
    static func keys(for columns: [String]) -> [String] {
        let names = Set(columns)
        var used: Set<String> = []
        return columns.map { name in
            guard used.contains(name) else {
                used.insert(name)
                return name
            }
            var suffix = 2
            while names.contains("\(name):\(suffix)") || used.contains("\(name):\(suffix)") { suffix += 1 }
            let key = "\(name):\(suffix)"
            used.insert(key)
            return key
        }
    }
}
