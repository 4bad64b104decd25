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
        add(handler, to: \.updateHandlers) { sqlite3_update_hook($0, Self.updateCallback, $1) }
    }

    func addCommit(_ handler: @escaping @Sendable () -> Void) -> HookRegistration {
        add(handler, to: \.commitHandlers) { sqlite3_commit_hook($0, Self.commitCallback, $1) }
    }

    func addRollback(_ handler: @escaping @Sendable () -> Void) -> HookRegistration {
        add(handler, to: \.rollbackHandlers) { sqlite3_rollback_hook($0, Self.rollbackCallback, $1) }
    }

    /// What SQLite calls for each changed row: every update handler, with the change.
    private static let updateCallback:
        @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, sqlite3_int64
        ) -> Void = { context, operation, databaseName, tableName, rowID in
            guard let hooks = ConnectionHooks.from(context) else { return }
            let change = DatabaseChange(
                operation: operation == SQLITE_INSERT
                    ? .insert : operation == SQLITE_DELETE ? .delete : .update,
                databaseName: databaseName.map { String(cString: $0) } ?? "main",
                tableName: tableName.map { String(cString: $0) } ?? "",
                rowID: rowID)
            for entry in hooks.updateHandlers { entry.handler(change) }
        }

    /// What SQLite calls before a commit: it only marks the commit pending, and
    /// ``statementFinished(succeeded:)`` runs the handlers once it is done. Returns 0: go on
    /// with the commit.
    private static let commitCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        ConnectionHooks.from(context)?.hasPendingCommit = true
        return 0
    }

    /// What SQLite calls on a rollback: every rollback handler; a pending commit will not happen.
    private static let rollbackCallback: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        guard let hooks = ConnectionHooks.from(context) else { return }
        hooks.hasPendingCommit = false
        for entry in hooks.rollbackHandlers { entry.handler() }
    }

    /// Removes a handler; the C hook goes when its last handler does.
    ///
    /// - Returns: Whether the registration was still active.
    @discardableResult
    func remove(_ registration: HookRegistration) -> Bool {
        let id = registration.id
        return remove(id, from: \.updateHandlers) { _ = sqlite3_update_hook(connectionHandle, nil, nil) }
            || remove(id, from: \.commitHandlers) {
                _ = sqlite3_commit_hook(connectionHandle, nil, nil)
                hasPendingCommit = false
            }
            || remove(id, from: \.rollbackHandlers) { _ = sqlite3_rollback_hook(connectionHandle, nil, nil) }
    }

    /// Adds a handler to one hook's list. SQLite takes one callback per hook, which calls
    /// every handler of the list: `install` sets it with the first handler only.
    private func add<Handler>(
        _ handler: Handler,
        to handlers: ReferenceWritableKeyPath<ConnectionHooks, [(id: Int, handler: Handler)]>,
        install: (_ connectionHandle: OpaquePointer, _ context: UnsafeMutableRawPointer) -> Void
    ) -> HookRegistration {
        let id = makeID()
        self[keyPath: handlers].append((id, handler))
        if self[keyPath: handlers].count == 1 { install(connectionHandle, context) }
        return HookRegistration(id: id)
    }

    /// Removes the handler `id` from one hook's list, and runs `uninstall` when that was its
    /// last handler.
    ///
    /// - Returns: Whether the list held the handler.
    private func remove<Handler>(
        _ id: Int, from handlers: ReferenceWritableKeyPath<ConnectionHooks, [(id: Int, handler: Handler)]>,
        uninstall: () -> Void
    ) -> Bool {
        guard let index = self[keyPath: handlers].firstIndex(where: { $0.id == id }) else { return false }
        self[keyPath: handlers].remove(at: index)
        if self[keyPath: handlers].isEmpty { uninstall() }
        return true
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
