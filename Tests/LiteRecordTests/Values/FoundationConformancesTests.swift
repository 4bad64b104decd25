import Foundation
import LiteRecord
import Testing

/// `UUID`, `URL` and `Decimal` as column values: storage, round trips through a database,
/// accepted alternative forms and every error.
@Suite struct FoundationConformancesTests {
    /// Stores `values` in a fresh table and reads them back in order, with their storage class.
    static func roundTrip<T: DatabaseValueConvertible>(_ values: [T]) throws -> [(T, String)] {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v \(SQL(T.databaseColumnType.rawValue)))")
        try db.transaction { tx in
            for (id, value) in values.enumerated() {
                try tx.execute(sql: "INSERT INTO t VALUES (\(id), \(value))")
            }
        }
        return try db.fetchAll(Row.self, sql: "SELECT v, typeof(v) FROM t ORDER BY id").map {
            (try $0.value(T.self, at: 0), try $0.value(String.self, at: 1))
        }
    }

    /// The error reading `value` as `T` throws.
    static func readError<T: DatabaseValueConvertible>(_ type: T.Type, _ value: DatabaseValue) throws
        -> ValueConversionError
    {
        try #require(throws: ValueConversionError.self) { try T.fromDatabaseValue(value) }
    }

    // MARK: - UUID

    @Test func uuidIsUppercaseCanonicalText() throws {
        let uuid = try #require(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
        #expect(UUID.databaseColumnType == .text)
        #expect(try uuid.databaseValue() == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        for _ in 0..<1000 {
            let random = UUID()
            #expect(try random.databaseValue() == .text(random.uuidString))
        }
    }

    @Test func uuidRoundTripsThroughDatabase() throws {
        let uuids =
            (0..<500).map { _ in UUID() } + [
                UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
            ]
        let read = try Self.roundTrip(uuids)
        #expect(read.map(\.0) == uuids)
        #expect(read.allSatisfy { $0.1 == "text" })
    }

    @Test func uuidReadsLowercaseAndMixedCaseText() throws {
        let expected = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try UUID.fromDatabaseValue(.text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f")) == expected)
        #expect(try UUID.fromDatabaseValue(.text("E621e1f8-C36c-495A-93fC-0c247a3E6E5f")) == expected)
    }

    @Test func uuidReadsSixteenByteBlob() throws {
        let bytes: [UInt8] = [
            0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F,
        ]
        let read = try UUID.fromDatabaseValue(.blob(Data(bytes)))
        #expect(read.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        // A blob column written by another tool.
        let db = try Database(.inMemory)
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT x'E621E1F8C36C495A93FC0C247A3E6E5F'"))
        #expect(try row.value(UUID.self, at: 0) == read)
    }

    @Test(arguments: [
        "", "not-a-uuid", "E621E1F8C36C495A93FC0C247A3E6E5F", "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}",
        "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5FF",
        "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8C-36C-495A-93FC-0C247A3E6E5F",
        "E621E1F8-C36C-495A-93FC-0C247A3E6E5 ", " E621E1F8-C36C-495A-93FC-0C247A3E6E5",
        "E621E1F8_C36C_495A_93FC_0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6É5",
    ])
    func uuidRejectsInvalidText(text: String) throws {
        let error = try Self.readError(UUID.self, .text(text))
        #expect(error.value == .text(text))
        #expect(
            error.description.contains("as UUID: expected 32 hexadecimal digits grouped 8-4-4-4-12"),
            "\(error)")
    }

    @Test func uuidRejectsOtherValues() throws {
        let blob = try Self.readError(UUID.self, .blob(Data(repeating: 1, count: 15)))
        #expect(blob.description.contains("as UUID: a UUID blob has 16 bytes, not 15"), "\(blob)")
        #expect(try Self.readError(UUID.self, .blob(Data())).description.contains("not 0"))
        #expect(
            try Self.readError(UUID.self, .integer(1)).description == "cannot read INTEGER value 1 as UUID")
        #expect(try Self.readError(UUID.self, .null).description == "cannot read NULL value NULL as UUID")
        #expect(try UUID?.fromDatabaseValue(.null) == nil)
    }

    // MARK: - URL

    @Test func urlRoundTripsThroughDatabase() throws {
        let urls =
            try [
                "https://example.com", "https://example.com/a/b?c=d&e=%20f#g", "mailto:someone@example.com",
                "ftp://user:pass@host:21/path", "urn:isbn:0451450523", "https://[::1]:8080/",
                "https://example.com/%E2%9C%93", "data:text/plain;base64,SGVsbG8=", "relative/path", "?q=1",
            ].map { try #require(URL(string: $0)) } + [URL(fileURLWithPath: "/tmp/a file.txt")]
        #expect(URL.databaseColumnType == .text)
        let read = try Self.roundTrip(urls)
        #expect(read.map(\.0) == urls)
        #expect(read.map(\.0.absoluteString) == urls.map(\.absoluteString))
        #expect(read.allSatisfy { $0.1 == "text" })
        #expect(
            try URL(fileURLWithPath: "/tmp/a file.txt").databaseValue() == .text("file:///tmp/a%20file.txt"))
    }

    @Test func relativeUrlIsStoredResolved() throws {
        let base = try #require(URL(string: "https://example.com/a/"))
        let relative = try #require(URL(string: "b/c?d", relativeTo: base))
        #expect(try relative.databaseValue() == .text("https://example.com/a/b/c?d"))
        #expect(
            try URL.fromDatabaseValue(relative.databaseValue()) == URL(string: "https://example.com/a/b/c?d"))
    }

    @Test(arguments: ["", "a b", "http://[x", "https://exa mple.com", "http://example.com/<>"])
    func urlRejectsInvalidText(text: String) throws {
        let error = try Self.readError(URL.self, .text(text))
        #expect(error.description.contains("as URL: not a valid URL"), "\(error)")
    }

    @Test func urlRejectsOtherValues() throws {
        #expect(try Self.readError(URL.self, .integer(1)).description == "cannot read INTEGER value 1 as URL")
        #expect(try Self.readError(URL.self, .blob(Data("https://e.com".utf8))).description.contains("BLOB"))
        #expect(try URL?.fromDatabaseValue(.null) == nil)
    }

    // MARK: - Decimal

    static let decimalTexts = [
        "0", "1", "-1", "0.1", "-0.1", "123.456", "3.14159265358979323846264338327950288",
        "12345678901234567890123456789012345678", "-12345678901234567890123456789012345678",
        "340282366920938463463374607431768211455", "0.00000000000000000000000000000000000001",
        "1e100", "-1.5e-100", "9.99e120", "1e-127",
    ]

    @Test func decimalRoundTripsExactly() throws {
        var decimals = try Self.decimalTexts.map {
            try #require(Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")))
        }
        decimals += [
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude,
            Decimal(Int64.max), Decimal(Int64.min), Decimal(UInt64.max), .pi,
        ]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let digits = (0..<Int.random(in: 1...38, using: &random)).map { _ in
                String(Int.random(in: 0...9, using: &random))
            }
            let text =
                (Bool.random(using: &random) ? "-" : "") + digits.joined()
                + "e\(Int.random(in: -100...100, using: &random))"
            decimals.append(try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))))
        }
        #expect(Decimal.databaseColumnType == .text)
        let read = try Self.roundTrip(decimals)
        for ((value, storage), decimal) in zip(read, decimals) {
            #expect(value == decimal)
            #expect(value.description == decimal.description)
            #expect(storage == "text")
        }
        #expect(try Decimal(string: "-1234.5678")!.databaseValue() == .text("-1234.5678"))
    }

    @Test(arguments: [
        ("12", "12"), ("-0.5", "-0.5"), ("+7", "7"), ("1.25e-3", "0.00125"), ("1E3", "1000"), (".5", "0.5"),
        ("5.", "5"), ("000123.4500", "123.45"), ("-0", "0"),
        ("12345678901234567890123456789012345678000000", "12345678901234567890123456789012345678000000"),
    ])
    func decimalReadsText(text: String, expected: String) throws {
        #expect(try Decimal.fromDatabaseValue(.text(text)).description == expected)
    }

    @Test func decimalReadsNumbers() throws {
        #expect(try Decimal.fromDatabaseValue(.integer(.max)) == Decimal(Int64.max))
        #expect(try Decimal.fromDatabaseValue(.integer(.min)) == Decimal(Int64.min))
        #expect(try Decimal.fromDatabaseValue(.integer(0)) == 0)
        // A REAL reads as the shortest decimal that is the same double.
        #expect(try Decimal.fromDatabaseValue(.real(0.1)).description == "0.1")
        #expect(try Decimal.fromDatabaseValue(.real(0.1 + 0.2)).description == "0.30000000000000004")
        #expect(try Decimal.fromDatabaseValue(.real(-1.5e-7)).description == "-0.00000015")
        #expect(try Decimal.fromDatabaseValue(.real(1e16)).description == "10000000000000000")
        #expect(try Decimal.fromDatabaseValue(.real(-0.0)).description == "0")
    }

    @Test(arguments: [
        ("", "expected a decimal number"), ("abc", "expected a decimal number"),
        ("12abc", "expected a decimal number"), (" 12", "expected a decimal number"),
        ("12 ", "expected a decimal number"), ("1e", "expected a decimal number"),
        ("NaN", "expected a decimal number"), ("inf", "expected a decimal number"),
        ("0x10", "expected a decimal number"), ("1,5", "expected a decimal number"),
        ("--1", "expected a decimal number"), ("1e400", "the magnitude is beyond what Decimal can hold"),
        ("1e-400", "the magnitude is beyond what Decimal can hold"),
        (
            "1234567890123456789012345678901234567890123",
            "it has more significant digits than Decimal holds (38)"
        ),
        (
            "0.1234567890123456789012345678901234567890123",
            "it has more significant digits than Decimal holds (38)"
        ),
    ])
    func decimalRejectsInvalidText(text: String, reason: String) throws {
        let error = try Self.readError(Decimal.self, .text(text))
        #expect(error.value == .text(text))
        #expect(error.description.contains("as Decimal: \(reason)"), "\(error)")
    }

    @Test func decimalRejectsOtherValues() throws {
        #expect(
            try Self.readError(Decimal.self, .real(.infinity)).description.contains("not a finite number"))
        #expect(
            try Self.readError(Decimal.self, .real(1e300)).description.contains(
                "the magnitude is beyond what Decimal can hold"))
        #expect(
            try Self.readError(Decimal.self, .blob(Data([1]))).description
                == "cannot read BLOB value x'01' as Decimal")
        #expect(
            try Self.readError(Decimal.self, .null).description == "cannot read NULL value NULL as Decimal")
        let error = try #require(throws: ValueConversionError.self) { try Decimal.nan.databaseValue() }
        #expect(
            error.description
                == "cannot store Decimal: the value is NaN, which LiteRecord refuses on every backend, as not "
                + "every database keeps it; use an optional and nil for a missing value")
    }
}
