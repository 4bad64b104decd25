import Foundation
import LiteRecord
import LiteRecordCLI
import LiteRecordTestSupport
import Testing

/// `literecord generate` on integer primary keys that SQLite does not assign: a `WITHOUT ROWID`
/// table, `INTEGER PRIMARY KEY DESC` (no rowid alias, an SQLite quirk) and `INT PRIMARY KEY`.
/// LiteRecord reads an optional integer key as "assigned by SQLite", so those keys are generated
/// non-optional and an insert through the generated model stores the key it holds. The source is
/// the golden file `Golden/KeyModels.swift`, compiled into this target.
@Suite(.offCooperativePool) struct GenerateKeyTests {
    /// Written by the `sqlite3` shell, as another tool would.
    static let script = """
        CREATE TABLE keyed (id INTEGER PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO keyed VALUES (10, 'ten'), (20, 'twenty');
        CREATE TABLE pairs (a INTEGER, b TEXT, note TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
        INSERT INTO pairs VALUES (1, 'x', NULL);
        CREATE TABLE descending (id INTEGER PRIMARY KEY DESC, name TEXT NOT NULL);
        INSERT INTO descending VALUES (5, 'five');
        CREATE TABLE "int key" (id INT PRIMARY KEY, name TEXT NOT NULL);
        INSERT INTO "int key" VALUES (7, 'seven');
        CREATE TABLE "null key" (id INTEGER PRIMARY KEY DESC, name TEXT);
        INSERT INTO "null key" VALUES (NULL, 'none'), (3, 'three');
        CREATE TABLE alias (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        INSERT INTO alias VALUES (1, 'one');
        CREATE TABLE "alias by constraint" (id INTEGER, name TEXT NOT NULL, PRIMARY KEY (id DESC));
        INSERT INTO "alias by constraint" VALUES (2, 'two');
        """

    static func database(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("keys.sqlite")
        try CLIFixtures.shell(path: path, script: script)
        return path
    }

    /// The declared type of each property, by table, as `generate` chooses it.
    static func declaredKeys(_ path: String) throws -> [String: [String]] {
        let db = try Database(path: path, configuration: .existingFile)
        let models = try GenerateCommand.generate(from: db, tables: [])
        return Dictionary(
            uniqueKeysWithValues: models.map { model in
                (model.table.name, model.properties.map { "\($0.name): \($0.declaredType)" })
            })
    }

    @Test func keysSQLiteDoesNotAssignAreNotOptional() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.declaredKeys(try Self.database(in: directory))
            #expect(keys["keyed"] == ["id: Int", "name: String"])
            #expect(keys["pairs"] == ["a: Int", "b: String", "note: String?"])
            #expect(keys["descending"] == ["id: Int", "name: String"])
            #expect(keys["int key"] == ["id: Int", "name: String"])
            // A key column already holding NULL stays optional, so every row still reads.
            #expect(keys["null key"] == ["id: Int?", "name: String?"])
            // Rowid aliases (also through a `PRIMARY KEY (id DESC)` constraint) are SQLite's to assign.
            #expect(keys["alias"] == ["id: Int64?", "name: String"])
            #expect(keys["alias by constraint"] == ["id: Int64?", "name: String"])
        }
    }

    /// Told from what SQLite reports of real tables: a look-alike has no rowid (`WITHOUT ROWID`),
    /// is backed by an index of origin `pk` (`INTEGER PRIMARY KEY DESC`), or is not declared
    /// exactly `INTEGER`.
    @Test func rowIDAliasesAreToldFromLookAlikes() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE integer_upper (id INTEGER PRIMARY KEY);
                CREATE TABLE integer_lower (id integer primary key);
                CREATE TABLE by_constraint (id INTEGER, PRIMARY KEY (id DESC));
                CREATE TABLE without_rowid (id INTEGER PRIMARY KEY) WITHOUT ROWID;
                CREATE TABLE descending (id INTEGER PRIMARY KEY DESC);
                CREATE TABLE int_key (id INT PRIMARY KEY);
                """)
        let tables = try DatabaseDescription.read(from: db, countingRows: false).tables
        let aliases = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.hasRowIDPrimaryKey) })
        #expect(
            aliases == [
                "integer_upper": true, "integer_lower": true, "by_constraint": true, "without_rowid": false,
                "descending": false, "int_key": false,
            ])
        // What tells each look-alike apart, as SQLite reports it.
        let byName = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
        #expect(byName["without_rowid"]?.isWithoutRowID == true)
        #expect(byName["descending"]?.indexes.map(\.origin) == ["pk"])
        #expect(byName["integer_upper"]?.indexes.isEmpty == true)
        #expect(byName["int_key"]?.columns.map(\.declaredType) == ["INT"])
    }

    @Test func theSourceIsTheGoldenFileAndItsModelsInsertTheirKeys() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.database(in: directory)
            let run = try CLIFixtures.runTool(["generate", path, "--namespace", "KeyModels"])
            #expect(run.status == 0, "\(run.error)")
            let golden = CLIFixtures.goldenDirectory + "/KeyModels.swift"
            if ProcessInfo.processInfo.environment["LITERECORD_UPDATE_GOLDEN"] == "1" {
                try Data(run.output.utf8).write(to: URL(fileURLWithPath: golden))
            }
            #expect(run.output == (try String(contentsOfFile: golden, encoding: .utf8)))
            // The one optional key SQLite does not assign carries a warning; no other model does.
            let warning = "is NULL in some rows, and SQLite does not assign this key"
            #expect(run.output.components(separatedBy: warning).count == 2)
            #expect(run.output.contains("// id \(warning)"))

            let db = try Database(path: path, configuration: .existingFile)
            // Every row reads, the NULL key included.
            let keys = try db.query(KeyModels.NullKey.self).fetchAll().map(\.id)
            let keysInOrder = keys.sorted { ($0 ?? 0) < ($1 ?? 0) }
            #expect(keysInOrder == [nil, 3])

            var keyed = KeyModels.Keyed(id: 30, name: "thirty")
            try db.insert(&keyed)
            #expect(keyed.id == 30)
            #expect(try db.find(KeyModels.Keyed.self, id: 30)?.name == "thirty")
            keyed.name = "thirty!"
            try db.save(&keyed)  // an update by key, not a second row
            #expect(
                try db.fetchAll(String.self, sql: "SELECT name FROM keyed ORDER BY id") == [
                    "ten", "twenty", "thirty!",
                ])

            try db.insert(KeyModels.Pairs(a: 1, b: "y", note: "n"))
            #expect(try db.query(KeyModels.Pairs.self).count() == 2)

            // No rowid is taken for the key: the stored key is the model's.
            var descending = KeyModels.Descending(id: 6, name: "six")
            try db.insert(&descending)
            #expect(descending.id == 6)
            #expect(try db.fetchAll(Int?.self, sql: "SELECT id FROM descending ORDER BY name") == [5, 6])
            try db.insert(KeyModels.IntKey(id: 8, name: "eight"))
            #expect(try db.fetchAll(Int?.self, sql: "SELECT id FROM \"int key\" ORDER BY id") == [7, 8])

            // Rowid aliases still take SQLite's key.
            var alias = KeyModels.Alias(id: nil, name: "two")
            try db.insert(&alias)
            #expect(alias.id == 2)
        }
    }
}
