import CSQLite
import Foundation

// MARK: - Online backup

extension Database {
    /// Copies the whole database into the file at `path`, while other connections and
    /// processes go on using it.
    ///
    /// The copy is one consistent snapshot: it holds exactly the transactions committed when
    /// the backup started, never half of one. It runs through SQLite's online backup API in
    /// steps of `pagesPerStep` pages inside one read transaction, so on a WAL database writers
    /// in this and other processes commit while it runs (with a rollback journal they wait for
    /// it, up to their busy timeout). The destination is written in one transaction: it is
    /// either replaced whole or, when the backup fails, left as it was (a file the backup
    /// created is removed).
    ///
    /// ```swift
    /// try db.backup(to: "game-backup.sqlite")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The destination file; created when missing, its contents replaced otherwise.
    ///   - pagesPerStep: Pages copied per step (at least 1).
    /// - Throws: ``DatabaseError``: `.cannotOpen` when the destination cannot be created,
    ///   `.notADatabase` when it exists and is not SQLite, `.readOnly` when it is read-only,
    ///   `.busy` when another connection holds it; the message names the destination.
    public func backup(to path: String, pagesPerStep: Int = 256) throws {
        try read { try $0.backup(to: path, pagesPerStep: pagesPerStep) }
    }

    /// Copies the whole database into the file at `path` without blocking the caller's thread;
    /// see ``backup(to:pagesPerStep:)``.
    ///
    /// - Parameters:
    ///   - path: The destination file; created when missing, its contents replaced otherwise.
    ///   - pagesPerStep: Pages copied per step (at least 1).
    /// - Throws: As ``backup(to:pagesPerStep:)``, or `CancellationError`.
    public func backup(to path: String, pagesPerStep: Int = 256) async throws {
        try await read { try $0.backup(to: path, pagesPerStep: pagesPerStep) }
    }
}

extension Connection {
    /// Copies this connection's main database into `path`, inside the read transaction the
    /// caller opened (which keeps one snapshot across all steps: without it, a write by
    /// another connection between two steps would restart the copy).
    func backup(to path: String, pagesPerStep: Int) throws {
        let existedBefore = FileManager.default.fileExists(atPath: path)
        do {
            try copyMainDatabase(to: path, pagesPerStep: Int32(clamping: max(1, pagesPerStep)))
        } catch {
            if !existedBefore { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
    }

    private func copyMainDatabase(to path: String, pagesPerStep: Int32) throws {
        // Start the read snapshot now: the backup's steps then all see it.
        _ = try fetchOne(Int.self, sql: SQL("SELECT count(*) FROM sqlite_master"))

        var openedHandle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let openCode = sqlite3_open_v2(path, &openedHandle, flags, nil)
        guard let destination = openedHandle else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: openCode), message: "cannot open backup destination \(path)")
        }
        defer { sqlite3_close_v2(destination) }
        sqlite3_extended_result_codes(destination, 1)
        guard openCode == SQLITE_OK else {
            throw Connection.backupError(destination, code: openCode, path: path)
        }
        sqlite3_busy_timeout(destination, configuration.busyTimeoutMilliseconds)
        // Reading the destination's header turns "not a database" into this error, not a
        // half-understood backup failure.
        let probeCode = sqlite3_exec(destination, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
        guard probeCode == SQLITE_OK else {
            throw Connection.backupError(destination, code: probeCode, path: path)
        }

        guard let backup = sqlite3_backup_init(destination, "main", handle, "main") else {
            throw Connection.backupError(destination, code: sqlite3_errcode(destination), path: path)
        }
        var code: Int32 = SQLITE_OK
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                // Another connection holds the destination; the busy timeout already waited.
                break
            }
        } while code == SQLITE_OK
        // `finish` reports the step's error again (and rolls the destination back) on failure.
        let finishCode = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finishCode == SQLITE_OK else {
            let failing = code == SQLITE_DONE ? finishCode : code
            throw Connection.backupError(destination, code: failing, path: path)
        }
    }

    private static func backupError(_ destination: OpaquePointer, code: Int32, path: String) -> DatabaseError
    {
        let error = DatabaseError.fromConnection(destination, code: code)
        return DatabaseError(
            resultCode: error.resultCode, message: "cannot back up to \(path): \(error.message)")
    }
}
