import Foundation
import LiteRecord
import Testing

// MARK: - The oracle

/// How a row must fail to decode, as ``RowDecodingError`` reports it.
enum FuzzFailure: Error, Equatable {
    case missing, null, mismatch, invalidJSON
    /// A value of the right storage class that the type rejects (a raw-value enum's unknown case).
    case invalidValue
    /// Any ``RowDecodingError`` naming the column (where the documented rules leave it open).
    case any

    func matches(_ error: RowDecodingError) -> Bool {
        switch self {
        case .missing: error.isMissingColumn
        case .null: error.isNullValue
        case .mismatch: error.isTypeMismatch
        case .invalidJSON: error.isInvalidJSON
        case .invalidValue:
            !error.isMissingColumn && !error.isNullValue && !error.isTypeMismatch && !error.isInvalidJSON
        case .any: true
        }
    }
}

/// Predicts, property by property in declaration order, what decoding a ``FuzzRow`` gives,
/// from the rules the README documents for each type. It never calls the row decoder.
struct FuzzExpectation {
    let row: FuzzRow
    private(set) var failure: (column: String, kind: FuzzFailure)?

    init(row: FuzzRow) {
        self.row = row
    }

    /// A non-optional property: a missing column, NULL or a value the type rejects fails.
    mutating func required<T>(_ key: String, _ convert: (FuzzValue) -> Result<T, FuzzFailure>) -> T? {
        guard failure == nil else { return nil }
        guard let index = row.index(of: key) else {
            failure = (key, .missing)
            return nil
        }
        if case .value(.null) = row.values[index] {
            failure = (row.names[index], .null)
            return nil
        }
        switch convert(row.values[index]) {
        case .success(let value): return value
        case .failure(let kind):
            failure = (row.names[index], kind)
            return nil
        }
    }

    /// An optional property: a missing column or NULL is `nil`; another value must convert.
    mutating func optional<T>(_ key: String, _ convert: (FuzzValue) -> Result<T, FuzzFailure>) -> T?? {
        guard failure == nil else { return nil }
        guard let index = row.index(of: key) else { return .some(nil) }
        if case .value(.null) = row.values[index] { return .some(nil) }
        switch convert(row.values[index]) {
        case .success(let value): return .some(value)
        case .failure(let kind):
            failure = (row.names[index], kind)
            return nil
        }
    }
}

/// The documented conversions, written independently of the library's.
enum Convert {
    static func integer<T: FixedWidthInteger>(_ value: FuzzValue) -> Result<T, FuzzFailure> {
        switch value {
        case .value(.integer(let stored)): T(exactly: stored).map { .success($0) } ?? .failure(.mismatch)
        case .value(.real(let stored)): T(exactly: stored).map { .success($0) } ?? .failure(.mismatch)
        default: .failure(.mismatch)
        }
    }

    static func bool(_ value: FuzzValue) -> Result<Bool, FuzzFailure> {
        switch value {
        case .value(.integer(0)): .success(false)
        case .value(.integer(1)): .success(true)
        default: .failure(.mismatch)
        }
    }

    static func double(_ value: FuzzValue) -> Result<Double, FuzzFailure> {
        switch value {
        case .value(.real(let stored)): .success(stored)
        case .value(.integer(let stored)): .success(Double(stored))
        default: .failure(.mismatch)
        }
    }

    static func float(_ value: FuzzValue) -> Result<Float, FuzzFailure> {
        double(value).map { Float($0) }
    }

    static func string(_ value: FuzzValue) -> Result<String, FuzzFailure> {
        if case .value(.text(let text)) = value { return .success(text) }
        return .failure(.mismatch)
    }

    static func data(_ value: FuzzValue) -> Result<Data, FuzzFailure> {
        switch value {
        case .value(.blob(let bytes)), .invalidText(let bytes): .success(bytes)
        case .value(.text(let text)): .success(Data(text.utf8))
        default: .failure(.mismatch)
        }
    }

    /// Through a type's own ``DatabaseValueConvertible`` conformance (dates, UUIDs, URLs,
    /// decimals have fuzz tests of their own): what is tested here is the decoder around it.
    static func convertible<T: DatabaseValueConvertible>(_ value: FuzzValue) -> Result<T, FuzzFailure> {
        guard case .value(let stored) = value, let result = try? T.fromDatabaseValue(stored) else {
            return .failure(.mismatch)
        }
        return .success(result)
    }

