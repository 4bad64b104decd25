import Foundation
import LiteRecord
import Testing

// Projections (`select`) and grouping (`group(by:)` with aggregates) on both backends: the same
// source builds each query, and the rows read back are compared with what Swift computes from
// the inserted models.

/// Some columns of a `TextRecord`, JSON ones included.
struct TextSummary: Decodable, Equatable {
    var id: Int64
    var text: String
    var nick: String?
    var tags: [String]
    var address: TextAddress?

    init(_ record: TextRecord) {
        (id, text, nick, tags, address) = (
            record.id ?? -1, record.text, record.nick, record.tags, record.address
        )
    }
}

/// A result type whose keys (so the selected names) are hostile SQL identifiers.
struct QuotedNames: Decodable, Equatable {
    var label: String
    var twice: Int

    enum CodingKeys: String, CodingKey {
        case label = "la\"bel 'x'; --"
        case twice = "two\"\""
    }
}

/// The aggregates of one level's `TextRecord`s.
struct LevelGroup: Decodable, Equatable {
    var level: Int
    var rows: Int
    var mathSum: Int
    var mathMax: Int?
    var nickMin: String?
    var mathAverage: Double?
}

/// The aggregates of one team's `ParityRecord`s: booleans, dates, doubles and 64-bit integers.
struct TeamGroup: Decodable, Equatable {
    var team: ParityTeam?
    var members: Int
    var allFlags: Bool?
    var anyFlag: Bool?
    var firstJoined: Date?
    var lastJoined: Date?
    var ratioSum: Double
    var bigSum: Int64
    var bonusMin: Int?
}

/// A model whose table and column names are hostile SQL: quotes, `;`, `--`, a keyword.
struct HostileColumns: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int

    enum CodingKeys: String, CodingKey {
        case id
        case name = "na\"me'; --"
        case score = "select"
    }

    static let schema = Schema<HostileColumns>(table: "hostile \"columns\"; --")
}

/// The hostile name column, selected by its key.
struct HostileName: Decodable, Equatable {
    var name: String

    enum CodingKeys: String, CodingKey { case name = "na\"me'; --" }
}

/// A group of `HostileColumns` by name.
struct HostileGroup: Decodable, Equatable {
    var name: String
    var total: Int

    enum CodingKeys: String, CodingKey {
        case name = "na\"me'; --"
        case total = "to'tal\""
    }
}

/// Result types that do not fit `TextRecord`'s columns.
struct ProjectionMissingField: Decodable {
    var text: String
    var absent: Int
}
struct ProjectionWrongType: Decodable { var text: Int }
struct ProjectionNoColumn: Decodable { var nothing: Int }
struct ProjectionTotal: Decodable { var total: Int }

enum ProjectionParityChecks {
    /// `select(T.self)` and `select(T.self) { ... }`: the rows Swift selects, values unchanged.
    static func projections(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let records = try QueryLanguageParityChecks.insertRandom(db, count: 60, seed: 21)
        let byID = records.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        let query = db.query(TextRecord.self).order { $0.id.ascending }

        let selected = try query.where { $0.level >= 2 }.select(TextSummary.self).fetchAll()
        #expect(selected == byID.filter { $0.level >= 2 }.map(TextSummary.init), "\(backend.name)")
        #expect(
            try query.select(TextSummary.self).fetchOne() == byID.first.map(TextSummary.init),
            "\(backend.name)")
        let third = try query.limit(5, offset: 2).select(TextSummary.self).fetchOne()
        #expect(third == TextSummary(byID[2]), "\(backend.name): fetchOne keeps the offset")
        #expect(try query.limit(0, offset: nil).select(TextSummary.self).fetchOne() == nil, "\(backend.name)")
        let page = try query.limit(4, offset: 10).select(TextSummary.self).fetchAll()
        #expect(page == byID[10..<14].map(TextSummary.init), "\(backend.name)")

        // Hostile values select exactly the rows holding them, and read back unchanged.
        for needle in ["O'Brien", "\"q\"", "; DROP TABLE text_records;", "--", "\\", "%"] {
            let found = try query.where { $0.text.contains(needle) }.select(TextSummary.self).fetchAll()
            let expected = byID.filter { $0.text.bytesContain(needle) }.map(TextSummary.init)
            #expect(found == expected, "\(backend.name): \(needle)")
        }
        let exact = byID.first { !$0.text.isEmpty }?.text ?? ""
        let equal = try query.where { $0.text == exact }.select(TextSummary.self).fetchAll()
        #expect(equal == byID.filter { $0.text.bytesEqual(exact) }.map(TextSummary.init), "\(backend.name)")

