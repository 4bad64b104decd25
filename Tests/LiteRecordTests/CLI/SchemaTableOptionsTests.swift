import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `schema` shows what makes a table behave differently from a plain one: generated columns
/// (VIRTUAL and STORED), `STRICT` and `WITHOUT ROWID`, in text and in `--json`.
@Suite(.offCooperativePool) struct SchemaTableOptionsTests {
    static let script = #"""
        CREATE TABLE shapes (
            id INTEGER PRIMARY KEY, w REAL NOT NULL, h REAL NOT NULL,
            area REAL GENERATED ALWAYS AS (w * h) VIRTUAL,
            perimeter REAL AS (2 * (w + h)) STORED NOT NULL);
        INSERT INTO shapes (w, h) VALUES (2, 3), (1, 1);
        CREATE TABLE tags (name TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
        INSERT INTO tags VALUES ('x', 1);
        CREATE TABLE typed (id INTEGER PRIMARY KEY, v ANY, label TEXT) STRICT;
        CREATE TABLE "both kinds" (k TEXT PRIMARY KEY, v INT NOT NULL) STRICT, WITHOUT ROWID;
        CREATE TABLE plain (a, b);
        CREATE TABLE "odd (x, y)" (
            "a,b" TEXT DEFAULT 'x) AS (y', [c d] TEXT, -- a comment, AS (no)
            "g ""q""" TEXT GENERATED ALWAYS as (upper("a,b") || ' ) , ' || [c d]) /* AS (z) */ VIRTUAL,
            h INT CHECK (CAST(h AS INT) > 0),
            `k` INT as ((1 + (2)) * 3) stored,
            'lit' INT AS (h * 2),
            CONSTRAINT positive CHECK (h > 0));
        """#

    private func database(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("options.db")
        try CLIFixtures.shell(path: path, script: Self.script)
        return path
    }

    @Test func textShowsGeneratedColumnsStrictAndWithoutRowID() throws {
        try withTemporaryDirectory { directory in
            let path = try database(in: directory)
            let run = try CLIFixtures.runTool(["schema", path])
            #expect(run.status == 0, "\(run.error)")
            let blocks = run.output.components(separatedBy: "\n\n")
            let shapes = try #require(blocks.first { $0.hasPrefix("table shapes ") })
            #expect(
                shapes.hasPrefix(
                    """
                    table shapes (2 rows)
                      column     type     null      default                                   key
                      ---------  -------  --------  ----------------------------------------  ---
                      id         INTEGER                                                      PK
                      w          REAL     NOT NULL
                      h          REAL     NOT NULL
                      area       REAL               GENERATED ALWAYS AS (w * h) VIRTUAL
                      perimeter  REAL     NOT NULL  GENERATED ALWAYS AS (2 * (w + h)) STORED
                    """), "\(shapes)")
            #expect(run.output.contains("table tags (1 row, WITHOUT ROWID)\n"))
            #expect(run.output.contains("table typed (0 rows, STRICT)\n"))
            #expect(run.output.contains("table \"both kinds\" (0 rows, STRICT, WITHOUT ROWID)\n"))
            #expect(run.output.contains("table plain (0 rows)\n"))
        }
    }

    @Test func jsonShowsGeneratedColumnsStrictAndWithoutRowID() throws {
        try withTemporaryDirectory { directory in
            let path = try database(in: directory)
            let run = try CLIFixtures.runTool(["schema", path, "--json"])
            #expect(run.status == 0, "\(run.error)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            let tables = try #require(object["tables"] as? [[String: Any]])
            let byName = Dictionary(uniqueKeysWithValues: tables.map { ($0["name"] as? String ?? "", $0) })
            let options = byName.mapValues { [$0["strict"] as? Bool, $0["withoutRowID"] as? Bool] }
            #expect(
                options == [
                    "shapes": [false, false], "tags": [false, true], "typed": [true, false],
                    "both kinds": [true, true], "plain": [false, false], "odd (x, y)": [false, false],
                ])
            let columns = try #require(byName["shapes"]?["columns"] as? [[String: Any]])
            let generated = columns.map { $0["generated"] as? String }
            #expect(generated == [nil, nil, nil, "virtual", "stored"])
            let expressions = columns.map { $0["generatedAs"] as? String }
            #expect(expressions == [nil, nil, nil, "w * h", "2 * (w + h)"])
            // Expressions are read from the CREATE TABLE text: quotes, strings, comments, nested
            // parentheses and AS inside a CHECK do not confuse the scan.
            let odd = try #require(byName["odd (x, y)"]?["columns"] as? [[String: Any]])
            let oddExpressions = odd.map { $0["generatedAs"] as? String }
            // A column named by a string literal, which SQLite takes as its name, has its too.
            #expect(
                oddExpressions == [
                    nil, nil, "upper(\"a,b\") || ' ) , ' || [c d]", nil, "(1 + (2)) * 3", "h * 2",
                ])
            #expect(
                odd.map { $0["generated"] as? String } == [nil, nil, "virtual", nil, "stored", "virtual"])
            // Ordinary columns say so explicitly, with null.
            #expect(columns[0]["generated"] is NSNull)
            #expect(columns[4]["notNull"] as? Bool == true)
        }
    }
}
