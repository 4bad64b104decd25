import Foundation
import LiteRecord
import Testing

private struct SQLTextStats: Codable, Sendable {
    var wins: Int
    var streak: SQLTextStreak
}
private struct SQLTextStreak: Codable, Sendable { var best: Int }
private enum SQLTextTeam: String, Codable, Sendable { case red, blue }

private struct SQLTextItem: Model {
    var id: Int64?
    var name: String
    var score: Int
    var team: SQLTextTeam?
    var tags: [String]
    var stats: SQLTextStats
    var scores: [String: Int]
    var joinedAt: Date
    var flag: Bool

    static let schema = Schema<SQLTextItem>(table: "sql_items").collation(.nocase, for: \.name)
}

/// The text of a description, before its argument list.
private func sqlText(_ description: String) -> Substring {
    guard let bracket = description.range(of: " [", options: .backwards) else { return description[...] }
    return description[..<bracket.lowerBound]
}

@Suite struct QuerySQLTextTests {
    private let query: Query<SQLTextItem>

    init() throws {
        query = try Database(.inMemory).query(SQLTextItem.self)
    }

    @Test func comparisonsBindEveryValue() {
        #expect(query.sqlDescription == #"SELECT * FROM "sql_items""#)
        #expect(query.description == query.sqlDescription)
        #expect(
            query.where { $0.score > 100 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("score" > ?) [100]"#)
        #expect(
            query.where { $0.team == nil }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("team" IS ?) [NULL]"#)
        #expect(
            query.where { $0.team != .red }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("team" IS NOT ?) ['red']"#)
        #expect(
            query.where { $0.name == "O'Brien" }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("name" = ? AND "name" COLLATE BINARY = ?) ['O''Brien', 'O''Brien']"#
        )
        #expect(
            query.where { $0.joinedAt < Date(timeIntervalSinceReferenceDate: 0.5) }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ((("joinedAt" >= ? AND "joinedAt" < ?) OR ("joinedAt" >= ? AND "joinedAt" < ?) OR ("joinedAt" >= ? AND "joinedAt" NOT LIKE '____-__-__%')) AND (literecord_instant("joinedAt", ?) < ?)) ['0000-01-01', '2001-01-03', -inf, '', '', 0, 0.5]"#
        )
        #expect(
            query.where { $0.flag == true }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("flag" = ?) [1]"#)
        #expect(
            query.where { $0.score + 1 > $0.stats.wins }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (literecord_add("score", ?) > ("stats" ->> ?)) [1, '$."wins"']"#
        )
        #expect(
            query.where { !($0.score > 1 || $0.flag.isTrue) && $0.team != nil }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ((NOT (("score" > ?) OR ("flag" = ?))) AND ("team" IS NOT ?)) [1, 1, NULL]"#
        )
    }

    @Test func listsAndRanges() {
        #expect(
            query.where { [1, 2, 3].contains($0.score) }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("score" IN (?,?,?)) [1, 2, 3]"#)
        #expect(
            query.where { [.red, nil].contains($0.team) }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("team" IN (?) OR "team" IS NULL) ['red']"#)
        #expect(
            query.where { [.red].contains($0.team) }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("team" IN (?) AND "team" IS NOT NULL) ['red']"#)
        #expect(query.where { $0.score.in([Int]()) }.sqlDescription == #"SELECT * FROM "sql_items" WHERE 0"#)
        #expect(
            query.where { (10...20).contains($0.score) }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (("score" >= ?) AND ("score" <= ?)) [10, 20]"#)
        #expect(
            query.where { (10..<20).contains($0.score) }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (("score" >= ?) AND ("score" < ?)) [10, 20]"#)
    }

    /// The bytes narrow the rows first; Swift's `hasPrefix`, `hasSuffix` or `contains` decides
    /// on those (functions registered on every connection).
    @Test func textPredicatesCompareBytesThenAskSwift() {
        #expect(
            query.where { $0.name.hasPrefix("a%") }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (coalesce(substr(CAST("name" AS BLOB), 1, length(CAST(? AS BLOB))), x'') = CAST(? AS BLOB) AND literecord_has_prefix("name", ?)) ['a%', 'a%', 'a%']"#
        )
        #expect(
            query.where { $0.name.hasSuffix("_") }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (coalesce(substr(CAST("name" AS BLOB), -length(CAST(? AS BLOB))), x'') = CAST(? AS BLOB) AND literecord_has_suffix("name", ?)) ['_', '_', '_']"#
        )
        #expect(
            query.where { $0.name.contains("\\") }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (instr(CAST("name" AS BLOB), CAST(? AS BLOB)) > 0 AND literecord_contains("name", ?)) ['\', '\']"#
        )
        #expect(
            query.where { $0.name.caseInsensitiveContains("x") }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (instr(lower("name"), lower(?)) > 0) ['x']"#)
        #expect(
            query.where { $0.name.hasSuffix("") }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ("name" IS NOT NULL)"#)
    }

    @Test func jsonPathsAreBoundToo() {
        #expect(
            query.where { $0.stats.wins >= 3 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (("stats" ->> ?) >= ?) ['$."wins"', 3]"#)
        #expect(
            query.where { $0.stats.streak.best < 3 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (("stats" ->> ?) < ?) ['$."streak"."best"', 3]"#)
        #expect(
            query.where { $0.tags.contains("pro") }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE EXISTS (SELECT 1 FROM json_each("tags") WHERE value IS ?) ['pro']"#
        )
        #expect(
            query.where { $0.tags.count > 2 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (coalesce(json_array_length("tags"), 0) > ?) [2]"#)
        #expect(
            query.where { $0.scores.count > 2 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ((SELECT count(*) FROM json_each("scores")) > ?) [2]"#)
        #expect(
            query.where { $0.scores["math"] == 3 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (("scores" ->> ?) IS ?) ['$."math"', 3]"#)
        #expect(
            query.where { $0.scores["we\"ird"] == 3 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE ((SELECT value FROM json_each("scores", ?) WHERE key = ?) IS ?) ['$', 'we"ird', 3]"#
        )
    }

    @Test func orderLimitOffsetDistinctAndSQLConditions() {
        #expect(
            query.order { [$0.score.descending, $0.name.ascending(nulls: .last)] }.limit(10, offset: 20)
                .sqlDescription
                == #"SELECT * FROM "sql_items" ORDER BY "score" DESC, "name" ASC NULLS LAST LIMIT ? OFFSET ? [10, 20]"#
        )
        #expect(
            query.order { $0.stats.wins.ascending }.offset(5).sqlDescription
                == #"SELECT * FROM "sql_items" ORDER BY ("stats" ->> ?) ASC LIMIT -1 OFFSET ? ['$."wins"', 5]"#
        )
        #expect(
            query.distinct().order { $0.team.descending(nulls: .first) }.sqlDescription
                == #"SELECT DISTINCT * FROM "sql_items" ORDER BY "team" DESC NULLS FIRST"#)
        #expect(
            query.where(sql: "score > \(5) AND name <> \("x")").where { $0.score < 9 }.sqlDescription
                == #"SELECT * FROM "sql_items" WHERE (score > ? AND name <> ?) AND ("score" < ?) [5, 'x', 9]"#
        )
        // Building the same query twice gives the same text.
        let build = {
            query.where { $0.score > 1 && $0.tags.contains("a") }.order { $0.name.ascending }.limit(3)
        }
        #expect(build().sqlDescription == build().sqlDescription)
    }

    @Test func hostileValuesNeverReachTheText() {
        let hostile = "x'); DROP TABLE sql_items; --"
        let descriptions = [
            query.where { $0.name == hostile }.sqlDescription,
            query.where { $0.name.hasPrefix(hostile) || $0.name.caseInsensitiveHasSuffix(hostile) }
                .sqlDescription,
            query.where { $0.tags.contains(hostile) }.sqlDescription,
            query.where { $0.scores[hostile] == 1 }.sqlDescription,
            query.where { [hostile, "a"].contains($0.name) }.sqlDescription,
            query.where(sql: "name = \(hostile)").sqlDescription,
        ]
        for description in descriptions {
            let text = sqlText(description)
            #expect(!text.contains("DROP") && !text.contains("');"), "\(description)")
            #expect(text.contains("?"), "\(description)")
            #expect(
                description.contains("DROP TABLE"), "the value is listed among the arguments: \(description)")
        }
    }

    /// The same shape with other values has the same text, so the connection reuses one prepared
    /// statement (seen in SQLite's `sqlite_stmt` table, where the library has it).
    @Test func sameShapeIsPreparedOnce() throws {
        let db = try Database(.inMemory)
        let options = try db.fetchAll(String.self, sql: "PRAGMA compile_options")
        guard options.contains("ENABLE_STMTVTAB") else { return }
        let items = try db.insert(
            contentsOf: (0..<20).map {
                SQLTextItem(
                    id: nil, name: "n\($0)", score: $0, team: $0 % 2 == 0 ? .red : nil, tags: [],
                    stats: SQLTextStats(wins: $0, streak: SQLTextStreak(best: 0)), scores: [:],
                    joinedAt: Date(timeIntervalSinceReferenceDate: 0), flag: false)
            })
        let shape = { (minimum: Int) in
            db.query(SQLTextItem.self).where { $0.score > minimum && $0.team == .red }
        }
        for minimum in 0..<30 {
            #expect(
                try shape(minimum).fetchAll().map(\.id)
                    == items.filter { $0.score > minimum && $0.team == .red }.map(\.id))
        }
        let text = String(sqlText(shape(0).sqlDescription))
        let runs = try db.fetchAll(Int.self, sql: "SELECT run FROM sqlite_stmt WHERE sql = \(text)")
        #expect(runs.count == 1 && runs[0] >= 30, "\(runs)")
    }
}