        // Names with quotes, `;` and `--` are identifiers, quoted; expressions are selected too.
        let quoted = try query.select(QuotedNames.self) {
            [$0.text.as("la\"bel 'x'; --"), ($0.level * 2).as("two\"\"")]
        }.fetchAll()
        #expect(quoted == byID.map { QuotedNames(label: $0.text, twice: $0.level * 2) }, "\(backend.name)")
        let one = try query.where { $0.level == byID[0].level }.select(QuotedNames.self) {
            [$0.text.as("la\"bel 'x'; --"), ($0.level * 2).as("two\"\"")]
        }.fetchOne()
        #expect(one == QuotedNames(label: byID[0].text, twice: byID[0].level * 2), "\(backend.name)")
        // Nothing was executed from the hostile text: every row is still there.
        #expect(try db.query(TextRecord.self).count() == records.count, "\(backend.name)")

        try hostileColumnNames(db, backend)
    }

    /// Columns named with quotes, `;`, `--` and a keyword are selected, grouped and summed.
    private static func hostileColumnNames(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var rows: [HostileColumns] = []
        for (index, name) in ["O'Brien", "\"; DROP TABLE x; --", "O'Brien", "select"].enumerated() {
            var row = HostileColumns(id: nil, name: name, score: index + 1)
            try db.insert(&row)
            rows.append(row)
        }
        let query = db.query(HostileColumns.self)
        let names = try query.order { $0.id.ascending }.select(HostileName.self).fetchAll()
        #expect(names == rows.map { HostileName(name: $0.name) }, "\(backend.name)")
        let groups = try query.group(by: \.name).order { $0.name.ascending }.select(HostileGroup.self) {
            [$0.name.as("na\"me'; --"), $0.score.sum.as("to'tal\"")]
        }.fetchAll()
        #expect(
            groups == [
                HostileGroup(name: "\"; DROP TABLE x; --", total: 2), HostileGroup(name: "O'Brien", total: 4),
                HostileGroup(name: "select", total: 4),
            ], "\(backend.name)")
        #expect(try query.group(by: \.name).count() == 3, "\(backend.name)")
    }

    /// `group(by:)` with `rowCount`, `sum`, `min`, `max` and `average`, and `count()` of groups.
    static func grouping(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let records = try QueryLanguageParityChecks.insertRandom(db, count: 90, seed: 5)
        let query = db.query(TextRecord.self)
        let groups = try query.group(by: \.level).order { $0.level.ascending }.select(LevelGroup.self) {
            [
                $0.level.as("level"), $0.rowCount.as("rows"), $0.scores["math"].sum.as("mathSum"),
                $0.scores["math"].max.as("mathMax"), $0.nick.min.as("nickMin"),
                $0.scores["math"].average.as("mathAverage"),
            ]
        }.fetchAll()
        let expected = Dictionary(grouping: records, by: \.level).sorted { $0.key < $1.key }.map {
            level, rows in
            let maths = rows.compactMap { $0.scores["math"] }
            return LevelGroup(
                level: level, rows: rows.count, mathSum: maths.reduce(0, +), mathMax: maths.max(),
                nickMin: rows.compactMap(\.nick).min { $0.bytesPrecede($1) },
                mathAverage: maths.isEmpty ? nil : Double(maths.reduce(0, +)) / Double(maths.count))
        }
        #expect(roundingAverages(groups, like: expected) == expected, "\(backend.name)")
        #expect(try query.group(by: \.level).count() == expected.count, "\(backend.name): count of groups")
        #expect(try query.group(by: \.level).limit(3, offset: nil).count() == 3, "\(backend.name)")

        // A condition narrows the rows before grouping; two keys group by both.
        let narrowed = try query.where { $0.text.contains("a") }.group(by: \.level).order {
            $0.level.ascending
        }
        .select(LevelGroup.self) {
            [
                $0.level.as("level"), $0.rowCount.as("rows"), $0.scores["math"].sum.as("mathSum"),
                $0.scores["math"].max.as("mathMax"), $0.nick.min.as("nickMin"),
                $0.scores["math"].average.as("mathAverage"),
            ]
        }.fetchAll()
        let withA = records.filter { $0.text.bytesContain("a") }
        #expect(narrowed.map(\.level) == Set(withA.map(\.level)).sorted(), "\(backend.name)")
        #expect(narrowed.map(\.rows).reduce(0, +) == withA.count, "\(backend.name)")
        let pairs = Set(records.map { "\($0.level)|\($0.nick ?? "<nil>")" })
        #expect(try query.group(by: \.level, \.nick).count() == pairs.count, "\(backend.name)")

        try groupingTypedAggregates(db, backend)
    }

    /// Aggregates of booleans, dates, doubles and `Int64`, grouped by an optional enum.
    private static func groupingTypedAggregates(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var generator = SplitMix64(state: 77)
        var records: [ParityRecord] = []
        for index in 0..<70 {
            var record = ParityRecord.random(index, using: &generator)
            record.big = Int64.random(in: -1 << 40...1 << 40, using: &generator)
            try db.insert(&record)
            records.append(record)
        }
        let groups = try db.query(ParityRecord.self).group(by: \.team)
            .order { $0.team.ascending(nulls: .last) }
            .select(TeamGroup.self) {
                [
                    $0.team.as("team"), $0.rowCount.as("members"), $0.flag.min.as("allFlags"),
                    $0.flag.max.as("anyFlag"), $0.joinedAt.min.as("firstJoined"),
                    $0.joinedAt.max.as("lastJoined"), $0.ratio.sum.as("ratioSum"), $0.big.sum.as("bigSum"),
                    $0.bonus.min.as("bonusMin"),
                ]
            }.fetchAll()
        let teams: [ParityTeam?] = [.blue, .red, nil]
        let expected = teams.map { team in
            let rows = records.filter { $0.team == team }
            return TeamGroup(
                team: team, members: rows.count, allFlags: rows.allSatisfy(\.flag),
                anyFlag: rows.contains(where: \.flag), firstJoined: rows.map(\.joinedAt).min(),
                lastJoined: rows.map(\.joinedAt).max(), ratioSum: rows.map(\.ratio).reduce(0, +),
                bigSum: rows.map(\.big).reduce(0, +), bonusMin: rows.compactMap(\.bonus).min())
        }
        // Sums of doubles agree to rounding (the backends may add in another order).
        var actual = groups
        for index in actual.indices where index < expected.count {
            if abs(actual[index].ratioSum - expected[index].ratioSum) < 1e-9 {
                actual[index].ratioSum = expected[index].ratioSum
            }
        }
        #expect(actual == expected, "\(backend.name)")
    }

    /// Averages within 1e-9 of Swift's are taken as equal (the backends round differently).
    private static func roundingAverages(_ groups: [LevelGroup], like expected: [LevelGroup]) -> [LevelGroup]
    {
        zip(groups, expected).map { got, want in
            var got = got
            if let value = got.mathAverage, let wanted = want.mathAverage, abs(value - wanted) < 1e-9 {
                got.mathAverage = wanted
            }
            return got
        } + groups.dropFirst(expected.count)
    }

    /// A projection that cannot be built or decoded fails with the same error on both backends.
    static func errors(_ db: some ModelContext, _ backend: ParityBackend) throws {
        _ = try QueryLanguageParityChecks.insertRandom(db, count: 3, seed: 8)
        let query = db.query(TextRecord.self).order { $0.id.ascending }

        let missing = #expect(throws: RowDecodingError.self) {
            try query.select(ProjectionMissingField.self).fetchAll()
        }
        #expect(missing?.isMissingColumn == true, "\(backend.name): \(String(describing: missing))")
        #expect(missing?.column == "absent", "\(backend.name)")
        let streamed = #expect(throws: RowDecodingError.self) {
            // swift-format-ignore: ReplaceForEachWithForLoop
            try query.select(ProjectionMissingField.self).forEach { _ in }
        }
        #expect(streamed?.isMissingColumn == true, "\(backend.name): \(String(describing: streamed))")
        let selectedMissing = #expect(throws: RowDecodingError.self) {
            try query.select(ProjectionMissingField.self) { [$0.text.as("text")] }.fetchOne()
        }
        #expect(selectedMissing?.column == "absent", "\(backend.name)")

        let mismatch = #expect(throws: RowDecodingError.self) {
            try query.select(ProjectionWrongType.self).fetchAll()
        }
        #expect(mismatch?.isTypeMismatch == true, "\(backend.name): \(String(describing: mismatch))")
        #expect(mismatch?.column == "text", "\(backend.name)")

        let noColumn = #expect(throws: SchemaError.self) {
            try query.select(ProjectionNoColumn.self).fetchAll()
        }
        #expect(noColumn?.message.contains("ProjectionNoColumn") == true, "\(backend.name)")
        let empty = #expect(throws: SchemaError.self) {
            try query.select(ProjectionTotal.self) { _ in [] }.fetchAll()
        }
        #expect(empty?.message.contains("at least one column") == true, "\(backend.name)")
        let computed = #expect(throws: SchemaError.self) {
            try query.group(by: \.text.count).select(ProjectionTotal.self) { [$0.rowCount.as("total")] }
                .fetchAll()
        }
        #expect(computed?.message.contains("group by") == true, "\(backend.name)")
        // The database is untouched and usable.
        #expect(try query.count() == 3, "\(backend.name)")
    }
}
