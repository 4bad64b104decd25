import Foundation
import LiteRecord
import Testing

/// A table name for ``KeywordModel``; each conforming type is one hostile name.
protocol HostileTableName: Sendable {
    static var name: String { get }
}

enum OrderTable: HostileTableName { static let name = "order" }
enum SelectTable: HostileTableName { static let name = "select" }
enum GroupTable: HostileTableName { static let name = "group" }
enum SpacedTable: HostileTableName { static let name = "my table" }
enum QuotedTable: HostileTableName { static let name = "say \"hi\"" }
enum BracketTable: HostileTableName { static let name = "[brackets]" }
enum BacktickTable: HostileTableName { static let name = "`tick`" }
enum ApostropheTable: HostileTableName { static let name = "it's" }
enum InjectionTable: HostileTableName { static let name = "t\"; DROP TABLE \"order\"; --" }
enum UnicodeTable: HostileTableName { static let name = "Ünïcødé 表 \u{202E}" }

/// Column names that are SQL keywords, or hold spaces, quotes, brackets and SQL, through
/// custom `CodingKeys` and ``Schema/column(_:named:)``, with keys, indexes and unique
/// constraints on them.
struct KeywordModel<Name: HostileTableName>: Model, Equatable {
    var id: Int64?
    var order: Int
    var select: String
    var group: String?
    var fromWhere: Double
    var quoted: String
    var bracketed: Int
    var backtick: String
    var renamed: String
    var tags: [String]

    enum CodingKeys: String, CodingKey {
        case id, order, select, group, tags
        case fromWhere = "from where"
        case quoted = "say \"hi\""
        case bracketed = "[b]"
        case backtick = "`tick`"
        case renamed
    }

    static var schema: Schema<KeywordModel> {
        Schema(
            table: Name.name, primaryKey: \.id, unique: [\.select],
            indexes: [[\.group, \.order], [\.fromWhere], [\.renamed]]
        )
        .uniqueTogether([\.quoted, \.bracketed])
        .column(\.renamed, named: "it's; DROP TABLE x; --")
        .collation(.nocase, for: \.backtick)
    }

    static var columnNames: [String] {
        // In the order of the coding keys.
        [
            "id", "order", "select", "group", "tags", "from where", "say \"hi\"", "[b]", "`tick`",
            "it's; DROP TABLE x; --",
        ]
    }
}

/// The same table, grown by a later version of the model with a column whose name is hostile.
struct KeywordModelV2<Name: HostileTableName>: Model, Equatable {
    var id: Int64?
    var order: Int
    var select: String
    var group: String?
    var fromWhere: Double
    var quoted: String
    var bracketed: Int
    var backtick: String
    var renamed: String
    var tags: [String]
    var added: String?

    enum CodingKeys: String, CodingKey {
        case id, order, select, group, tags
        case fromWhere = "from where"
        case quoted = "say \"hi\""
        case bracketed = "[b]"
        case backtick = "`tick`"
        case renamed
        case added = "where \"x\" = 'y'"
    }

    static var schema: Schema<KeywordModelV2> {
        Schema(
            table: Name.name, primaryKey: \.id, unique: [\.select],
            indexes: [[\.group, \.order], [\.fromWhere], [\.renamed], [\.added, \.order]]
        )
        .uniqueTogether([\.quoted, \.bracketed])
        .column(\.renamed, named: "it's; DROP TABLE x; --")
        .collation(.nocase, for: \.backtick)
    }
}

extension Hardening {
    @Suite struct IdentifierTests {
        static let tableNames: [any HostileTableName.Type] = [
            OrderTable.self, SelectTable.self, GroupTable.self, SpacedTable.self, QuotedTable.self,
            BracketTable.self, BacktickTable.self, ApostropheTable.self, InjectionTable.self,
            UnicodeTable.self,
        ]

        private func model<Name: HostileTableName>(_ n: Int, _ name: Name.Type) -> KeywordModel<Name> {
            KeywordModel(
                id: nil, order: n, select: "s\(n)", group: n.isMultiple(of: 2) ? "even" : nil,
                fromWhere: Double(n) / 2,
                quoted: "q\(n % 3)", bracketed: n, backtick: "B\(n)", renamed: "r\(n)",
                tags: ["t\(n)", "all"])
        }

        @Test(arguments: tableNames)
        func hostileTableAndColumnNamesWork(_ name: any HostileTableName.Type) throws {
            try exercise(name)
        }

