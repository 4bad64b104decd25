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

/// Opens databases the way every command does: never created, never converted, never written,
/// and the directory left as it was found.
enum ReadOnlyDatabase {
    /// Opens the file at `path` for reading.
    ///
    /// SQLite opens it without `SQLITE_OPEN_CREATE`; the journal mode and `synchronous` are
    /// left as the file has them. A rollback-journal file is opened `SQLITE_OPEN_READONLY` and
    /// gets no companion files.
    ///
    /// A WAL file needs `-wal` and `-shm` files to be read, and a read-only connection creates
    /// them but never deletes them. So a WAL file without them that we may write is opened
    /// read-write instead, every statement running query-only (``Database/read(_:)`` sets
    /// `PRAGMA query_only` inside a read transaction): on close, SQLite's last connection
    /// deletes the files it created, and as nothing was written, no page of the database is
    /// either. When the `-wal` or `-shm` file exists (another process has the file open, or
    /// left them), it is opened read-only, so those files are neither checkpointed nor removed.
    ///
    /// A WAL file in a directory we may not write, with no `-shm` beside it, cannot be opened
    /// so: SQLite must create the `-shm` to read it (`SQLITE_READONLY_DIRECTORY`). When no
    /// `-wal` holds commits either, every committed transaction is in the file itself, so it is
    /// read as immutable (see ``openImmutable(_:configuration:)``); otherwise reading it would
    /// miss those commits, and the tool says so and what to do.
    ///
    /// - Throws: ``ToolError`` for a missing, unreadable or directory path, a file that is not
    ///   a database, or a WAL file whose commits cannot be read where it is.
    static func open(_ path: String) throws -> Database {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw ToolError("\(path): is a directory, not a database file") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ToolError("\(path): permission denied (the file is not readable)")
        }
        // The library's settings for a file another program made: never created, journal mode
        // and durability as the file has them.
        var configuration = Configuration.existingFile
        configuration.readOnly = !opensReadWrite(path)
        configuration.foreignKeys = false
        configuration.maximumReaderCount = 0
        // SQLite may read `file:` names as URIs; a relative path cannot be mistaken for one.
        let filename = path.hasPrefix("file:") ? "./" + path : path
        do {
            let db = try Database(.file(filename), configuration: configuration)
            // A WAL file's index is opened on the first read: fail here, not in the command.
            _ = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema")
            return db
        } catch let error as DatabaseError where cannotCreateWALIndex(error, path: path) {
            return try openImmutable(path, configuration: configuration)
        } catch {
            throw ToolError(ToolError.describing(error, context: path))
        }
    }

    /// Whether `path` is a WAL database without `-wal` and `-shm` files that we may write: the
    /// one case where a read-write connection (reading only) leaves fewer traces than a
    /// read-only one.
    static func opensReadWrite(_ path: String) -> Bool {
        let fileManager = FileManager.default
        guard isWAL(path), fileManager.isWritableFile(atPath: path) else { return false }
        return !fileManager.fileExists(atPath: path + "-wal")
            && !fileManager.fileExists(atPath: path + "-shm")
    }

    /// Whether the database header says WAL: bytes 18 and 19 (the file format write and read
    /// versions) are 2 (https://sqlite.org/fileformat2.html#database_header).
    static func isWAL(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }
}
