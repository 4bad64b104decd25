/// Where a database lives.
public enum Location: Sendable, Hashable, CustomStringConvertible {
    /// A private database in memory, gone when the ``Database`` is released.
    case inMemory
    /// A private database in a temporary file that SQLite deletes when it closes.
    case temporary
    /// A file at a path; created when missing unless the configuration says otherwise.
    case file(String)
    /// An SQLite URI filename such as `file:data.db?mode=ro` or `file:shared?mode=memory&cache=shared`.
    case uri(String)

    /// The filename handed to `sqlite3_open_v2`.
    var filename: String {
        switch self {
        case .inMemory: ":memory:"
        case .temporary: ""
        case .file(let path): path
        case .uri(let uri): uri
        }
    }

    /// Whether journal and sync settings meant for files apply (WAL makes no sense in memory).
    var isFileBacked: Bool {
        switch self {
        case .inMemory, .temporary: false
        case .file(let path): path != ":memory:" && !path.isEmpty
        case .uri(let uri): !uri.contains("mode=memory") && !uri.hasPrefix("file::memory:")
        }
    }

    public var description: String {
        switch self {
        case .inMemory: "in-memory database"
        case .temporary: "temporary database"
        case .file(let path): path
        case .uri(let uri): uri
        }
    }
}