    static func date(_ storage: DateStorage) -> (FuzzValue) -> Result<Date, FuzzFailure> {
        { value in
            guard case .value(let stored) = value, let date = try? storage.date(from: stored) else {
                return .failure(.mismatch)
            }
            return .success(date)
        }
    }

    /// A raw-value enum without its own conformance: its raw value is decoded first.
    static func rawValue<T: RawRepresentable>(_ raw: @escaping (FuzzValue) -> Result<T.RawValue, FuzzFailure>)
        -> (FuzzValue) -> Result<T, FuzzFailure>
    {
        { value in raw(value).flatMap { T(rawValue: $0).map { .success($0) } ?? .failure(.invalidValue) } }
    }

    /// JSON text or bytes decoded by a plain `JSONDecoder` (the shapes hold no dates).
    static func json<T: Decodable>(_ value: FuzzValue) -> Result<T, FuzzFailure> {
        let bytes: Data
        switch value {
        case .value(.text(let text)): bytes = Data(text.utf8)
        case .value(.blob(let blob)): bytes = blob
        // TEXT that is not UTF-8: the documented outcome is an error, of a kind left open.
        case .invalidText: return .failure(.any)
        default: return .failure(.mismatch)
        }
        guard let decoded = try? JSONDecoder().decode(T.self, from: bytes) else {
            return .failure(.invalidJSON)
        }
        return .success(decoded)
    }
}

// MARK: - Shapes

/// A type the fuzzer decodes rows into, with its columns and its expected decoding.
protocol FuzzShape: Decodable {
    /// Column names, each with a generator of values that are often valid for it.
    static var columns: [(key: String, likely: @Sendable (inout FuzzSource) -> DatabaseValue)] { get }
    static func expected(_ expectation: inout FuzzExpectation) -> Self?
    /// Equality, with NaN equal to itself.
    func same(as other: Self) -> Bool
}

extension FuzzShape where Self: Equatable {
    func same(as other: Self) -> Bool { self == other }
}

enum FuzzMood: String, Codable, Equatable { case calm, busy }
enum FuzzLevel: Int, Codable, Equatable {
    case low = -1
    case high = 7
}

/// A value type with its own storage: INTEGER cents.
struct FuzzMoney: Codable, Equatable, DatabaseValueConvertible {
    var cents: Int64
    static var databaseColumnType: DatabaseColumnType { .integer }
    func databaseValue() throws -> DatabaseValue { .integer(cents) }
    static func fromDatabaseValue(_ value: DatabaseValue) throws -> FuzzMoney {
        guard case .integer(let cents) = value else {
            throw ValueConversionError(value: value, to: FuzzMoney.self, reason: "expected INTEGER cents")
        }
        return FuzzMoney(cents: cents)
    }
}

struct FlatShape: FuzzShape {
    var int: Int
    var int8: Int8
    var uint32: UInt32
    var uint64: UInt64
    var bool: Bool
    var double: Double
    var float: Float
    var string: String
    var data: Data
    var optionalInt: Int64?
    var optionalString: String?
    var optionalDouble: Double?
    var optionalBool: Bool?

    static let columns: [(key: String, likely: @Sendable (inout FuzzSource) -> DatabaseValue)] = [
        ("int", { .integer($0.integer()) }), ("int8", { .integer(Int64($0.int(-130...130))) }),
        ("uint32", { .integer(Int64($0.int(0...5_000_000_000))) }),
        (
            "uint64",
            { $0.chance(0.5) ? .integer(Int64($0.int(0...Int.max))) : .real(Double($0.int(0...1 << 60))) }
        ),
        ("bool", { .integer(Int64($0.int(0...1))) }), ("double", { .real($0.real()) }),
        ("float", { .real($0.real()) }), ("string", { .text($0.text()) }), ("data", { .blob($0.blob()) }),
        ("optionalInt", { .integer($0.integer()) }), ("optionalString", { .text($0.text()) }),
        ("optionalDouble", { .integer($0.integer()) }), ("optionalBool", { .integer(Int64($0.int(0...1))) }),
    ]

