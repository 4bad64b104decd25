import Foundation
import LiteRecord

/// A failure while running a command: the message becomes the one line on standard error.
package struct ToolError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension ToolError {
    /// Describes any error thrown while running a command on one line, naming `context` (the
    /// database path, or the SQL) when SQLite's own message does not.
    static func describing(_ error: any Error, context: String) -> String {
        let text: String
        switch error {
        case let error as ToolError: text = error.message
        case let error as UsageError: text = error.message
        case let error as DatabaseError:
            var message = "\(context): \(error.message) (\(error.resultCode))"
            if error.resultCode.primary == .notADatabase {
                message = "\(context): not an SQLite database (\(error.message))"
            }
            text = message
        default: text = "\(context): \(error)"
        }
        // One line, whatever the message holds.
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// Opens databases the way every command does: read-only, never created, never converted.
enum ReadOnlyDatabase {
    /// Opens the file at `path` read-only.
    ///
    /// SQLite opens it with `SQLITE_OPEN_READONLY` and without `SQLITE_OPEN_CREATE`; the
    /// journal mode and `synchronous` are left as the file has them, so nothing is written. A
    /// rollback-journal file gets no companion files; a WAL file's `-wal` and `-shm` are
    /// opened, as any reader must.
    ///
    /// - Throws: ``ToolError`` for a missing, unreadable or directory path or a file that is
    ///   not a database.
    static func open(_ path: String) throws -> Database {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw ToolError("\(path): is a directory, not a database file") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ToolError("\(path): permission denied (the file is not readable)")
        }
        var configuration = Configuration()
        configuration.readOnly = true
        configuration.createIfMissing = false
        configuration.journalMode = nil
        configuration.synchronous = nil
        configuration.foreignKeys = false
        configuration.maximumReaderCount = 0
        // SQLite may read `file:` names as URIs; a relative path cannot be mistaken for one.
        let filename = path.hasPrefix("file:") ? "./" + path : path
        do {
            let db = try Database(.file(filename), configuration: configuration)
            return db
        } catch {
            throw ToolError(ToolError.describing(error, context: path))
        }
    }
}
