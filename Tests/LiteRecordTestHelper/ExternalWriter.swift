import Foundation
import LiteRecord

/// Inserts `count` rows into `items(value)`, each in a transaction of its own, the way another
/// process of an app (an extension, a second server) would; prints `done <count>` at the end.
/// The observation tests watch these commits arrive in the test process.
struct ExternalWriter {
    let path: String
    let count: Int

    func run() throws {
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, value INTEGER)")
        for value in 0..<count {
            try db.execute(sql: "INSERT INTO items(value) VALUES (\(value + 1))")
        }
        printFlushed("done \(count)")
    }
}
