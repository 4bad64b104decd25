import Foundation
import LiteRecord

/// Opens a database file as an unprivileged user and reports what works, one line per step:
///
///     open ok readOnly=<true|false>       or   open error <code>: <message>
///     read <count of rows in t>           or   read error <code>: <message>
///     write ok                            or   write error <code>: <message>
///
/// File permissions are what the probe is about, and root ignores them: when run as root it
/// first becomes `nobody` (uid and gid 65534), so the tests check real permission denials on
/// machines (containers, CI) where they run as root.
struct AccessProbe {
    let path: String

    func run() throws {
        try dropRootPrivileges()
        let db: Database
        do {
            db = try Database(path: path)
            printFlushed("open ok readOnly=\(db.isReadOnly)")
        } catch let error as DatabaseError {
            printFlushed("open error \(error.resultCode): \(error.message)")
            return
        }
        do {
            let count = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") ?? -1
            printFlushed("read \(count)")
        } catch let error as DatabaseError {
            printFlushed("read error \(error.resultCode): \(error.message)")
        }
        do {
            try db.execute(sql: "INSERT INTO t VALUES ('probe')")
            printFlushed("write ok")
        } catch let error as DatabaseError {
            printFlushed("write error \(error.resultCode): \(error.message)")
        }
    }

    private func dropRootPrivileges() throws {
        guard geteuid() == 0 else { return }
        let nobody: UInt32 = 65534
        guard setgroups(0, nil) == 0, setgid(nobody) == 0, setuid(nobody) == 0, geteuid() == nobody else {
            throw ProbeError(description: "cannot become nobody: errno \(errno)")
        }
    }
}

struct ProbeError: Error, CustomStringConvertible {
    let description: String
}
