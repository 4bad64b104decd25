import LiteRecord

extension Database {
    /// A file database in rollback-journal mode (`journal_mode = DELETE`), as many other
    /// programs keep their files, instead of the default WAL.
    ///
    /// - Parameter path: The file; created when missing.
    /// - Throws: ``DatabaseError`` when it cannot be opened.
    static func rollbackJournal(at path: String) throws -> Database {
        var configuration = Configuration()
        configuration.journalMode = .delete
        return try Database(path: path, configuration: configuration)
    }
}
