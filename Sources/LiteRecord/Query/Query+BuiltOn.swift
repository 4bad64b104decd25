// A query carries the database it was built on: `query.fetchAll()` runs there. An entry point
// that takes a built query and runs it itself (`observe`) must run it on that same database;
// handed another one, it used to watch the wrong file in silence.

extension Query {
    /// Checks that this query was built on `database` (`db.query`, or `tx.query` in one of its
    /// closures), before `database` runs it for `operation`.
    ///
    /// - Throws: ``DatabaseError`` with ``ResultCode/misuse`` when the query was built on another
    ///   database, SQLite or not.
    func checkBuilt(on database: Database, for operation: String) throws {
        switch target {
        case .database(let builtOn):
            guard builtOn !== database else { return }
        case .confined(let context, _):
            // A connection of another database is refused; a context of the user's own type
            // cannot be told apart, and is taken as it always was.
            guard let connection = context as? Connection, !database.owns(connection) else { return }
        case .backend:
            break
        case .detached:
            return
        }
        throw DatabaseError(
            resultCode: .misuse,
            message: "\(operation) takes a query built on this database (db.query), but this one was built "
                + "on another database (\(target.backend == nil ? "another SQLite database" : "another backend")); "
                + "a query runs on the database it was built on: call \(operation) on that database, or "
                + "build the query on this one")
    }
}

extension Database {
    /// Whether `connection` is this database's writer or one of its readers.
    func owns(_ connection: Connection) -> Bool {
        connection.handle == writer.handle || readers?.owns(connection.handle) == true
    }
}