    static func expected(_ e: inout FuzzExpectation) -> FlatShape? {
        let int: Int? = e.required("int", Convert.integer)
        let int8: Int8? = e.required("int8", Convert.integer)
        let uint32: UInt32? = e.required("uint32", Convert.integer)
        let uint64: UInt64? = e.required("uint64", Convert.integer)
        let bool = e.required("bool", Convert.bool)
        let double = e.required("double", Convert.double)
        let float = e.required("float", Convert.float)
        let string = e.required("string", Convert.string)
        let data = e.required("data", Convert.data)
        let optionalInt: Int64?? = e.optional("optionalInt", Convert.integer)
        let optionalString = e.optional("optionalString", Convert.string)
        let optionalDouble = e.optional("optionalDouble", Convert.double)
        let optionalBool = e.optional("optionalBool", Convert.bool)
        guard let int, let int8, let uint32, let uint64, let bool, let double, let float, let string,
            let data,
            let optionalInt, let optionalString, let optionalDouble, let optionalBool
        else { return nil }
        return FlatShape(
            int: int, int8: int8, uint32: uint32, uint64: uint64, bool: bool, double: double, float: float,
            string: string, data: data, optionalInt: optionalInt, optionalString: optionalString,
            optionalDouble: optionalDouble, optionalBool: optionalBool)
    }

    func same(as other: FlatShape) -> Bool {
        func equal<T: FloatingPoint>(_ a: T, _ b: T) -> Bool { a == b || (a.isNaN && b.isNaN) }
        return int == other.int && int8 == other.int8 && uint32 == other.uint32 && uint64 == other.uint64
            && bool == other.bool && equal(double, other.double) && equal(float, other.float)
            && sameBytes(string, other.string) && data == other.data && optionalInt == other.optionalInt
            && (optionalString == nil) == (other.optionalString == nil)
            && sameBytes(optionalString ?? "", other.optionalString ?? "")
            && optionalDouble == other.optionalDouble && optionalBool == other.optionalBool
    }
}

/// UTC date text as LiteRecord writes it, for a random date of years 0000...9999.
private func formattedDate(_ source: inout FuzzSource) -> String {
    let date = Date(timeIntervalSinceReferenceDate: Double(source.int(-63_000_000_000...252_000_000_000)) / 8)
    guard case .text(let text) = try? DateStorage.text.databaseValue(for: date) else { return "" }
    return text
}

struct FoundationShape: FuzzShape, Equatable {
    var date: Date
    var optionalDate: Date?
    var uuid: UUID
    var url: URL?
    var decimal: Decimal
    var mood: FuzzMood
    var level: FuzzLevel?
    var money: FuzzMoney

    static let columns: [(key: String, likely: @Sendable (inout FuzzSource) -> DatabaseValue)] = [
        ("date", { $0.chance(0.9) ? .text(formattedDate(&$0)) : .text($0.dateText()) }),
        ("optionalDate", { $0.chance(0.5) ? .real($0.real()) : .integer($0.integer()) }),
        ("uuid", { .text($0.chance(0.9) ? UUID().uuidString : $0.uuidText()) }),
        ("url", { .text($0.chance(0.9) ? "https://example.com/\($0.int(0...99))?q=%20" : $0.urlText()) }),
        ("decimal", { .text($0.chance(0.9) ? "\($0.int(-999...999)).\($0.int(0...999))" : $0.numberText()) }),
        ("mood", { .text($0.chance(0.9) ? $0.pick(["calm", "busy"]) : $0.pick(["Calm", "x", ""])) }),
        ("level", { .integer($0.chance(0.9) ? $0.pick([-1, 7]) : $0.pick([0, 8])) }),
        ("money", { .integer($0.integer()) }),
    ]

    static func expected(_ e: inout FuzzExpectation) -> FoundationShape? {
        let date = e.required("date", Convert.date(DateStorage.text))
        let optionalDate = e.optional("optionalDate", Convert.date(DateStorage.text))
        let uuid: UUID? = e.required("uuid", Convert.convertible)
        let url: URL?? = e.optional("url", Convert.convertible)
        let decimal: Decimal? = e.required("decimal", Convert.convertible)
        let mood: FuzzMood? = e.required("mood", Convert.rawValue(Convert.string))
        let level: FuzzLevel?? = e.optional("level", Convert.rawValue(Convert.integer))
        let money: FuzzMoney? = e.required("money", Convert.convertible)
        guard let date, let optionalDate, let uuid, let url, let decimal, let mood, let level, let money
        else {
            return nil
        }
        return FoundationShape(
            date: date, optionalDate: optionalDate, uuid: uuid, url: url, decimal: decimal, mood: mood,
            level: level, money: money)
    }
}

struct FuzzInner: Codable, Equatable {
    var wins: Int
    var label: String?
    var values: [Double]
}

enum FuzzShapeEnum: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case none
}

indirect enum FuzzTree: Codable, Equatable {
    case leaf(Int)
    case node([FuzzTree])
}

