import CSQLite

/// The Swift side of SQLite's authorizer for one connection.
///
/// SQLite asks the authorizer about every table and column a statement touches while it
/// compiles the statement. LiteRecord uses it for two things, never to deny anything:
/// recording which tables a fetch reads (so an observation knows which commits concern it),
/// and keeping `DELETE FROM table` from taking the truncate shortcut, which deletes rows without
/// telling the update hook.
final class ConnectionAuthorizer {
    private let connectionHandle: OpaquePointer
    private(set) var isRecordingReads = false
    private(set) var tablesRead: Set<String> = []
    /// Answer `SQLITE_IGNORE` to `SQLITE_DELETE`, which SQLite documents as "delete the rows one
    /// by one": the rows still go, and the update hook sees each of them.
    var preventsTruncateOptimization = false

    init(connectionHandle: OpaquePointer) {
        self.connectionHandle = connectionHandle
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(
            connectionHandle,
            { context, action, firstArgument, _, _, _ in
                guard let context else { return SQLITE_OK }
                let authorizer = Unmanaged<ConnectionAuthorizer>.fromOpaque(context).takeUnretainedValue()
                return authorizer.authorize(action, firstArgument)
            }, context)
    }

    func uninstall() {
        sqlite3_set_authorizer(connectionHandle, nil, nil)
    }

    func startRecording() {
        isRecordingReads = true
        tablesRead = []
    }

    func stopRecording() {
        isRecordingReads = false
    }

    /// Records a table a fetch depends on but could not read because it does not exist yet (a
    /// model's table before its first write), so that rows written to it later concern the fetch.
    func recordRead(of table: String) {
        if isRecordingReads { tablesRead.insert(table) }
    }

    private func authorize(_ action: Int32, _ firstArgument: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_READ where isRecordingReads:
            if let table = firstArgument { tablesRead.insert(String(cString: table)) }
        case SQLITE_DELETE where preventsTruncateOptimization:
            // The action is also reported for system tables; only user tables matter here.
            if let table = firstArgument, !String(cString: table).hasPrefix("sqlite_") {
                return SQLITE_IGNORE
            }
        default:
            break
        }
        return SQLITE_OK
    }
}
