import Foundation
import LiteRecord

extension ReadOnlyDatabase {
    /// Whether opening the WAL file at `path` failed because SQLite cannot create or set up the
    /// `-shm` index a WAL file is read through, in a directory we may not write:
    /// `SQLITE_READONLY_DIRECTORY` (no `-shm`, no `-wal`), `SQLITE_CANTOPEN` (a `-wal` but no
    /// `-shm`), or `SQLITE_READONLY_CANTINIT` (a read-only `-shm` no process has set up).
    static func cannotCreateWALIndex(_ error: DatabaseError, path: String) -> Bool {
        let code = error.resultCode
        guard code == .readOnlyDirectory || code == .readOnlyCannotInit || code.primary == .cannotOpen
        else { return false }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return isWAL(path) && !FileManager.default.isWritableFile(atPath: directory)
    }

    /// Opens a WAL file whose `-shm` index cannot be created, as SQLite's `immutable=1`: read
    /// straight from the file, with no lock and no companion file.
    ///
    /// That reads every committed transaction only when none waits in a `-wal` file, and it
    /// does not see changes another process makes meanwhile (fine for one command's read: in a
    /// directory nobody may write, no WAL-mode writer can run anyway). So a `-wal` that holds
    /// anything is refused with what to do instead; nothing else about the commands changes.
    ///
    /// - Throws: ``ToolError`` when a `-wal` holds commits, or for any error opening or reading.
    static func openImmutable(_ path: String, configuration: Configuration) throws -> Database {
        let wal = path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue
        if let walSize, walSize > 0 {
            throw ToolError(
                "\(path): cannot read the transactions in \(wal): its directory is read-only, so SQLite "
                    + "cannot create \(path)-shm to read them; copy \(path) and \(wal) to a directory you "
                    + "can write and inspect the copy, or open the database once where it can be written, "
                    + "so that it is checkpointed")
        }
        do {
            let db = try Database(.uri(immutableURI(path)), configuration: configuration)
            _ = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema")
            return db
        } catch {
            throw ToolError(ToolError.describing(error, context: path))
        }
    }

    /// `file:` URI of `path` (made absolute) with `immutable=1`: every byte outside the
    /// unreserved characters and `/` percent-encoded, so `?`, `#` and `%` in a name stay
    /// part of it.
    static func immutableURI(_ path: String) -> String {
        let absolute =
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var encoded = ""
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.append(Character(Unicode.Scalar(byte)))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return "file:" + encoded + "?immutable=1"
    }
}

extension String {
    /// The string with `0`s in front up to `count` characters.
    fileprivate func leftPadded(to count: Int) -> String {
        String(repeating: "0", count: Swift.max(0, count - self.count)) + self
    }
}