struct JSONShape: FuzzShape, Codable, Equatable {
    var tags: [String]
    var scores: [String: Int]
    var inner: FuzzInner?
    var set: Set<Int8>
    var shape: FuzzShapeEnum
    var tree: FuzzTree?

    static func encoded(_ value: some Encodable) -> DatabaseValue {
        (try? JSONEncoder().encode(value)).map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null
    }

    static let columns: [(key: String, likely: @Sendable (inout FuzzSource) -> DatabaseValue)] = [
        ("tags", { source in encoded((0..<source.int(0...3)).map { _ in source.text() }) }),
        ("scores", { source in encoded([source.asciiText(maxLength: 3): source.int(-9...9)]) }),
        (
            "inner",
            { source in encoded(FuzzInner(wins: source.int(0...9), label: nil, values: [source.real()])) }
        ),
        (
            "set",
            { source in encoded(Set((0..<source.int(0...3)).map { _ in Int8(source.int(-128...127)) })) }
        ),
        (
            "shape",
            { source in
                encoded(
                    source.pick([FuzzShapeEnum.none, .circle(radius: 1.5), .rectangle(width: 1, height: 2)]))
            }
        ),
        ("tree", { source in encoded(FuzzTree.node([.leaf(source.int(0...9)), .node([])])) }),
    ]

    static func expected(_ e: inout FuzzExpectation) -> JSONShape? {
        let tags: [String]? = e.required("tags", Convert.json)
        let scores: [String: Int]? = e.required("scores", Convert.json)
        let inner: FuzzInner?? = e.optional("inner", Convert.json)
        let set: Set<Int8>? = e.required("set", Convert.json)
        let shape: FuzzShapeEnum? = e.required("shape", Convert.json)
        let tree: FuzzTree?? = e.optional("tree", Convert.json)
        guard let tags, let scores, let inner, let set, let shape, let tree else { return nil }
        return JSONShape(tags: tags, scores: scores, inner: inner, set: set, shape: shape, tree: tree)
    }

}

// MARK: - The tests

extension Hardening {
    /// Seeded fuzzing of the row decoder: random values of every storage class (random bytes as
    /// TEXT and BLOB, UTF-8 and not, JSON-ish text, near-valid dates, numbers, UUIDs) in random
    /// columns (missing, extra, duplicated, in another ASCII case), decoded into several shapes
    /// through both decoding paths: straight from the statement, and from a copied ``Row``.
    ///
    /// Each case must decode to exactly the value the documented rules predict, or throw a
    /// ``RowDecodingError`` naming the column the rules predict, with the predicted kind. A crash,
    /// hang or leak fails the run (the suite also runs under the address sanitizer).
    @Suite struct DecoderFuzzTests {
        /// Compares one decoding outcome with the expectation; returns whether it decoded.
        @discardableResult
        private func compare<S: FuzzShape>(
            _ outcome: Result<S, any Error>, _ expectation: FuzzExpectation, _ expected: S?, path: String
        ) -> Bool {
            let row = expectation.row
            switch outcome {
            case .success(let decoded):
                if let expected {
                    if !decoded.same(as: expected) {
                        Issue.record(
                            "\(path): \(S.self) from \(row) decoded as \(decoded), expected \(expected)")
                    }
                } else {
                    Issue.record(
                        "\(path): \(S.self) decoded from \(row), expected \(String(describing: expectation.failure))"
                    )
                }
                return true
            case .failure(let error as RowDecodingError):
                if let failure = expectation.failure {
                    if error.column != failure.column || !failure.kind.matches(error) {
                        Issue.record(
                            "\(path): \(S.self) from \(row) failed with \(error); expected \(failure)")
                    }
                } else {
                    Issue.record(
                        "\(path): \(S.self) from \(row) failed: \(error); expected \(String(describing: expected))"
                    )
                }
            case .failure(let error):
                Issue.record("\(path): \(S.self) from \(row) threw \(error), not a RowDecodingError")
            }
            return false
        }

        private static func generator<S: FuzzShape>(_ shape: S.Type) -> (String, inout FuzzSource) ->
            FuzzValue
        {
            let likely = Dictionary(uniqueKeysWithValues: S.columns.map { ($0.key, $0.likely) })
            return { key, source in
                // `chaos` is smuggled through the key: see ``randomRow(_:_:)``.
                source.chance(source.chaos) ? source.fuzzValue() : .value(likely[key]?(&source) ?? .null)
            }
        }

