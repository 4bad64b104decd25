import Foundation
import LiteRecord
import Testing

private struct HostileInner: Codable, Equatable, Sendable {
    var label: String
    var parts: [String]
}

/// Every string property kind: a plain column, an optional one, JSON array elements, JSON
/// dictionary keys and values, and a member of a nested struct stored as JSON.
private struct HostileRecord: Model, Equatable {
    var id: Int64?
    var text: String
    var note: String?
    var tags: [String]
    var labels: [String: String]
    var inner: HostileInner

    static let schema = Schema<HostileRecord>(
        table: "hostile_records", primaryKey: \.id, unique: [\.text], indexes: [[\.note]])

    init(id: Int64? = nil, _ string: String) {
        self.id = id
        text = string
        note = string
        tags = [string, "<" + string + ">"]
        labels = [string: string + "!"]
        inner = HostileInner(label: string, parts: [string, ""])
    }

    /// Every string the record holds, dictionary keys included, in a fixed order.
    var allStrings: [String] {
        [text, note ?? "<nil>"] + tags + labels.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            + labels.values.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } + [inner.label]
            + inner.parts
    }
}

private struct RecordID: Decodable, Hashable {
    var id: Int64
}

extension Hardening {
    /// The corpus stored through every path and read back; queried with every string operator.
    @Suite struct HostileInputTests {
        @Test func corpusIsLargeAndCoversEveryCategory() {
            let corpus = HostileCorpus.strings
            #expect(corpus.count >= 200)
            #expect(Set(corpus.map { Array($0.utf8) }).count == corpus.count)
            #expect(corpus.contains { $0.utf8.contains(0) })
            #expect(corpus.contains { $0.utf8.count >= HostileCorpus.hugeByteCount })
            #expect(corpus.contains("'); DROP TABLE x;--"))
            #expect(corpus.contains("' OR '1'='1"))
            #expect(corpus.contains("e\u{301}") && corpus.contains("é"))
            #expect(corpus.contains { $0.unicodeScalars.contains("\u{FFFD}") })
            for fragment in ["--", ";", "/* */", "%", "_", "?", ":name", "$1", "\u{202E}"] {
                #expect(corpus.contains(fragment), "missing \(fragment)")
            }
        }

        /// Inserts the whole corpus; returns the database, the records with their ids, and the
        /// schema as it was before anything hostile was stored.
        private func storedCorpus() throws -> (Database, [HostileRecord], [[DatabaseValue]]) {
            let db = try Database(.inMemory)
            try db.migrate(HostileRecord.self)
            let before = try schemaSnapshot(db)
            let records = try db.insert(contentsOf: HostileCorpus.strings.map { HostileRecord($0) })
            return (db, records, before)
        }

