import Foundation
import LiteRecord
import Testing

/// A table written by plain SQL, the way another tool would: columns in another order than
/// the properties, an extra column, REAL and INTEGER mixed in one column.
private func makePlayersTable() throws -> Database {
    let db = try Database(.inMemory)
    try db.execute(
        sql: """
            CREATE TABLE players(extra TEXT, stats TEXT, tags TEXT, team TEXT, score NUMERIC, name TEXT, id INTEGER PRIMARY KEY);
            INSERT INTO players VALUES ('ignored', '{"wins":3,"losses":1}', '["pro","mvp"]', 'red', 120, 'Alice', 1);
            INSERT INTO players VALUES (NULL, '{"losses":2,"wins":0}', '[]', NULL, 80.0, 'Bob', 2);
            """)
    return db
}

@Suite struct RowDecoderTests {
    @Test func decodesRowsWrittenByPlainSQL() throws {
        let db = try makePlayersTable()
        let players = try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players ORDER BY id")
        #expect(
            players == [
                CodablePlayer(
                    id: 1, name: "Alice", score: 120, team: .red, tags: ["pro", "mvp"],
                    stats: CodableStats(wins: 3, losses: 1)),
                CodablePlayer(
                    id: 2, name: "Bob", score: 80, team: nil, tags: [],
                    stats: CodableStats(wins: 0, losses: 2)),
            ])
    }

    @Test func fetchOneAndForEach() throws {
        let db = try makePlayersTable()
        #expect(
            try db.fetchOne(CodablePlayer.self, sql: "SELECT * FROM players WHERE name = \("Bob")")?.id == 2)
        #expect(
            try db.fetchOne(CodablePlayer.self, sql: "SELECT * FROM players WHERE name = \("Nobody")") == nil)
        var names: [String] = []
        try db.forEach(CodablePlayer.self, sql: "SELECT * FROM players ORDER BY id DESC") {
            names.append($0.name)
        }
        #expect(names == ["Bob", "Alice"])
    }

    @Test func singleColumnResultsDecodeIntoPlainValues() throws {
        let db = try makePlayersTable()
        #expect(
            try db.fetchAll(String.self, sql: "SELECT name FROM players ORDER BY name") == ["Alice", "Bob"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM players") == 2)
        #expect(
            try db.fetchAll(CodableTeam?.self, sql: "SELECT team FROM players ORDER BY id") == [.red, nil])
        #expect(
            try db.fetchAll([String].self, sql: "SELECT tags FROM players ORDER BY id") == [
                ["pro", "mvp"], [],
            ])
        #expect(
            try db.fetchOne(Date.self, sql: "SELECT '2024-02-29 12:00:00'")
                == Date(timeIntervalSince1970: 1_709_208_000))
    }

    @Test func decodesFromACopiedRow() throws {
        let row = Row(["name": "Zed", "score": 7, "tags": #"["x"]"#, "stats": #"{"wins":1,"losses":0}"#])
        let player = try RowDecoder().decode(CodablePlayer.self, from: row)
        #expect(
            player
                == CodablePlayer(
                    id: nil, name: "Zed", score: 7, team: nil, tags: ["x"],
                    stats: CodableStats(wins: 1, losses: 0)))
    }

    @Test func missingColumnForNonOptionalNamesTheColumn() throws {
        let db = try makePlayersTable()
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT id, name, tags, stats FROM players")
        }
        #expect(error.isMissingColumn)
        #expect(error.column == "score")
        #expect(error.description.contains("no column \"score\""))
        #expect(error.description.contains("CodablePlayer.score"))
        #expect(error.description.contains("SELECT id, name, tags, stats FROM players"))
    }

    @Test func missingColumnForOptionalIsNil() throws {
        let db = try makePlayersTable()
        let players = try db.fetchAll(
            CodablePlayer.self, sql: "SELECT name, score, tags, stats FROM players ORDER BY name")
        #expect(players.map(\.id) == [nil, nil])
        #expect(players.map(\.team) == [nil, nil])
    }

    @Test func nullInNonOptionalIsAnError() throws {
        let db = try makePlayersTable()
        try db.execute(sql: "UPDATE players SET score = NULL WHERE id = 2")
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players")
        }
        #expect(error.isNullValue)
        #expect(error.description.contains("column \"score\" is NULL, expected non-optional Int"))
    }

    @Test func wrongTypeNamesStoredTypePreviewAndExpectedType() throws {
        let db = try makePlayersTable()
        try db.execute(sql: "UPDATE players SET score = 'lots' WHERE id = 1")
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players")
        }
        #expect(error.isTypeMismatch)
        #expect(error.storedValue == .text("lots"))
        #expect(error.expectedType == "Int")
        #expect(error.description.contains("column \"score\" holds TEXT 'lots', expected Int"))
    }

    @Test func fractionalRealIntoIntIsAnError() throws {
        let db = try makePlayersTable()
        try db.execute(sql: "UPDATE players SET score = 80.5 WHERE id = 2")
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players")
        }
        #expect(error.description.contains("holds REAL 80.5, expected Int"))
    }

    @Test func outOfRangeIntegerIsAnError() throws {
        struct Small: Decodable { var value: Int8 }
        let db = try Database(.inMemory)
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(Small.self, sql: "SELECT 300 AS value")
        }
        #expect(error.description.contains("holds INTEGER 300, expected Int8"))
    }

    @Test func invalidJSONIsAnError() throws {
        let db = try makePlayersTable()
        try db.execute(sql: "UPDATE players SET stats = '{wins: 3' WHERE id = 1")
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players")
        }
        #expect(error.isInvalidJSON)
        #expect(error.column == "stats")
        #expect(error.description.contains("not valid JSON for CodableStats"))
    }

    @Test func jsonOfTheWrongShapeIsAnError() throws {
        let db = try makePlayersTable()
        try db.execute(sql: #"UPDATE players SET stats = '{"wins":"three","losses":1}' WHERE id = 1"#)
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players")
        }
        #expect(error.isInvalidJSON)
        #expect(error.description.contains("wins"))
    }

    @Test func unknownRawValueNamesTheValueAndType() throws {
        let db = try makePlayersTable()
        try db.execute(sql: "UPDATE players SET team = 'purple' WHERE id = 1")
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(CodablePlayer.self, sql: "SELECT * FROM players")
        }
        #expect(error.description.contains("'purple'"))
        #expect(error.description.contains("CodableTeam"))
    }

    @Test func invalidUTF8TextIsAnErrorForStrings() throws {
        struct Named: Decodable { var name: String }
        struct Raw: Decodable { var name: Data }
        let db = try Database(.inMemory)
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchAll(Named.self, sql: "SELECT CAST(x'ff00fe' AS TEXT) AS name")
        }
        #expect(error.description.contains("not valid UTF-8"))
        #expect(
            try db.fetchOne(Raw.self, sql: "SELECT CAST(x'ff00fe' AS TEXT) AS name")?.name
                == Data([0xFF, 0x00, 0xFE]))
    }

    @Test func customDecodingWithNestedContainersRoundTrips() throws {
        struct Shape: Codable, Equatable {
            var name: String
            var x: Int
            var y: Int
            var corners: [Int]
            enum Keys: String, CodingKey { case name, origin, corners, x, y }
            init(name: String, x: Int, y: Int, corners: [Int]) {
                (self.name, self.x, self.y, self.corners) = (name, x, y, corners)
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                name = try container.decode(String.self, forKey: .name)
                let origin = try container.nestedContainer(keyedBy: Keys.self, forKey: .origin)
                x = try origin.decode(Int.self, forKey: .x)
                y = try origin.decode(Int.self, forKey: .y)
                var list = try container.nestedUnkeyedContainer(forKey: .corners)
                corners = []
                while !list.isAtEnd { corners.append(try list.decode(Int.self)) }
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(name, forKey: .name)
                var origin = container.nestedContainer(keyedBy: Keys.self, forKey: .origin)
                try origin.encode(x, forKey: .x)
                try origin.encode(y, forKey: .y)
                var list = container.nestedUnkeyedContainer(forKey: .corners)
                for corner in corners { try list.encode(corner) }
            }
        }
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE shapes(name TEXT, origin TEXT, corners TEXT)")
        let shape = Shape(name: "square", x: -3, y: 9, corners: [1, 2, 3, 4])
        let row = try RowEncoder().encode(shape)
        try db.execute(
            sql: "INSERT INTO shapes(name, origin, corners) VALUES (?, ?, ?)",
            arguments: StatementArguments(positional: row.values))
        #expect(try db.fetchOne(Shape.self, sql: "SELECT * FROM shapes") == shape)
        #expect(try db.fetchOne(Int.self, sql: "SELECT json_extract(origin, '$.y') FROM shapes") == 9)
    }
}
