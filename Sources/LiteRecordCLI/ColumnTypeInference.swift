import Foundation
import LiteRecord

/// The Swift type `generate` gives a column, chosen from its declared type and the values it
/// actually stores, so that the generated model reads every row.
package enum SwiftColumnType: String, Sendable, Equatable {
    case int = "Int"
    case int64 = "Int64"
    case double = "Double"
    case bool = "Bool"
    case string = "String"
    case date = "Date"
    case data = "Data"
    /// The column mixes storage classes (text in some rows, numbers in others): the value as
    /// stored, through the `StoredValue` type the generated file defines.
    case storedValue = "StoredValue"
}

/// Which storage classes a column's non-NULL values use.
package struct StoredClasses: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    package static let integer = StoredClasses(rawValue: 1)
    package static let real = StoredClasses(rawValue: 2)
    package static let text = StoredClasses(rawValue: 4)
    package static let blob = StoredClasses(rawValue: 8)
}

package enum ColumnTypeInference {
    /// Chooses the Swift type of a column (without optionality).
    ///
    /// The stored values decide; the declared type breaks ties and decides for empty columns:
    /// integers alone are `Int` (`Double` in a `REAL`, `NUMERIC`, `DECIMAL` or `MONEY` column,
    /// `Bool` in a `BOOL…` column holding only 0 and 1); any real makes `Double`; text is `String`, or
    /// `Date` in a `DATE`/`TIME` column when every value parses as a LiteRecord date; blobs
    /// (with or without text) are `Data`; anything else mixed is `StoredValue`.
    ///
    /// - Parameters:
    ///   - declaredType: The declared type as written.
    ///   - classes: The storage classes of the non-NULL values.
    ///   - onlyZeroAndOne: Whether every integer is 0 or 1.
    ///   - textParsesAsDates: Whether every text value parses as a date.
    package static func swiftType(
        declaredType: String, classes: StoredClasses, onlyZeroAndOne: Bool, textParsesAsDates: Bool
    ) -> SwiftColumnType {
        let affinity = Affinity(declaredType: declaredType)
        let upper = declaredType.uppercased()
        let isDateType = namesDates(declaredType)
        let isBoolType = namesBooleans(declaredType)
        // Columns meant for fractions; integers alone there are still read as Double.
        let isDecimalType =
            affinity == .real || ["NUMERIC", "DECIMAL", "MONEY", "CURRENCY"].contains { upper.contains($0) }
        if classes.isEmpty {
            if isDateType { return .date }
            if isBoolType { return .bool }
            if isDecimalType { return .double }
            switch affinity {
            case .integer: return .int
            case .real, .numeric: return upper.contains("JSON") ? .string : .double
            case .text: return .string
            case .blob: return upper.contains("BLOB") ? .data : .storedValue
            }
        }
        if classes == .integer {
            if isBoolType && onlyZeroAndOne { return .bool }
            return isDecimalType ? .double : .int
        }
        if classes.isSubset(of: [.integer, .real]) { return .double }
        if classes == .text { return isDateType && textParsesAsDates ? .date : .string }
        if classes.isSubset(of: [.text, .blob]) { return .data }
        return .storedValue
    }

    /// Whether a declared type names dates or times (`DATE`, `DATETIME`, `TIMESTAMP`): text
    /// there is read as `Date` when every value parses.
    private static func namesDates(_ declaredType: String) -> Bool {
        let upper = declaredType.uppercased()
        return upper.contains("DATE") || upper.contains("TIME")
    }

    /// Whether a declared type names booleans (`BOOL`, `BOOLEAN`): integers there are read as
    /// `Bool` when every one is 0 or 1.
    private static func namesBooleans(_ declaredType: String) -> Bool {
        declaredType.uppercased().contains("BOOL")
    }

    /// Reads what `swiftType` needs about every column of `table` from the stored data: one
    /// scan for the storage classes, and a scan of each date-typed text column.
    ///
    /// - Complexity: One scan of the table, plus one per `DATE`/`TIME` column holding text.
    package static func infer(_ table: TableDescription, on connection: Connection) throws
        -> [SwiftColumnType]
    {
        let columns = table.columns
        guard !columns.isEmpty else { return [] }
        let quotedTable = SQL.quoteIdentifier(table.name)
        // Per column, the sum of the distinct storage-class bits is their union (each bit is
        // added once): one cheap expression instead of one per class. Only BOOL columns ask
        // whether an integer is neither 0 nor 1.
        var expressions: [String] = []
        for column in columns {
            let name = SQL.quoteIdentifier(column.name)
            expressions.append(
                "total(DISTINCT CASE typeof(\(name)) WHEN 'integer' THEN \(StoredClasses.integer.rawValue) "
                    + "WHEN 'real' THEN \(StoredClasses.real.rawValue) WHEN 'text' THEN \(StoredClasses.text.rawValue) "
                    + "WHEN 'blob' THEN \(StoredClasses.blob.rawValue) ELSE 0 END)")
            expressions.append(
                namesBooleans(column.declaredType)
                    ? "max(typeof(\(name)) = 'integer' AND \(name) NOT IN (0, 1))" : "0")
        }
        let summary = try connection.fetchOne(
            Row.self, sql: SQL("SELECT \(expressions.joined(separator: ", ")) FROM \(quotedTable)" as String))
        return try columns.enumerated().map { index, column in
            let bits = try summary.map { try $0.value(Double?.self, at: index * 2) } ?? nil
            let classes = StoredClasses(rawValue: Int(bits ?? 0))
            let hasOtherIntegers =
                try summary.map { try $0.value(Int?.self, at: index * 2 + 1) == 1 } ?? false
            var parses = false
            if classes == .text && namesDates(column.declaredType) {
                parses = try everyTextParsesAsDate(column.name, in: table.name, on: connection)
            }
            return swiftType(
                declaredType: column.declaredType, classes: classes, onlyZeroAndOne: !hasOtherIntegers,
                textParsesAsDates: parses)
        }
    }

    /// Whether every distinct text value of the column is a date LiteRecord reads.
    private static func everyTextParsesAsDate(_ column: String, in table: String, on connection: Connection)
        throws
        -> Bool
    {
        let statement = try connection.makeStatement(
            sql: "SELECT DISTINCT \(SQL.quoteIdentifier(column)) FROM \(SQL.quoteIdentifier(table)) "
                + "WHERE typeof(\(SQL.quoteIdentifier(column))) = 'text'")
        while try statement.step() {
            let value = try statement.value(at: 0)
            guard (try? Date.fromDatabaseValue(value)) != nil else { return false }
        }
        return true
    }
}
