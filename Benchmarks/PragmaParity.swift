import Foundation
import LiteRecord

/// Checks that a C-side connection and a LiteRecord connection, both opened on fresh files,
/// run with the same settings, so a ratio never hides a difference in durability or locking.
enum PragmaParity {
    /// The settings compared.
    static let pragmas = ["journal_mode", "synchronous", "foreign_keys", "busy_timeout"]

    /// Opens one database of each kind in `scratch` and compares their pragmas.
    ///
    /// - Parameter scratch: Where to create the two throwaway databases.
    /// - Returns: `name = value` for each pragma, as both sides report it.
    /// - Throws: ``ParityError`` listing the differences, or what opening throws.
    static func verify(in scratch: ScratchDirectory) throws -> [String] {
        let directory = try scratch.makeSubdirectory("pragma-parity")
        defer { try? scratch.remove(directory) }
        let cValues = try cSettings(path: directory.appendingPathComponent("c.sqlite").path)
        let literecordValues = try literecordSettings(
            path: directory.appendingPathComponent("literecord.sqlite").path)
        var differences: [String] = []
        var lines: [String] = []
        for (pragma, (cValue, literecordValue)) in zip(pragmas, zip(cValues, literecordValues)) {
            if cValue == literecordValue {
                lines.append("\(pragma) = \(cValue)")
            } else {
                differences.append("\(pragma): C \(cValue), LiteRecord \(literecordValue)")
            }
        }
        guard differences.isEmpty else { throw ParityError(differences: differences) }
        return lines
    }

    private static func cSettings(path: String) throws -> [String] {
        let database = try CDatabase(path: path)
        return try pragmas.map { try database.text("PRAGMA \($0)") ?? "NULL" }
    }

    private static func literecordSettings(path: String) throws -> [String] {
        let database = try Database(path: path)
        return try pragmas.map { pragma in
            // A String, not an SQL literal: `SQL("PRAGMA \(pragma)")` would bind the name as `?`.
            let text: String = "PRAGMA \(pragma)"
            guard let row = try database.fetchOne(Row.self, sql: SQL(text)) else { return "NULL" }
            switch try row.value(at: 0) {
            case .null: return "NULL"
            case .integer(let integer): return String(integer)
            case .real(let real): return String(real)
            case .text(let text): return text
            case .blob(let data): return "\(data.count) bytes"
            }
        }
    }

    /// The two sides disagree on a setting.
    struct ParityError: Error, CustomStringConvertible {
        let differences: [String]

        var description: String {
            "the C baseline and LiteRecord open databases with different settings: "
                + differences.joined(separator: "; ")
        }
    }
}
