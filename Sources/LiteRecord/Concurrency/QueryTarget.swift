/// Where a ``Query`` runs: the ``Database`` it was built on, usable from any thread or task, or
/// the connection of the transaction or read closure it was built in, usable only there.
///
/// This is what lets `Query` be `Sendable` while `db.query(P.self)` and `tx.query(P.self)` keep
/// working as they always did.
enum QueryTarget: @unchecked Sendable {
    // @unchecked Sendable, and why it is sound: `.database` holds a `Database`, which is
    // `Sendable`. The other cases hold a context that is not (a `Connection` is lent to one
    // thread at a time), together with the thread that built the query; `context()` hands it
    // out only on that same thread, so it is never touched from two threads, whoever holds
    // the query. (A query kept past the end of its closure and run later on the same thread is
    // the misuse of a `Connection` kept past its closure, which no type can forbid either.)
    // `QueryTargetTests` sends such queries across threads under the thread sanitizer.

    /// A database: any thread, any task.
    case database(Database)
    /// A transaction's or read's connection (or another context that is not `Sendable`): only
    /// the thread that built the query, inside that closure.
    case confined(any DatabaseContext, thread: UInt)
    /// Another database (PostgreSQL), which runs the query's operations itself (see
    /// `QueryBackend`).
    case backend(any QueryBackend)
    /// Nowhere: a query whose SQL alone is wanted, in the dialect given.
    case detached(any SQLDialect.Type)

    init(_ context: any DatabaseContext) {
        if let database = context as? Database {
            self = .database(database)
        } else {
            self = .confined(context, thread: ThreadIdentity.current)
        }
    }

    /// The database, when the query was built on one.
    var database: Database? {
        if case .database(let database) = self { return database }
        return nil
    }

    /// The backend, when the query was built on a database other than SQLite.
    var backend: (any QueryBackend)? {
        if case .backend(let backend) = self { return backend }
        return nil
    }

    /// The type of the SQL dialect the query is built in: a backend's own, SQLite's otherwise.
    var dialectType: any SQLDialect.Type {
        switch self {
        case .database, .confined: SQLiteDialect.self
        case .backend(let backend): type(of: backend.dialect)
        case .detached(let dialect): dialect
        }
    }

    /// The context to run the query on.
    ///
    /// - Throws: ``DatabaseError`` with ``ResultCode/misuse`` when a query built on a
    ///   transaction's connection runs on another thread than that transaction's.
    func context() throws -> any DatabaseContext {
        switch self {
        case .database(let database):
            return database
        case .backend, .detached:
            // A backend's query is handed to its backend before it gets here.
            throw DatabaseError(
                resultCode: .misuse,
                message: "this query was built on no SQLite database and runs only where it was built")
        case .confined(let context, let thread):
            guard thread == ThreadIdentity.current else {
                throw DatabaseError(
                    resultCode: .misuse,
                    message: "a query built on a transaction's or read's connection (tx.query) runs only "
                        + "inside that closure, on its thread; build it with db.query to run it anywhere")
            }
            return context
        }
    }
}
