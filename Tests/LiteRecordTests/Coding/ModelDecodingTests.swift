import Foundation
import LiteRecord
import Testing

/// A legacy table stores "no reading" as the sentinel 9999, which `init(from:)` reads as -1.
/// No probe row holds 9999, so the probe cannot see the transformation.
private struct SentinelReading: Model, Equatable {
    var id: Int64?
    var celsius: Int

    init(id: Int64?, celsius: Int) {
        self.id = id
        self.celsius = celsius
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        let stored = try container.decode(Int.self, forKey: .celsius)
        celsius = stored == 9999 ? -1 : stored
    }

    static let schema = Schema<SentinelReading>(table: "readings")
}

/// The same type, with the opt-out declared on its schema.
private struct CheckedReading: Model, Equatable {
    var id: Int64?
    var celsius: Int

    init(id: Int64?, celsius: Int) {
        self.id = id
        self.celsius = celsius
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        let stored = try container.decode(Int.self, forKey: .celsius)
        celsius = stored == 9999 ? -1 : stored
    }

    static let schema = Schema<CheckedReading>(table: "readings").decoding(.initializer)
}

/// A plain model, opted out: the synthesized `init(from:)` on every row gives the same values.
private struct PlainOptedOut: Model, Equatable {
    var id: Int64?
    var celsius: Int
    static let schema = Schema<PlainOptedOut>(table: "readings").decoding(.initializer)
}

/// Spells every "q" as "k": no edge value of the probe holds a "q", random text does.
private struct Respelling: Codable, Equatable {
    var word: String
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        word = try container.decode(String.self, forKey: .word).replacingOccurrences(of: "q", with: "k")
    }
}

/// Reads a whole number between 1e10 and 1e15 one unit higher: no edge value lies there.
private struct Shifting: Codable, Equatable {
    var amount: Double
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try container.decode(Double.self, forKey: .amount)
        amount = stored > 1e10 && stored < 1e15 && stored.rounded() == stored ? stored + 1 : stored
    }
}

@Suite struct ModelDecodingTests {
    /// Random probe rows, after the edge values: a change to some characters or to a range of
    /// numbers keeps the type on `init(from:)`.
    @Test func randomProbeRowsFindChangesNoEdgeValueHolds() throws {
        #expect(!RowDecoder.decodesInPlace(Respelling.self))
        let db = try Database(.inMemory)
        #expect(try db.fetchAll(Respelling.self, sql: "SELECT 'quay' AS word").map(\.word) == ["kuay"])
        #expect(!RowDecoder.decodesInPlace(Shifting.self))
        #expect(
            try db.fetchAll(Shifting.self, sql: "SELECT 12345678901.0 AS amount").map(\.amount) == [
                12_345_678_902
            ])
    }

    private func readings() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE readings(id INTEGER PRIMARY KEY, celsius INTEGER NOT NULL)")
        try db.execute(sql: "INSERT INTO readings(celsius) VALUES (21), (9999), (-4)")
        return db
    }

    /// Why the opt-out exists: probe rows are evidence, not proof. An `init(from:)` that
    /// changes only a value no probe row holds passes the probe, and the rows holding that
    /// value are built in place without it.
    @Test func aTransformationNoProbeRowTouchesIsNotSeen() throws {
        #expect(RowDecoder.decodesInPlace(SentinelReading.self))
        let db = try readings()
        #expect(try db.fetchAll(SentinelReading.self).map(\.celsius) == [21, 9999, -4])
    }

    @Test func theOptOutDecodesEveryRowThroughInitFromDecoder() throws {
        #expect(!RowDecoder.decodesInPlace(CheckedReading.self))
        let db = try readings()
        let expected = [
            CheckedReading(id: 1, celsius: 21), CheckedReading(id: 2, celsius: -1),
            CheckedReading(id: 3, celsius: -4),
        ]
        #expect(try db.fetchAll(CheckedReading.self) == expected)
        #expect(try db.query(CheckedReading.self).order { $0.id }.fetchAll() == expected)
        #expect(try db.fetchAll(CheckedReading.self, sql: "SELECT * FROM readings ORDER BY id") == expected)
        #expect(try db.find(CheckedReading.self, id: 2) == CheckedReading(id: 2, celsius: -1))
        // A plain `Decodable` fetch of a model type goes through its schema too.
        func decodable<T: Decodable>(_ type: T.Type, _ db: Database) throws -> [T] {
            try db.fetchAll(T.self, sql: "SELECT * FROM readings ORDER BY id")
        }
        #expect(try decodable(CheckedReading.self, db) == expected)
    }

    @Test func aPlainModelOptedOutReadsTheSameValues() throws {
        #expect(!RowDecoder.decodesInPlace(PlainOptedOut.self))
        let db = try readings()
        #expect(try db.fetchAll(PlainOptedOut.self).map(\.celsius) == [21, 9999, -4])
        var added = PlainOptedOut(id: nil, celsius: 7)
        try db.insert(&added)
        #expect(try db.find(PlainOptedOut.self, id: added.id ?? 0) == added)
    }
}
