import Foundation
import LiteRecord

/// What a fuzz case puts in one result column: a value SQLite can hold, or TEXT whose bytes are
/// not valid UTF-8 (which no `DatabaseValue` can carry: it is made with `CAST(blob AS TEXT)`).
enum FuzzValue {
    case value(DatabaseValue)
    case invalidText(Data)
}

/// Random values of every storage class, biased toward edges and toward text that almost
/// parses (dates, numbers, UUIDs, JSON), from a seeded generator so failures reproduce.
struct FuzzSource {
    var random: SeededGenerator
    /// How often a generator picks a random value over a likely valid one.
    var chaos = 0.1

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[int(0...choices.count - 1)]
    }

    mutating func bytes(_ count: ClosedRange<Int>) -> [UInt8] {
        (0..<int(count)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    // MARK: - Numbers

    static let specialIntegers: [Int64] = [
        0, 1, -1, 2, 7, -128, -129, 127, 128, 255, 256, 32_767, 32_768, 65_535, 65_536, 2_147_483_647,
        2_147_483_648, -2_147_483_649, 4_294_967_295, 4_294_967_296, 1 << 53, (1 << 53) + 1, .max, .min,
        .max - 1, .min + 1, 978_307_200, 1_715_953_530, 1_715_953_530_250,
    ]

    mutating func integer() -> Int64 {
        switch int(0...3) {
        case 0: pick(Self.specialIntegers)
        case 1: Int64(int(-300...300))
        default: Int64(bitPattern: random.next())
        }
    }

    static let specialReals: [Double] = [
        0, -0.0, 1, -1, 0.5, 1.5, -2.5, 127, 128, 255, 256, 3.0e9, .infinity, -.infinity,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .ulpOfOne,
        9.223372036854775807e18, -9.223372036854775808e18, 1.8446744073709552e19, 1e20, 1e-300,
        2_451_910.5, 1_715_953_530.25, 253_402_300_800, -62_167_219_200,
    ]

    /// Any double but NaN (SQLite stores a bound NaN as NULL).
    mutating func real() -> Double {
        switch int(0...3) {
        case 0: return pick(Self.specialReals)
        case 1: return Double(int(-1000...1000)) / 4
        default:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while value.isNaN
            return value
        }
    }

    // MARK: - Text

    mutating func asciiText(maxLength: Int = 16) -> String {
        String(decoding: (0..<int(0...maxLength)).map { _ in UInt8(int(0x20...0x7E)) }, as: UTF8.self)
    }

    mutating func unicodeText(maxLength: Int = 12) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<int(0...maxLength) {
            let value: UInt32 =
                switch int(0...3) {
                case 0: UInt32(int(0...0x7F))
                case 1: UInt32(int(0x80...0x7FF))
                case 2: UInt32(int(0x800...0xFFFF))
                default: UInt32(int(0x10000...0x10FFFF))
                }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    mutating func numberText() -> String {
        pick([
            String(integer()), String(real()), "\(int(-99...99)).\(int(0...999))", "1e309", "-1e309",
            "1e-400",
            "+7", "-0", "00012", ".5", "5.", "1e", "e5", "--1", "0x10", " 1", "1 ", "1_000",
            String(repeating: "9", count: int(1...60)),
            "1." + String(repeating: "0", count: int(1...40)) + "1",
            "NaN", "inf", "-Infinity",
        ])
    }

    mutating func uuidText() -> String {
        var text = UUID().uuidString
        if chance(0.5) { text = text.lowercased() }
        if chance(0.3) { text = mutated(text) }
        return text
    }

    mutating func urlText() -> String {
        pick([
            "https://example.com/a?b=c#d", "file:///tmp/x", "mailto:a@b.c", "", " ", "not a url",
            "http://[::1]:80/",
            "http://[", "a b", "https://example.com/%", "https://例え.jp/パス", "//relative", "?", "#", "data:,x",
        ])
    }

    /// Text that is a date in one of the accepted forms, often slightly broken.
    mutating func dateText() -> String {
        var text = DateFuzz.randomDateText(&self).text
        if chance(0.3) { text = mutated(text) }
        return text
    }

    private static let shortHostile = HostileCorpus.short.filter { $0.utf8.count < 300 }

    mutating func text() -> String {
        switch int(0...9) {
        case 0: return pick(Self.shortHostile)
        case 1: return asciiText()
        case 2: return unicodeText()
        case 3: return numberText()
        case 4: return dateText()
        case 5: return uuidText()
        case 6: return urlText()
        case 7: return pick(["calm", "busy", "CALM", "purple", "0", "-1", "7", "true", "null", ""])
        default: return JSONFuzz.text(&self)
        }
    }

    /// Random edits: truncation, a byte inserted, removed or replaced, a segment repeated.
    mutating func mutated(_ text: String) -> String {
        var bytes = Array(text.utf8)
        for _ in 0..<int(1...3) {
            let position = bytes.isEmpty ? 0 : int(0...bytes.count - 1)
            switch int(0...5) {
            case 0: bytes = Array(bytes.prefix(position))
            case 1: bytes.insert(pick(Array(" -:.+TZz0129{}[],\"\\".utf8)), at: position)
            case 2: if !bytes.isEmpty { bytes.remove(at: position) }
            case 3: if !bytes.isEmpty { bytes[position] = UInt8(int(0x20...0x7E)) }
            case 4: bytes.insert(contentsOf: bytes[position...].prefix(int(1...8)), at: position)
            default: if !bytes.isEmpty { bytes[position] = UInt8(int(0...255)) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Values

    mutating func blob() -> Data {
        switch int(0...3) {
        case 0: Data(bytes(0...32))
        case 1: Data(bytes(16...16))
        case 2: Data(JSONFuzz.text(&self).utf8)
        default: Data(text().utf8)
        }
    }

    /// Bytes that are certainly not valid UTF-8.
    mutating func invalidUTF8() -> Data {
        var bytes = Array(text().utf8.prefix(20))
        bytes.insert(pick([0xFF, 0xC0, 0x80, 0xED, 0xF8]), at: bytes.isEmpty ? 0 : int(0...bytes.count))
        if bytes.last.map({ $0 >= 0xC0 }) != true { bytes.append(0xFF) }
        return Data(bytes)
    }

    mutating func databaseValue() -> DatabaseValue {
        switch int(0...9) {
        case 0: .null
        case 1, 2: .integer(integer())
        case 3, 4: .real(real())
        case 5, 6, 7: .text(text())
        default: .blob(blob())
        }
    }

    mutating func fuzzValue() -> FuzzValue {
        chance(0.03) ? .invalidText(invalidUTF8()) : .value(databaseValue())
    }
}

/// A row of a fuzz case: column names and values, fetched as `SELECT ? AS "name", ...`.
struct FuzzRow {
    var names: [String]
    var values: [FuzzValue]

    var hasInvalidText: Bool {
        values.contains { if case .invalidText = $0 { true } else { false } }
    }

    /// The query that returns this row, every value bound.
    var sql: SQL {
        var text = "SELECT "
        var arguments: [DatabaseValue] = []
        for (index, (name, value)) in zip(names, values).enumerated() {
            if index > 0 { text += ", " }
            switch value {
            case .value(let value):
                text += "? AS " + Self.quoted(name)
                arguments.append(value)
            case .invalidText(let bytes):
                text += "CAST(? AS TEXT) AS " + Self.quoted(name)
                arguments.append(.blob(bytes))
            }
        }
        return SQL(text, arguments: StatementArguments(positional: arguments))
    }

    private static func quoted(_ name: String) -> String {
        name.utf8.contains(UInt8(ascii: "\"")) ? SQL.quoteIdentifier(name) : "\"" + name + "\""
    }

    /// The column a key reads, as documented for rows: an exact name first, else a name equal
    /// ignoring ASCII case; the first of equal names wins.
    func index(of key: String) -> Int? {
        if let exact = names.firstIndex(of: key) { return exact }
        let folded = Self.fold(key)
        return names.firstIndex { Self.fold($0) == folded }
    }

    private static func fold(_ name: String) -> [UInt8] {
        name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
    }

    /// A row for `keys`: most keys present (some in another ASCII case), some missing, a few
    /// extra and duplicate columns, in random order.
    static func random(
        keys: [String], chaos: Double, _ source: inout FuzzSource,
        value: (String, inout FuzzSource) -> FuzzValue
    ) -> FuzzRow {
        var columns: [(String, FuzzValue)] = []
        for key in keys where !source.chance(chaos / 4) {
            let name = source.chance(chaos / 4) ? key.uppercased() : key
            columns.append((name, value(key, &source)))
            if source.chance(chaos / 10) { columns.append((key, value(key, &source))) }
        }
        for _ in 0..<(source.chance(chaos) ? source.int(1...2) : 0) {
            columns.append((source.pick(["extra", "rowid", "", "Extra", "x y"]), source.fuzzValue()))
        }
        if columns.isEmpty { columns.append(("only", source.fuzzValue())) }
        columns.shuffle(using: &source.random)
        return FuzzRow(names: columns.map(\.0), values: columns.map(\.1))
    }
}

/// Random JSON, valid or nearly so: nested values, escapes, huge numbers, deep nesting, and
/// random edits.
enum JSONFuzz {
    static let keys = [
        "wins", "losses", "label", "values", "when", "circle", "radius", "rectangle", "width", "height",
        "none",
        "leaf", "node", "_0", "k", "a", "", "\u{0}", "tags", "stats",
    ]

    /// Arrays and objects nested up to 100,000 deep, closed or not, built once.
    static let deeplyNested: [String] = [10, 100, 600, 5_000, 100_000].flatMap { depth in
        ["[", "{\"a\":"].flatMap { opener in
            let open = String(repeating: opener, count: depth)
            let close = String(repeating: opener == "[" ? "]" : "}", count: depth)
            return [open, open + "1" + close, open + "1" + close.dropLast(depth / 2)]
        }
    }

    static func text(_ source: inout FuzzSource) -> String {
        switch source.int(0...19) {
        case 0: return source.pick(deeplyNested)
        case 1: return String(repeating: "1", count: source.int(1...400))
        case 2: return source.mutated(value(&source, depth: 0))
        case 3: return source.mutated(value(&source, depth: 0))
        default: return value(&source, depth: 0)
        }
    }

    static func value(_ source: inout FuzzSource, depth: Int) -> String {
        let leafOnly = depth >= 4
        switch source.int(0...(leafOnly ? 4 : 7)) {
        case 0: return source.pick(["null", "true", "false", "True", "nul"])
        case 1:
            return source.pick([
                String(source.integer()), String(source.real()), "1e400", "-0", "1.0", "1E+2", "0.1e-2", "01",
                "-",
                "1.", ".1", "18446744073709551616", "-9223372036854775809", "1e-400",
            ])
        case 2, 3: return string(&source)
        case 4: return string(&source)
        case 5, 6:
            let count = source.int(0...4)
            var text = "{"
            for index in 0..<count {
                if index > 0 { text += "," }
                let key = source.chance(0.8) ? source.pick(keys) : source.unicodeText(maxLength: 4)
                text += quoted(key) + ":" + value(&source, depth: depth + 1)
            }
            return text + "}"
        default:
            let count = source.int(0...4)
            return "[" + (0..<count).map { _ in value(&source, depth: depth + 1) }.joined(separator: ",")
                + "]"
        }
    }

    static func string(_ source: inout FuzzSource) -> String {
        var text = "\""
        for _ in 0..<source.int(0...8) {
            text += source.pick([
                "a", "Z", "é", "👍", " ", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u0000", "\\u00e9",
                "\\ud83d\\udc4d",
                "\\ud800", "\\udc00", "\\u12", "\\x", "\\", "2024-05-17 13:45:30.25", "calm",
            ])
        }
        return text + "\""
    }

    static func quoted(_ key: String) -> String {
        "\""
            + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\u{0}", with: "\\u0000") + "\""
    }
}
