// The README's "Errors" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct ErrorsDocumentationTests {
    @Test func constraintErrorsAreCaughtByCode() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE players(name TEXT NOT NULL UNIQUE)")
        var branches: [String] = []
        for name in ["Alice", "Alice", nil] as [String?] {
            do {
                try db.execute(sql: "INSERT INTO players(name) VALUES (\(name))")
                branches.append("inserted")
            } catch ResultCode.constraintUnique {
                // the name is taken
                branches.append("unique")
            } catch ResultCode.constraint {
                // another constraint: NOT NULL, CHECK, FOREIGN KEY ...
                branches.append("constraint")
            } catch let error as DatabaseError {
                print(error)   // SQLITE_CONSTRAINT_NOTNULL (1299): NOT NULL constraint failed: players.name — while executing `INSERT ...`
                branches.append("other")
            }
        }
        #expect(branches == ["inserted", "unique", "constraint"])
    }
}
