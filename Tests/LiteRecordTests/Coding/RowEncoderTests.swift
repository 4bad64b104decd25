import Foundation
import LiteRecord
import Testing

@Suite struct RowEncoderTests {
    @Test func encodesColumnsInPropertyOrderWithTheirStorage() throws {
        let player = CodablePlayer(
            id: nil, name: "Alice", score: 120, team: .red, tags: ["pro", "mvp"],
            stats: CodableStats(wins: 3, losses: 1))
        let row = try RowEncoder().encode(player)
        #expect(row.columns == ["id", "name", "score", "team", "tags", "stats"])
        #expect(row["id"] == .null)  // encodeIfPresent(nil) is NULL, not a missing column
        #expect(row["name"] == .text("Alice"))
        #expect(row["score"] == .integer(120))
        #expect(row["team"] == .text("red"))
        #expect(row["tags"] == .text(#"["pro","mvp"]"#))
        #expect(row["stats"] == .text(#"{"losses":1,"wins":3}"#))  // sorted keys
    }

    @Test func equalDictionariesEncodeToEqualText() throws {
        struct Bag: Codable { var counts: [String: Int] }
        var first: [String: Int] = [:]
        var second: [String: Int] = [:]
        for key in ["zeta", "alpha", "mid", "beta", "omega"] { first[key] = key.count }
        for key in ["omega", "beta", "mid", "alpha", "zeta"] { second[key] = key.count }
        #expect(try RowEncoder().encode(Bag(counts: first)) == RowEncoder().encode(Bag(counts: second)))
        #expect(
            try RowEncoder().encode(Bag(counts: first))["counts"]
                == .text(#"{"alpha":5,"beta":4,"mid":3,"omega":5,"zeta":4}"#))
    }

    @Test func equalSetsEncodeToEqualSortedText() throws {
        struct Labels: Codable { var names: Set<String> }
        let many = (0..<50).map { "label\($0)" }
        let first = try RowEncoder().encode(Labels(names: Set(many)))
        let second = try RowEncoder().encode(Labels(names: Set(many.reversed())))
        #expect(first == second)
        #expect(try RowEncoder().encode(Labels(names: ["b", "c", "a"]))["names"] == .text(#"["a","b","c"]"#))
    }

    @Test func customCodingKeysNameTheColumns() throws {
        struct Renamed: Codable {
            var userName: String
            enum CodingKeys: String, CodingKey { case userName = "user_name" }
        }
        #expect(try RowEncoder().encode(Renamed(userName: "x")).columns == ["user_name"])
    }

    @Test func uint64AboveInt64MaxIsAnEncodingError() throws {
        struct Big: Codable { var value: UInt64 }
        #expect(throws: EncodingError.self) { try RowEncoder().encode(Big(value: UInt64(Int64.max) + 1)) }
        #expect(try RowEncoder().encode(Big(value: UInt64(Int64.max)))["value"] == .integer(.max))
        do {
            _ = try RowEncoder().encode(Big(value: .max))
            Issue.record("expected an error")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["value"])
            #expect(context.debugDescription.contains("18446744073709551615"))
        }
    }

    @Test func nanIsAnEncodingErrorAndInfinityIsStored() throws {
        struct Measure: Codable { var value: Double }
        #expect(throws: EncodingError.self) { try RowEncoder().encode(Measure(value: .nan)) }
        #expect(try RowEncoder().encode(Measure(value: .infinity))["value"] == .real(.infinity))
    }

    @Test func topLevelUnkeyedOrSingleValueIsRejected() throws {
        #expect(throws: EncodingError.self) { try RowEncoder().encode([1, 2, 3]) }
        #expect(throws: EncodingError.self) { try RowEncoder().encode("just a string") }
    }

    @Test func aKeyEncodedTwiceIsRejected() throws {
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: NameKey.self)
                try container.encode(1, forKey: NameKey("a"))
                try container.encode(2, forKey: NameKey("a"))
            }
        }
        do {
            _ = try RowEncoder().encode(Twice())
            Issue.record("expected an error")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("\"a\" is encoded twice"))
        }
    }

    @Test func nestedContainersBecomeOneJSONColumn() throws {
        struct Custom: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: NameKey.self)
                try container.encode("plain", forKey: NameKey("name"))
                var nested = container.nestedContainer(keyedBy: NameKey.self, forKey: NameKey("point"))
                try nested.encode(2, forKey: NameKey("y"))
                try nested.encode(1, forKey: NameKey("x"))
                var list = container.nestedUnkeyedContainer(forKey: NameKey("list"))
                try list.encode("a")
                try list.encodeNil()
            }
        }
        let row = try RowEncoder().encode(Custom())
        #expect(row.columns == ["name", "point", "list"])
        #expect(row["point"] == .text(#"{"x":1,"y":2}"#))
        #expect(row["list"] == .text(#"["a",null]"#))
    }

    @Test func dateStorageIsChosenPerEncoderAndPerColumn() throws {
        struct Event: Codable {
            var start: Date
            var end: Date
        }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let event = Event(start: start, end: start.addingTimeInterval(1.5))
        let text = try RowEncoder().encode(event)
        #expect(text["start"] == .text("2023-11-14 22:13:20"))
        let mixed = try RowEncoder(dateStorage: .unixSeconds, columnDateStorage: ["end": .text]).encode(event)
        #expect(mixed["start"] == .real(1_700_000_000))
        #expect(mixed["end"] == .text("2023-11-14 22:13:21.5"))
    }

    /// String arrays skip `JSONEncoder` when nothing needs escaping: the text must still be
    /// exactly the encoder's, for every ASCII character and for text beyond ASCII.
    @Test func stringArraysStoreExactlyJSONEncoderText() throws {
        struct Tagged: Codable { var tags: [String] }
        let reference = JSONEncoder()
        reference.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var samples: [[String]] = [
            [], [""], ["", ""], ["a", "b/c", "d e"], ["é", "日本語", "🎉", "\u{2028}", "\u{7F}"],
        ]
        samples += (0..<128).map { ["x\(Character(Unicode.Scalar(UInt8($0))))y", "plain"] }
        for tags in samples {
            let expected = String(decoding: try reference.encode(tags), as: UTF8.self)
            #expect(try RowEncoder().encode(Tagged(tags: tags))["tags"] == .text(expected), "\(tags)")
        }
    }
}

private struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
