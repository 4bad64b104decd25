// libFuzzer entry points for LiteRecord's parsers and decoders.
//
// Not part of Package.swift: Fuzz/run.sh compiles this file together with every source file of
// Sources/LiteRecord into one module, so the fuzzer reaches internal code (DateText.parse,
// Row(columns:values:)) and instruments the whole library for coverage.
//
// A crash, a sanitizer report or a broken property below (a trap) is a finding; every input must
// otherwise decode or throw the documented error.

import Foundation

/// Which target `LLVMFuzzerTestOneInput` runs: `LITERECORD_FUZZ_TARGET` = date, row or json.
private let target: String = ProcessInfo.processInfo.environment["LITERECORD_FUZZ_TARGET"] ?? "row"

/// Which decoding paths the row and json targets take: `LITERECORD_FUZZ_PATHS` = copied,
/// statement or both (the default); narrowing it helps to bisect a finding.
private let paths: String = ProcessInfo.processInfo.environment["LITERECORD_FUZZ_PATHS"] ?? "both"

@_cdecl("LLVMFuzzerTestOneInput")
public func literecordFuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
    switch target {
    case "date": fuzzDate(bytes)
    case "json": fuzzJSON(bytes)
    default: fuzzRow(bytes)
    }
    return 0
}

/// Stops the run with a message that libFuzzer reports with the input.
private func violated(_ message: @autoclosure () -> String) -> Never {
    fatalError("property violated: \(message())")
}

// MARK: - Dates

/// Any bytes either parse or throw; a parsed date in the text range formats to text that parses
/// back to exactly the same interval; the public entry point agrees with the byte parser.
private func fuzzDate(_ bytes: UnsafeBufferPointer<UInt8>) {
    let parsed: DateText.Parsed
    do {
        parsed = try DateText.parse(bytes)
    } catch {
        return
    }
    guard case .interval(let interval) = parsed else { return }
    let date = Date(timeIntervalSinceReferenceDate: interval)
    guard let text = try? DateText.format(date) else { return }  // outside years 0000...9999
    var copy = text
    let reparsed = copy.withUTF8 { try? DateText.parse($0) }
    guard reparsed == .interval(interval) else {
        violated("\(interval) formatted as \(text) parsed back as \(String(describing: reparsed))")
    }
    if let valid = String(validating: bytes, as: UTF8.self) {
        guard (try? DateStorage.text.date(from: .text(valid))) == date else {
            violated("DateStorage disagrees with DateText.parse on \(valid.debugDescription)")
        }
    }
}

// MARK: - Rows

struct FuzzPrimitives: Decodable {
    var int: Int
    var int8: Int8
    var uint64: UInt64
    var bool: Bool
    var double: Double
    var float: Float
    var string: String
    var data: Data
    var optionalInt: Int?
    var optionalString: String?
}

enum FuzzMood: String, Codable { case calm, busy }
enum FuzzLevel: Int, Codable {
    case low = -1
    case high = 7
}

struct FuzzFoundation: Decodable {
    var date: Date
    var optionalDate: Date?
    var uuid: UUID
    var url: URL?
    var decimal: Decimal
    var mood: FuzzMood
    var level: FuzzLevel?
}

struct FuzzInner: Codable {
    var wins: Int
    var label: String?
    var values: [Double]
}

enum FuzzShape: Codable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case none
}

indirect enum FuzzTree: Codable {
    case leaf(Int)
    case node([FuzzTree])
}

struct FuzzJSON: Decodable {
    var tags: [String]
    var scores: [String: Int]
    var inner: FuzzInner?
    var shape: FuzzShape
    var tree: FuzzTree?
    var dates: [Date]?
}

/// Reads columns through nested containers and a super decoder (JSONTreeDecoding).
struct FuzzNested: Decodable {
    var wins: Int
    var label: String?
    var first: Double?
    var extra: [String: Int]

    enum Keys: String, CodingKey { case stats, list, extra }
    enum StatsKeys: String, CodingKey { case wins, label }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let stats = try container.nestedContainer(keyedBy: StatsKeys.self, forKey: .stats)
        wins = try stats.decode(Int.self, forKey: .wins)
        label = try stats.decodeIfPresent(String.self, forKey: .label)
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        first = list.isAtEnd ? nil : try list.decode(Double?.self)
        extra = try [String: Int](from: container.superDecoder(forKey: .extra))
    }
}

