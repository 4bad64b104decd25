import CSQLite

/// What a changed row went through, as reported by SQLite's update hook.
public enum Operation: Sendable, Hashable {
    /// A row was inserted.
    case insert
    /// A row was updated.
    case update
    /// A row was deleted.
    case delete
}

/// One row changed by an `INSERT`, `UPDATE` or `DELETE` on a rowid table.
public struct DatabaseChange: Sendable, Hashable {
    /// What happened to the row.
    public let operation: Operation
    /// The schema the table belongs to: `main`, `temp`, or an attached database's name.
    public let databaseName: String
    /// The table's name.
    public let tableName: String
    /// The row's rowid.
    public let rowID: Int64
}

/// A handle for a registered hook; pass it to ``DatabaseContext/removeHook(_:)`` to stop it.
public struct HookRegistration: Sendable, Hashable {
    let id: Int
}

/// The Swift side of SQLite's trace, update, commit and rollback hooks for one connection.
///
/// The C hooks are installed only while a Swift handler wants them, so a connection without
/// observers pays nothing. Handlers run on the thread that runs the statement, inside SQLite's
/// callback: they must not use the database.
final class ConnectionHooks {
    private let connectionHandle: OpaquePointer
    private var nextID = 0
    private var traceHandler: (@Sendable (String) -> Void)?
    private var updateHandlers: [(id: Int, handler: @Sendable (DatabaseChange) -> Void)] = []
    private var commitHandlers: [(id: Int, handler: @Sendable () -> Void)] = []
    private var rollbackHandlers: [(id: Int, handler: @Sendable () -> Void)] = []
    /// Set by SQLite's commit hook, which runs before the commit is durable; handlers run once
    /// the statement that committed has finished successfully.
    private(set) var hasPendingCommit = false

    init(connectionHandle: OpaquePointer) {
        self.connectionHandle = connectionHandle
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ context: UnsafeMutableRawPointer?) -> ConnectionHooks? {
        context.map { Unmanaged<ConnectionHooks>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: Trace

    func setTrace(_ handler: (@Sendable (String) -> Void)?) {
        traceHandler = handler
        guard handler != nil else {
            sqlite3_trace_v2(connectionHandle, 0, nil, nil)
            return
        }
        sqlite3_trace_v2(
            connectionHandle, UInt32(SQLITE_TRACE_STMT),
            { _, context, _, sqlText in
                if let hooks = ConnectionHooks.from(context), let sqlText {
                    hooks.traceHandler?(String(cString: sqlText.assumingMemoryBound(to: CChar.self)))
                }
                return 0
            }, context)
    }

    // MARK: Update, commit, rollback

    func addUpdate(_ handler: @escaping @Sendable (DatabaseChange) -> Void) -> HookRegistration {
        let id = makeID()
        updateHandlers.append((id, handler))
        if updateHandlers.count == 1 {
            sqlite3_update_hook(
                connectionHandle,
                { context, operation, databaseName, tableName, rowID in
                    guard let hooks = ConnectionHooks.from(context) else { return }
                    let change = DatabaseChange(
                        operation: operation == SQLITE_INSERT
                            ? .insert : operation == SQLITE_DELETE ? .delete : .update,
                        databaseName: databaseName.map { String(cString: $0) } ?? "main",
                        tableName: tableName.map { String(cString: $0) } ?? "",
                        rowID: rowID)
                    for entry in hooks.updateHandlers { entry.handler(change) }
                }, context)
        }
        return HookRegistration(id: id)
    }

    func addCommit(_ handler: @escaping @Sendable () -> Void) -> HookRegistration {
        let id = makeID()
        commitHandlers.append((id, handler))
        if commitHandlers.count == 1 {
            sqlite3_commit_hook(
                connectionHandle,
                { context in
                    ConnectionHooks.from(context)?.hasPendingCommit = true
                    return 0
                }, context)
        }
        return HookRegistration(id: id)
    }

    func addRollback(_ handler: @escaping @Sendable () -> Void) -> HookRegistration {
        let id = makeID()
        rollbackHandlers.append((id, handler))
        if rollbackHandlers.count == 1 {
            sqlite3_rollback_hook(
                connectionHandle,
                { context in
                    guard let hooks = ConnectionHooks.from(context) else { return }
                    hooks.hasPendingCommit = false
                    for entry in hooks.rollbackHandlers { entry.handler() }
                }, context)
        }
        return HookRegistration(id: id)
    }

    /// Removes a handler; the C hook goes when its last handler does.
    ///
    /// - Returns: Whether the registration was still active.
    @discardableResult
    func remove(_ registration: HookRegistration) -> Bool {
        let id = registration.id
        if let index = updateHandlers.firstIndex(where: { $0.id == id }) {
            updateHandlers.remove(at: index)
            if updateHandlers.isEmpty { sqlite3_update_hook(connectionHandle, nil, nil) }
            return true
        }
        if let index = commitHandlers.firstIndex(where: { $0.id == id }) {
            commitHandlers.remove(at: index)
            if commitHandlers.isEmpty {
                sqlite3_commit_hook(connectionHandle, nil, nil)
                hasPendingCommit = false
            }
            return true
        }
        if let index = rollbackHandlers.firstIndex(where: { $0.id == id }) {
            rollbackHandlers.remove(at: index)
            if rollbackHandlers.isEmpty { sqlite3_rollback_hook(connectionHandle, nil, nil) }
            return true
        }
        return false
    }

    /// Called after a step while a commit was pending: the commit is done when the step
    /// succeeded, and did not happen when it failed (SQLite keeps the transaction open).
    func statementFinished(succeeded: Bool) {
        hasPendingCommit = false
        guard succeeded, sqlite3_get_autocommit(connectionHandle) != 0 else { return }
        for entry in commitHandlers { entry.handler() }
    }

    func removeAll() {
        setTrace(nil)
        for registration in (updateHandlers.map(\.id) + commitHandlers.map(\.id) + rollbackHandlers.map(\.id))
        {
            remove(HookRegistration(id: registration))
        }
    }

    private func makeID() -> Int {
        nextID += 1
        return nextID
    }
}