        /// A row for a shape; some rows are almost valid, others mostly noise.
        private func randomRow<S: FuzzShape>(
            _ shape: S.Type, _ source: inout FuzzSource, values: (String, inout FuzzSource) -> FuzzValue
        ) -> FuzzRow {
            source.chaos = source.pick([0.01, 0.05, 0.2, 0.6])
            return FuzzRow.random(keys: S.columns.map(\.key), chaos: source.chaos, &source, value: values)
        }

        /// The statement path: each case is one query, `SELECT ? AS "col", ...`, decoded straight
        /// from the statement; invalid UTF-8 TEXT included.
        private func fuzzStatements<S: FuzzShape>(_ shape: S.Type, seed: UInt64, cases: Int) throws {
            let db = try Database(.inMemory)
            var source = FuzzSource(seed: seed)
            let values = Self.generator(S.self)
            var decoded = 0
            for _ in 0..<cases {
                let row = randomRow(S.self, &source, values: values)
                var expectation = FuzzExpectation(row: row)
                let expected = S.expected(&expectation)
                let outcome = Result<S, any Error> {
                    guard let value = try db.fetchOne(S.self, sql: row.sql) else { throw FuzzFailure.missing }
                    return value
                }
                if compare(outcome, expectation, expected, path: "statement") { decoded += 1 }
            }
            // Both outcomes are reached often, so the expectations are exercised both ways.
            #expect(decoded > cases / 100 && decoded < cases / 2, "\(decoded) of \(cases) decoded")
        }

        /// The copied-row path: rows of one column layout are fetched together as ``Row`` values
        /// (`SELECT ... UNION ALL SELECT ...`), checked against the generated values, then decoded
        /// one by one with ``RowDecoder``.
        private func fuzzCopiedRows<S: FuzzShape>(_ shape: S.Type, seed: UInt64, cases: Int) throws {
            let db = try Database(.inMemory)
            var source = FuzzSource(seed: seed)
            let values = Self.generator(S.self)
            let batch = 100
            var decoded = 0
            for _ in 0..<(cases / batch) {
                let layout = randomRow(S.self, &source, values: values)
                var rows: [FuzzRow] = []
                var sql = SQL("")
                for index in 0..<batch {
                    var row = layout
                    // A copied row cannot hold TEXT that is not UTF-8: that stays a blob here.
                    row.values = layout.names.map { key in
                        switch values(key, &source) {
                        case .invalidText(let bytes): .value(.blob(bytes))
                        case let value: value
                        }
                    }
                    rows.append(row)
                    if index > 0 { sql.append(" UNION ALL ") }
                    sql.append(row.sql)
                }
                let copied = try db.fetchAll(Row.self, sql: sql)
                #expect(copied.count == batch)
                for (row, copy) in zip(rows, copied) {
                    let bound = row.values.map { (value: FuzzValue) -> DatabaseValue in
                        if case .value(let stored) = value { stored } else { .null }
                    }
                    if copy.values != bound || copy.columnNames != row.names {
                        Issue.record("\(row) was copied as \(copy)")
                    }
                    var expectation = FuzzExpectation(row: row)
                    let expected = S.expected(&expectation)
                    let outcome = Result<S, any Error> { try RowDecoder().decode(S.self, from: copy) }
                    if compare(outcome, expectation, expected, path: "copied row") { decoded += 1 }
                }
            }
            #expect(decoded > cases / 100 && decoded < cases / 2, "\(decoded) of \(cases) decoded")
        }

        @Test func primitiveRowsFromStatements() throws {
            try fuzzStatements(FlatShape.self, seed: 0xF1A7, cases: 10_000)
        }

        @Test func foundationRowsFromStatements() throws {
            try fuzzStatements(FoundationShape.self, seed: 0xF0C5, cases: 10_000)
        }

        @Test func jsonRowsFromStatements() throws {
            try fuzzStatements(JSONShape.self, seed: 0x1503, cases: 10_000)
        }

        @Test func primitiveCopiedRows() throws {
            try fuzzCopiedRows(FlatShape.self, seed: 0xC0F1A7, cases: 30_000)
        }

        @Test func foundationCopiedRows() throws {
            try fuzzCopiedRows(FoundationShape.self, seed: 0xC0F0C5, cases: 25_000)
        }

        @Test func jsonCopiedRows() throws {
            try fuzzCopiedRows(JSONShape.self, seed: 0xC01503, cases: 15_000)
        }
    }
}
