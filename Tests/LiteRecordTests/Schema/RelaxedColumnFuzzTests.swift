import Foundation
import LiteRecord
import Testing

/// The model every random table is opened with: every other column is one it no longer has.
private struct RandomShell: Model {
    var id: Int64?
    var tag: String?
    static let schema = Schema<RandomShell>(table: "random_t")
}

/// One random column: its declaration and whether, after the model opens the table, it must
/// still be NOT NULL (it had a default, so inserts that leave it out still succeed).
private struct RandomColumn {
    let name: String
    let declaration: String
    let stillNotNull: Bool
}

/// Random `CREATE TABLE` texts, spelled every way SQLite accepts: quoted and bare names, comments
/// holding `NOT NULL`, named constraints, conflict clauses, CHECKs, defaults, collations. After
/// the model opens the table, exactly the columns it cannot fill lose `NOT NULL`, the rest of the
/// table reads back the same, and the row already there is unchanged.
@Suite struct RelaxedColumnFuzzTests {
    private func randomColumn(_ index: Int, _ source: inout FuzzSource) -> RandomColumn {
        let base = source.pick([
            "c\(index)", "not \(index)", "null\(index)", "check\(index)", "a\"b\(index)", "x]\(index)",
        ])
        let quoted: String
        if base.allSatisfy({ $0.isLetter || $0.isNumber }) && !base.hasPrefix("not")
            && !base.hasPrefix("null")
            && !base.hasPrefix("check") && source.chance(0.5)
        {
            quoted = base
        } else if !base.contains("]") && source.chance(0.3) {
            quoted = "[\(base)]"
        } else if source.chance(0.3) {
            quoted = "`" + base.replacingOccurrences(of: "`", with: "``") + "`"
        } else {
            quoted = "\"" + base.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var parts = [quoted, source.pick(["TEXT", "INTEGER", "REAL", "VARCHAR(10)", "NUMERIC(5, 2)", ""])]
        let notNull = source.chance(0.7)
        let hasDefault = source.chance(0.3)
        var constraints: [String] = []
        if notNull {
            var text =
                source.chance(0.3)
                ? "CONSTRAINT \"nn \(index)\" NOT NULL"
                : source.pick(["NOT NULL", "not null", "NOT\n  NULL"])
            if source.chance(0.3) { text += source.pick([" ON CONFLICT FAIL", " on conflict ABORT"]) }
            constraints.append(text)
        }
        if hasDefault {
            constraints.append(source.pick(["DEFAULT 0", "DEFAULT 'NOT NULL'", "DEFAULT (1 + 1)"]))
        }
        if source.chance(0.3) { constraints.append("CHECK (\(quoted) IS NOT NULL OR 1)") }
        if source.chance(0.2) { constraints.append("COLLATE NOCASE") }
        if source.chance(0.2) { constraints.append("/* NOT NULL */") }
        if source.chance(0.2) { constraints.append("-- NOT NULL\n") }
        constraints.shuffle(using: &source.random)
        parts += constraints
        return RandomColumn(
            name: base, declaration: parts.filter { !$0.isEmpty }.joined(separator: " "),
            stillNotNull: notNull && hasDefault)
    }

    @Test(arguments: 0..<8)
    func randomTablesLoseExactlyTheConstraintsTheModelCannotFill(batch: Int) throws {
        var source = FuzzSource(seed: 0x5EED_0000 + UInt64(batch))
        for _ in 0..<25 {
            let columns = (0..<source.int(1...5)).map { randomColumn($0, &source) }
            let tagNotNull = source.chance(0.5)
            let definitions =
                ["id INTEGER PRIMARY KEY", "tag TEXT" + (tagNotNull ? " NOT NULL" : "")]
                + columns.map(\.declaration)
            let create = "CREATE TABLE random_t (\n" + definitions.joined(separator: ",\n") + "\n)"
            let db = try Database(.inMemory)
            try db.execute(sql: SQL(create))
            let insert =
                "INSERT INTO random_t VALUES (1, 'first'" + columns.map { _ in ", 'v'" }.joined() + ")"
            try db.execute(sql: SQL(insert))
            let before = try db.fetchAll(Row.self, sql: "SELECT * FROM random_t")

            try db.insert(RandomShell(id: nil, tag: nil))

            let notNull = try db.fetchAll(
                Int.self, sql: "SELECT \"notnull\" FROM pragma_table_xinfo('random_t') ORDER BY cid")
            #expect(notNull == [0, 0] + columns.map { $0.stillNotNull ? 1 : 0 }, "\(create)")
            let names = try db.fetchAll(
                String.self, sql: "SELECT name FROM pragma_table_xinfo('random_t') ORDER BY cid")
            #expect(names == ["id", "tag"] + columns.map(\.name), "\(create)")
            #expect(
                try db.fetchAll(Row.self, sql: "SELECT * FROM random_t WHERE id = 1") == before, "\(create)")
            #expect(try db.count(RandomShell.self) == 2)
            #expect(try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        }
    }
}
