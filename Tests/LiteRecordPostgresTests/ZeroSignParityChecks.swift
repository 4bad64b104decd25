import Foundation
import LiteRecord
import Testing

// A `Double` or `Float` `-0.0` keeps its sign where the storage can hold it, and the places it
// cannot are the documented ones ("Negative zero" in the Storing values article): a SQLite
// REAL column stores a whole number as an integer (`-0.0 == 0`), and `jsonb` stores numbers as
// `numeric`, which has no negative zero. In every query `-0.0` and `0.0` compare equal, as in
// Swift.

struct ZeroSignInner: Codable, Equatable, Sendable {
    var ratio: Double
    var scale: Float
}

struct ZeroSign: Model, Equatable {
    var id: Int64?
    var ratio: Double
    var scale: Float
    var bonus: Double?
    var inner: ZeroSignInner
    var ratios: [Double]
    static let schema = Schema<ZeroSign>(table: "zero_signs")

    static let negative = ZeroSign(
        id: nil, ratio: -0.0, scale: -0.0, bonus: -0.0, inner: ZeroSignInner(ratio: -0.0, scale: -0.0),
        ratios: [-0.0, 1])
}

struct ZeroSignMembers: Decodable {
    var ratio: Double
    var scale: Float
    var largest: Double?
}

enum ZeroSignParityChecks {
    static func negativeZero(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var one = ZeroSign.negative
        try db.insert(&one)
        _ = try db.insert(contentsOf: [ZeroSign.negative, ZeroSign.negative])
        var updated = ZeroSign(
            id: nil, ratio: 1, scale: 1, bonus: 1, inner: ZeroSignInner(ratio: 1, scale: 1), ratios: [])
        try db.insert(&updated)
        updated.ratio = -0.0
        (updated.scale, updated.bonus, updated.inner, updated.ratios) = (
            -0.0, -0.0, ZeroSign.negative.inner, [-0.0, 1]
        )
        try db.update(updated)

        let rows = try db.query(ZeroSign.self).order { $0.id }.fetchAll()
        #expect(rows.count == 4, "\(backend.name)")
        // A column of its own: PostgreSQL's `double precision` keeps the sign, SQLite's REAL does not.
        let columnSign: FloatingPointSign = backend.isSQLite ? .plus : .minus
        // Inside JSON: SQLite's JSON text keeps it, PostgreSQL's `jsonb` does not.
        let jsonSign: FloatingPointSign = backend.isSQLite ? .minus : .plus
        for row in rows {
            let label = "\(backend.name): row \(row.id ?? -1)"
            #expect(row == ZeroSign.negative.with(id: row.id), "\(label)")  // equal, as in Swift
            #expect(row.ratio.sign == columnSign, "\(label)")
            #expect(row.scale.sign == columnSign, "\(label)")
            #expect(row.bonus?.sign == columnSign, "\(label)")
            #expect(row.inner.ratio.sign == jsonSign, "\(label)")
            #expect(row.inner.scale.sign == jsonSign, "\(label)")
            #expect(row.ratios.first?.sign == jsonSign, "\(label)")
        }

        // A JSON member read by a query is 0.0 on both (`->>` reads `-0` as the integer 0).
        let members = try db.query(ZeroSign.self).group(by: \.id).select(ZeroSignMembers.self) {
            [$0.inner.ratio.as("ratio"), $0.inner.scale.as("scale"), $0.inner.ratio.max.as("largest")]
        }.fetchAll()
        #expect(members.count == 4, "\(backend.name)")
        for member in members {
            #expect(
                [member.ratio.sign, member.scale.sign, member.largest?.sign] == [.plus, .plus, .plus],
                "\(backend.name)")
        }

        // In queries the two zeros are equal, as in Swift.
        let query = db.query(ZeroSign.self)
        #expect(try query.where { $0.ratio == 0.0 && $0.inner.ratio == 0.0 }.count() == 4, "\(backend.name)")
        #expect(try query.where { $0.ratio == -0.0 && $0.bonus == -0.0 }.count() == 4, "\(backend.name)")
        #expect(
            try query.where { $0.ratio < 0 || $0.inner.ratio < 0 || $0.scale > 0 }.count() == 0,
            "\(backend.name)")
        #expect(try query.sum { $0.ratio } == 0, "\(backend.name)")
    }
}

extension ZeroSign {
    func with(id: Int64?) -> ZeroSign {
        var copy = self
        copy.id = id
        return copy
    }
}

@Suite(.offCooperativePool) struct SQLiteZeroSignParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func negativeZero() throws { try backend.run { try ZeroSignParityChecks.negativeZero($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteFileZeroSignParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func negativeZero() throws { try backend.run { try ZeroSignParityChecks.negativeZero($0, $1) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresZeroSignParityTests {
    let backend = ParityBackend.postgres
    @Test func negativeZero() throws { try backend.run { try ZeroSignParityChecks.negativeZero($0, $1) } }
}