private let columnNames = [
    "int", "int8", "uint64", "bool", "double", "float", "string", "data", "optionalInt", "optionalString",
    "date", "optionalDate", "uuid", "url", "decimal", "mood", "level", "tags", "scores", "inner", "shape",
    "tree",
    "dates", "stats", "list", "extra", "INT", "Tags", "", "x y",
]

/// Reads the input as a row: per column a name byte, a storage class byte, a length byte and
/// that many payload bytes.
private struct ByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = end }
        return Array(bytes[index..<end])
    }
}

/// Builds a row from the bytes; a value of class 5 is TEXT that need not be UTF-8 (kept as the
/// bytes, and bound with `CAST(? AS TEXT)` on the statement path).
private func row(from bytes: UnsafeBufferPointer<UInt8>) -> (
    names: [String], values: [DatabaseValue], rawText: Set<Int>
) {
    var cursor = ByteCursor(bytes: bytes)
    var names: [String] = []
    var values: [DatabaseValue] = []
    var rawText: Set<Int> = []
    while names.count < 16, let name = cursor.next(), let kind = cursor.next(), let length = cursor.next() {
        let payload = cursor.take(Int(length))
        names.append(columnNames[Int(name) % columnNames.count])
        var integer: Int64 = 0
        for byte in payload.prefix(8) { integer = integer << 8 | Int64(byte) }
        switch kind % 6 {
        case 0: values.append(.null)
        case 1: values.append(.integer(integer))
        case 2:
            let real = Double(bitPattern: UInt64(bitPattern: integer))
            values.append(.real(real.isNaN ? 0 : real))
        case 3: values.append(.text(String(decoding: payload, as: UTF8.self)))
        case 4: values.append(.blob(Data(payload)))
        default:
            rawText.insert(values.count)
            values.append(.blob(Data(payload)))
        }
    }
    return (names, values, rawText)
}

private let database: Database? = try? Database(.inMemory)

/// Decodes one shape from a copied row and from a statement; only `RowDecodingError` (and, for
/// hand-written `init(from:)`, `DecodingError`) may come out.
private func decode<T: Decodable>(_ type: T.Type, names: [String], values: [DatabaseValue], rawText: Set<Int>)
{
    if paths != "statement" {
        let copied = Row(columns: RowColumns(names: names), values: values)
        do {
            _ = try RowDecoder().decode(T.self, from: copied)
        } catch is RowDecodingError, is DecodingError {
        } catch {
            violated("copied row: \(type) threw \(error)")
        }
    }
    guard paths != "copied", let database, !names.isEmpty else { return }
    let selection = names.indices.map { index in
        (rawText.contains(index) ? "CAST(? AS TEXT)" : "?") + " AS " + SQL.quoteIdentifier(names[index])
    }
    let sql = SQL(
        "SELECT " + selection.joined(separator: ", "), arguments: StatementArguments(positional: values))
    do {
        _ = try database.fetchOne(T.self, sql: sql)
    } catch is RowDecodingError, is DecodingError {
    } catch {
        violated("statement: \(type) threw \(error)")
    }
}

private func fuzzRow(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let selector = bytes.first else { return }
    let (names, values, rawText) = row(from: UnsafeBufferPointer(rebasing: bytes.dropFirst()))
    switch selector % 5 {
    case 0: decode(FuzzPrimitives.self, names: names, values: values, rawText: rawText)
    case 1: decode(FuzzFoundation.self, names: names, values: values, rawText: rawText)
    case 2: decode(FuzzJSON.self, names: names, values: values, rawText: rawText)
    case 3: decode(FuzzNested.self, names: names, values: values, rawText: rawText)
    default: decode([String: Int].self, names: names, values: values, rawText: rawText)
    }
}

// MARK: - JSON columns

/// The whole input is the JSON of every column of each JSON shape, as TEXT and as a BLOB.
private func fuzzJSON(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = DatabaseValue.text(String(decoding: bytes, as: UTF8.self))
    let blob = DatabaseValue.blob(Data(bytes))
    for value in [text, blob] {
        let json = ["tags", "scores", "inner", "shape", "tree", "dates"]
        decode(FuzzJSON.self, names: json, values: json.map { _ in value }, rawText: [])
        let nested = ["stats", "list", "extra"]
        decode(FuzzNested.self, names: nested, values: nested.map { _ in value }, rawText: [])
        decode([FuzzTree].self, names: ["value"], values: [value], rawText: [])
    }
}