        private func exercise<Name: HostileTableName>(_ name: Name.Type) throws {
            typealias M = KeywordModel<Name>
            let table = Name.name
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE bystander(x INTEGER)")
            try db.execute(sql: "INSERT INTO bystander(x) VALUES (1)")

            var models = try db.insert(contentsOf: (1...10).map { model($0, Name.self) })
            #expect(models.map(\.id) == (1...10).map { Int64($0) })

            // The table and its columns carry exactly the hostile names.
            let tables = try db.fetchAll(
                String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(Set(tables) == ["bystander", table])
            #expect(
                try db.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info(\(table)) ORDER BY cid")
                    == M.columnNames)

            // Indexes and unique constraints are on the hostile columns.
            let indexes = try db.fetchAll(
                Row.self, sql: "SELECT name, \"unique\" FROM pragma_index_list(\(table))")
            var indexed: [[String]: Bool] = [:]
            for index in indexes {
                indexed[try indexColumns(db, try index.value(named: "name"))] = try index.value(
                    Bool.self, named: "unique")
            }
            #expect(
                indexed == [
                    ["select"]: true, ["say \"hi\"", "[b]"]: true, ["group", "order"]: false,
                    ["from where"]: false,
                    ["it's; DROP TABLE x; --"]: false,
                ])

            // CRUD.
            var first = models[0]
            #expect(try db.find(M.self, id: 1) == first)
            first.order = 100
            first.group = "changed"
            try db.update(first)
            #expect(try db.find(M.self, id: 1) == first)
            var fresh = model(11, Name.self)
            try db.save(&fresh)
            #expect(fresh.id == 11)
            #expect(try db.delete(M.self, id: 11))
            models[0] = first

            // Queries on every hostile column.
            let query = db.query(M.self)
            #expect(try query.where { $0.order == 100 }.fetchAll() == [first])
            #expect(try query.where { $0.select == "s2" }.fetchOne() == models[1])
            #expect(try query.where { $0.group == nil }.count() == 4)
            #expect(try query.where { $0.fromWhere > 4 }.count() == 2)
            #expect(try query.where { $0.quoted == "q1" && $0.bracketed < 5 }.count() == 2)
            #expect(try query.where { $0.backtick == "b3" }.count() == 0)  // case-sensitive despite NOCASE
            #expect(try query.where { $0.renamed.hasPrefix("r1") }.count() == 2)
            #expect(try query.where { $0.tags.contains("t3") }.fetchAll() == [models[2]])
            #expect(
                try query.order { [$0.group.ascending(nulls: .last), $0.order.descending] }.fetchAll().map(
                    \.order
                ).prefix(3) == [100, 10, 8])
            #expect(try query.sum { $0.bracketed } == 55)
            #expect(try query.where { $0.order < 3 }.updateAll { [$0.renamed.set(to: "low")] } == 1)
            #expect(
                try db.fetchAll(
                    M.self,
                    sql:
                        "SELECT * FROM \(identifier: table) WHERE \(identifier: "it's; DROP TABLE x; --") = \("low")"
                ).map(\.id) == [2])

            // A unique constraint on a hostile column is enforced and names it.
            var duplicate = model(12, Name.self)
            duplicate.select = "s3"
            do {
                try db.insert(duplicate)
                Issue.record("a duplicate select value was inserted")
            } catch let error as DatabaseError {
                #expect(error.resultCode.primary == .constraint)
                #expect(error.message.contains("select"))
            }

            // A later model version adds a hostile column and an index on it.
            let beforeGrowth = try db.fetchAll(
                String.self, sql: "SELECT name FROM sqlite_master ORDER BY name")
            #expect(try db.find(KeywordModelV2<Name>.self, id: 2)?.added == nil)
            var grown = try #require(try db.find(KeywordModelV2<Name>.self, id: 3))
            grown.added = "'); DROP TABLE bystander; --"
            try db.update(grown)
            #expect(
                try db.query(KeywordModelV2<Name>.self).where { $0.added == grown.added }.fetchAll() == [
                    grown
                ])
            let columns = try db.fetchAll(
                String.self, sql: "SELECT name FROM pragma_table_info(\(table)) ORDER BY cid")
            #expect(columns == M.columnNames + ["where \"x\" = 'y'"])
            let afterGrowth = try db.fetchAll(
                String.self, sql: "SELECT name FROM sqlite_master ORDER BY name")
            #expect(Set(afterGrowth).subtracting(beforeGrowth).count == 1)  // only the new index

            #expect(try db.fetchOne(Int.self, sql: "SELECT x FROM bystander") == 1)
            #expect(try db.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
        }

        /// SQLite reads SQL text up to a NUL character, so an identifier holding one cannot be
        /// quoted: the statement must fail (LiteRecord refuses SQL text holding NUL), never run cut
        /// short.
        @Test func identifiersWithNULFailWithoutEffect() throws {
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE t(x INTEGER)")
            try db.execute(sql: "INSERT INTO t(x) VALUES (1)")
            let before = try schemaSnapshot(db)
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "DELETE FROM \(identifier: "t\u{0}\" WHERE 0 --")")
            }
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "CREATE TABLE \(identifier: "evil\u{0}")(x)")
            }
            #expect(try schemaSnapshot(db) == before)
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
        }
    }
}