        @Test func everyStringIsStoredAndReadBackByteIdentical() throws {
            let (db, records, before) = try storedCorpus()
            for record in records {
                let id = try #require(record.id)
                let found = try #require(try db.find(HostileRecord.self, id: id))
                #expect(
                    found.allStrings.elementsEqual(record.allStrings, by: sameBytes),
                    "\(shown(record.text)) did not read back byte-identical")
                // The column holds the exact bytes as TEXT, not an escaped or truncated copy.
                let stored = try #require(
                    try db.fetchOne(
                        Row.self,
                        sql: "SELECT typeof(text), CAST(text AS BLOB) FROM hostile_records WHERE id = \(id)"))
                #expect(try stored.value(String.self, at: 0) == "text")
                #expect(try stored.value(Data.self, at: 1) == Data(record.text.utf8), "\(shown(record.text))")
            }
            let all = try db.query(HostileRecord.self).order { $0.id.ascending }.fetchAll()
            #expect(all.count == records.count)
            for (got, want) in zip(all, records)
            where !got.allStrings.elementsEqual(want.allStrings, by: sameBytes) {
                Issue.record("fetchAll changed \(shown(want.text))")
            }
            #expect(try schemaSnapshot(db) == before)
            #expect(try db.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
        }

        @Test func updatesAndSavesKeepEveryStringByteIdentical() throws {
            let (db, records, before) = try storedCorpus()
            // Shift every record's strings to the next corpus string, through update and save.
            let strings = HostileCorpus.strings
            try db.transaction { tx in
                for (index, record) in records.enumerated() {
                    var changed = HostileRecord(
                        id: record.id, "\u{0}updated: " + strings[(index + 1) % strings.count])
                    if index.isMultiple(of: 2) { try tx.update(changed) } else { try tx.save(&changed) }
                }
            }
            for (index, record) in records.enumerated() {
                let expected = HostileRecord(
                    id: record.id, "\u{0}updated: " + strings[(index + 1) % strings.count])
                let id = try #require(record.id)
                let found = try #require(try db.find(HostileRecord.self, id: id))
                #expect(
                    found.allStrings.elementsEqual(expected.allStrings, by: sameBytes),
                    "\(shown(expected.text))")
            }
            #expect(try schemaSnapshot(db) == before)
        }

        /// `==`, `hasPrefix`, `hasSuffix` and `contains` on plain and optional columns return exactly
        /// the rows whose bytes match (`%` and `_` plain) and, for the last three, where Swift agrees.
        @Test func stringPredicatesMatchExactlyTheMatchingBytes() throws {
            let (db, records, before) = try storedCorpus()
            let ids = records.map { $0.id ?? -1 }
            let query = db.query(HostileRecord.self)
            func matched(_ filtered: Query<HostileRecord>) throws -> Set<Int64> {
                Set(try filtered.select(RecordID.self).fetchAll().map(\.id))
            }
            func expected(_ predicate: (String) -> Bool) -> Set<Int64> {
                Set(zip(ids, records).filter { predicate($1.text) }.map(\.0))
            }
            for (id, needle) in zip(ids, HostileCorpus.strings) {
                #expect(try matched(query.where { $0.text == needle }) == [id], "== \(shown(needle))")
                #expect(
                    try matched(query.where { $0.note == needle }) == [id], "optional == \(shown(needle))")
                #expect(
                    try matched(query.where { $0.text != needle }) == Set(ids).subtracting([id]),
                    "!= \(shown(needle))")
                #expect(
                    try matched(query.where { $0.text.hasPrefix(needle) })
                        == expected { $0.utf8.starts(with: needle.utf8) && $0.hasPrefix(needle) },
                    "hasPrefix \(shown(needle))")
                #expect(
                    try matched(query.where { $0.text.hasSuffix(needle) })
                        == expected {
                            $0.utf8.reversed().starts(with: needle.utf8.reversed()) && $0.hasSuffix(needle)
                        },
                    "hasSuffix \(shown(needle))")
                #expect(
                    try matched(query.where { $0.text.contains(needle) })
                        // Nothing contains "", as Foundation's `contains` says.
                        == expected { containsBytes($0, needle) && $0.contains(needle) },
                    "contains \(shown(needle))")
                #expect(
                    try matched(query.where(sql: "text = \(needle)")) == [id], "where(sql:) \(shown(needle))")
            }
            #expect(try query.count() == records.count)
            #expect(try schemaSnapshot(db) == before)
        }

        /// `hasPrefix`, `hasSuffix` and `contains` give Swift's answer, which compares characters
        /// (grapheme clusters), not bytes: `"👍🏽"` does not start with `"👍"`, `"e\u{301}"` does not
        /// start with `"e"`. Rows whose bytes differ never match (canonical equivalence is not
        /// followed, as for `==`).
        @Test func stringPredicatesFollowCharactersNotBytes() throws {
            let (db, records, _) = try storedCorpus()
            let short = records.filter { $0.text.utf8.count < 100_000 }
            let shortIDs = Set(short.compactMap(\.id))
            let query = db.query(HostileRecord.self)
            func matched(_ condition: @escaping (Columns<HostileRecord>) -> Condition) throws -> Set<Int64> {
                Set(try query.where(condition).select(RecordID.self).fetchAll().map(\.id)).intersection(
                    shortIDs)
            }
            func expected(_ predicate: (String) -> Bool) -> Set<Int64> {
                Set(short.filter { predicate($0.text) }.compactMap(\.id))
            }
            var disagreements: [String] = []
            for needle in HostileCorpus.short {
                if try matched({ $0.text.hasPrefix(needle) })
                    != expected({ $0.utf8.starts(with: needle.utf8) && $0.hasPrefix(needle) })
                {
                    disagreements.append("hasPrefix \(shown(needle))")
                }
                if try matched({ $0.text.hasSuffix(needle) })
                    != expected({
                        $0.utf8.reversed().starts(with: needle.utf8.reversed()) && $0.hasSuffix(needle)
                    })
                {
                    disagreements.append("hasSuffix \(shown(needle))")
                }
                if try matched({ $0.note.contains(needle) })
                    != expected({ containsBytes($0, needle) && $0.contains(needle) })
                {
                    disagreements.append("optional contains \(shown(needle))")
                }
            }
            #expect(disagreements.isEmpty, "\(disagreements.joined(separator: ", "))")
            #expect(!"\u{1F44D}\u{1F3FD}".hasPrefix("\u{1F44D}"))
            #expect(
                try matched({ $0.text.hasPrefix("\u{1F44D}") }).allSatisfy { id in
                    short.first { $0.id == id }.map { $0.text.hasPrefix("\u{1F44D}") } ?? false
                })
        }

        /// JSON array elements, dictionary keys and nested members are matched by their exact value.
        ///
        /// SQLite 3.40's JSON functions cut a string at an escaped NUL character (README, known
        /// differences): a row whose strings hold NUL may match or miss wrongly. Those rows are
        /// checked apart, as a known issue; every other row must match exactly.
        @Test func jsonPredicatesMatchEveryString() throws {
            let (db, records, before) = try storedCorpus()
            let hugeIDs = records.filter { $0.text.utf8.count >= 100_000 }.compactMap(\.id)
            let nulIDs = Set(records.filter { $0.text.utf8.contains(0) }.compactMap(\.id))
            for record in records {
                let id = try #require(record.id)
                let needle = record.text
                // A JSON document of megabytes costs milliseconds to parse: short needles skip the
                // huge rows, huge needles look at every row.
                var query = db.query(HostileRecord.self)
                var scope = records
                if needle.utf8.count < 100_000 {
                    query = query.where(sql: "id NOT IN \(list: hugeIDs)")
                    scope = records.filter { !hugeIDs.contains($0.id ?? -1) }
                }
                func check(_ filtered: Query<HostileRecord>, _ expected: Set<Int64>, _ what: String) throws {
                    let got = Set(try filtered.select(RecordID.self).fetchAll().map(\.id))
                    #expect(got.subtracting(nulIDs) == expected.subtracting(nulIDs), "\(what)")
                    if got.intersection(nulIDs) != expected.intersection(nulIDs) {
                        withKnownIssue("SQLite 3.40 cuts JSON strings at \\u0000") {
                            Issue.record("\(what) differs on rows holding NUL")
                        }
                    }
                }
                let withTag = Set(
                    scope.filter { $0.tags.contains { sameBytes($0, needle) } }.compactMap(\.id))
                try check(query.where { $0.tags.contains(needle) }, withTag, "tags.contains \(shown(needle))")
                try check(query.where { $0.inner.label == needle }, [id], "inner.label == \(shown(needle))")
                try check(query.where { $0.labels[needle] == needle + "!" }, [id], "labels[\(shown(needle))]")
            }
            #expect(try schemaSnapshot(db) == before)
        }

        @Test func rawSQLInterpolationBindsEveryString() throws {
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE raw_values(v TEXT, b BLOB)")
            let before = try schemaSnapshot(db)
            for string in HostileCorpus.strings {
                let echoed = try db.fetchOne(String.self, sql: "SELECT \(string)")
                #expect(echoed.map { sameBytes($0, string) } == true, "SELECT \(shown(string))")
                try db.execute(sql: "INSERT INTO raw_values(v, b) VALUES (\(string), \(Data(string.utf8)))")
                // Several statements in one script, the values bound across them.
                try db.execute(
                    sql:
                        "UPDATE raw_values SET v = v WHERE v = \(string); SELECT \(string), \(string) WHERE 0"
                )
            }
            #expect(
                try db.fetchOne(Int.self, sql: "SELECT count(*) FROM raw_values")
                    == HostileCorpus.strings.count)
            for string in HostileCorpus.strings {
                let rows = try db.fetchAll(Row.self, sql: "SELECT v, b FROM raw_values WHERE v = \(string)")
                #expect(rows.count == 1, "WHERE v = \(shown(string))")
                if let row = rows.first {
                    #expect(try sameBytes(row.value(String.self, at: 0), string))
                    #expect(try row.value(Data.self, at: 1) == Data(string.utf8))
                }
                #expect(
                    try db.fetchOne(
                        Int.self,
                        sql: "SELECT count(*) FROM raw_values WHERE CAST(v AS BLOB) = \(Data(string.utf8))")
                        == 1)
            }
            #expect(try schemaSnapshot(db) == before)
        }

        @Test func savepointNamesAreQuoted() throws {
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE t(v TEXT)")
            let before = try schemaSnapshot(db)
            for name in HostileCorpus.short where !name.utf8.contains(0) {
                try db.savepoint(name) { connection in
                    try connection.execute(sql: "INSERT INTO t(v) VALUES (\(name))")
                }
            }
            #expect(
                try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t")
                    == HostileCorpus.short.filter { !$0.utf8.contains(0) }.count)
            #expect(try schemaSnapshot(db) == before)
        }

        @Test func migratorStepNamesAreStoredAndComparedByteForByte() throws {
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE steps(position INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            let before = try schemaSnapshot(db)
            let names = HostileCorpus.strings
            var migrator = Migrator()
            for name in names {
                migrator.registerMigration(name) { connection in
                    try connection.execute(sql: "INSERT INTO steps(name) VALUES (\(name))")
                }
            }
            #expect(migrator.migrationNames.elementsEqual(names, by: sameBytes))
            try migrator.migrate(db)
            #expect(try migrator.appliedMigrations(in: db).elementsEqual(names, by: sameBytes))
            #expect(
                try db.fetchAll(String.self, sql: "SELECT name FROM steps ORDER BY position").elementsEqual(
                    names, by: sameBytes))
            #expect(try migrator.hasCompletedMigrations(in: db))

            // Nothing runs twice, whatever the target.
            try migrator.migrate(db)
            for name in [names[0], names[names.count / 2], names[names.count - 1]] {
                try migrator.migrate(db, upTo: name)
            }
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM steps") == names.count)

            // A later version adds a step whose name differs from a shipped one only by Unicode
            // normalization: it is a new step, not the old one.
            var later = migrator
            later.registerMigration("e\u{301} again") { connection in
                try connection.execute(sql: "INSERT INTO steps(name) VALUES ('later')")
            }
            later.registerMigration("é again") { connection in
                try connection.execute(sql: "INSERT INTO steps(name) VALUES ('later')")
            }
            try later.migrate(db)
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM steps") == names.count + 2)

            let after = try schemaSnapshot(db).filter { row in
                !row.contains {
                    $0 == .text(Migrator.tableName) || $0 == .text("sqlite_autoindex_\(Migrator.tableName)_1")
                }
            }
            #expect(after == before)
        }
    }
}
