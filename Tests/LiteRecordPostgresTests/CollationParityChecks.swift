import Foundation
import LiteRecord
import Testing

// Text order on any locale: every comparison, ordering and aggregate the query language builds
// over text (plain columns, optional columns, JSON members, dictionary values, array elements,
// lowercased() expressions, projections, keyset pages, a table made by hand) gives the answer
// Swift gives on the decoded models, which is byte order (UTF-8) for these NFC strings. SQLite
// compares such text by bytes (BINARY); PostgreSQL compares by the collation of the expression,
// which for text LiteRecord did not store itself in a `COLLATE "C"` column is the database's
// (an ICU en-US database puts `_z` before `a`, `a` before `A`, `ä` before `b`). The checks run on
// SQLite and on PostgreSQL (`.ci/run` runs them on a C and on an ICU en-US database).

struct CollationNick: Codable, Equatable, Sendable {
    var nick: String
    var aliases: [String]
}

struct CollationWord: Model, Equatable {
    var id: Int64?
    var word: String
    var alias: String?
    var info: CollationNick
    var labels: [String: String]
    static let schema = Schema<CollationWord>(table: "collation_parity_words")
}

/// A row of a table created by hand (SQL without a collation), read by a model.
struct HandMadeWord: Model, Equatable {
    var id: Int64?
    var word: String
    static let schema = Schema<HandMadeWord>(table: "collation_parity_hand_made")
}

/// A projection of the JSON member the checks sort by.
struct CollationNickRow: Decodable, Equatable {
    var nick: String
}

/// A comparison operator, as a query builds it and as Swift evaluates it.
private struct TextOperator: Sendable {
    let name: String
    let column: @Sendable (Column<String>, String) -> Condition
    let optionalColumn: @Sendable (Column<String?>, String) -> Condition
    let swift: @Sendable (String, String) -> Bool

    /// Swift's answer for an optional value: `nil` is never ordered, equal to no string, and
    /// different from every string.
    func swift(_ value: String?, _ probe: String) -> Bool {
        guard let value else { return name == "!=" }
        return swift(value, probe)
    }
}

enum CollationParityChecks {
    /// Strings whose byte order differs from every common locale's order: punctuation, case,
    /// accents, a space, the empty string, an emoji.
    static let words = ["_z", "a", "b", "é", "Z", "A", "ä", "a b", "ab", "", "😀"]

    private static let operators: [TextOperator] = [
        TextOperator(name: "<", column: { $0 < $1 }, optionalColumn: { $0 < $1 }, swift: { $0 < $1 }),
        TextOperator(name: "<=", column: { $0 <= $1 }, optionalColumn: { $0 <= $1 }, swift: { $0 <= $1 }),
        TextOperator(name: ">", column: { $0 > $1 }, optionalColumn: { $0 > $1 }, swift: { $0 > $1 }),
        TextOperator(name: ">=", column: { $0 >= $1 }, optionalColumn: { $0 >= $1 }, swift: { $0 >= $1 }),
        TextOperator(name: "==", column: { $0 == $1 }, optionalColumn: { $0 == $1 }, swift: { $0 == $1 }),
        TextOperator(name: "!=", column: { $0 != $1 }, optionalColumn: { $0 != $1 }, swift: { $0 != $1 }),
    ]

    /// The rows: each word once as `word`, and in other positions as the other values.
    static func rows() -> [CollationWord] {
        let count = words.count
        return words.indices.map { index in
            CollationWord(
                id: Int64(index + 1), word: words[index],
                alias: index % 3 == 0 ? nil : words[(index + 4) % count],
                info: CollationNick(nick: words[(index + 3) % count], aliases: [words[(index + 5) % count]]),
                labels: index % 4 == 0 ? [:] : ["k": words[(index + 7) % count]])
        }
    }

    private static func filled(_ db: some ModelContext) throws -> [CollationWord] {
        var stored: [CollationWord] = []
        for var row in rows() {
            try db.insert(&row)
            stored.append(row)
        }
        return stored
    }

    /// `<`, `<=`, `>`, `>=`, `==`, `!=` with every word, on every kind of text expression.
    static func comparisons(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let rows = try filled(db)
        for probe in words {
            for op in operators {
                let cases: [(String, (Columns<CollationWord>) -> Condition, (CollationWord) -> Bool)] = [
                    ("word", { op.column($0.word, probe) }, { op.swift($0.word, probe) }),
                    ("alias", { op.optionalColumn($0.alias, probe) }, { op.swift($0.alias, probe) }),
                    ("info.nick", { op.column($0.info.nick, probe) }, { op.swift($0.info.nick, probe) }),
                    (
                        "labels[k]", { op.optionalColumn($0.labels["k"], probe) },
                        { op.swift($0.labels["k"], probe) }
                    ),
                    (
                        "word.lowercased()", { op.column($0.word.lowercased(), probe) },
                        { op.swift($0.word.lowercased(), probe) }
                    ),
                    (
                        "info.nick.lowercased()", { op.column($0.info.nick.lowercased(), probe) },
                        { op.swift($0.info.nick.lowercased(), probe) }
                    ),
                    (
                        "info.aliases element", { $0.info.aliases.contains { op.column($0, probe) } },
                        { $0.info.aliases.contains { op.swift($0, probe) } }
                    ),
                ]
                for (label, condition, swift) in cases {
                    let found = try db.query(CollationWord.self).where(condition).fetchAll()
                    #expect(
                        Set(found.compactMap(\.id)) == Set(rows.filter(swift).compactMap(\.id)),
                        "\(backend.name): \(label) \(op.name) \(probe.debugDescription)")
                }
            }
        }
        // Ranges compare with `>=` and `<=` / `<`.
        for (low, high) in [("A", "a"), ("Z", "b"), ("_z", "é"), ("", "a b")] {
            let found = try db.query(CollationWord.self).where { (low...high).contains($0.info.nick) }
                .fetchAll()
            #expect(
                Set(found.compactMap(\.id))
                    == Set(rows.filter { (low...high).contains($0.info.nick) }.compactMap(\.id)),
                "\(backend.name): \(low.debugDescription)...\(high.debugDescription) contains info.nick")
            let half = try db.query(CollationWord.self).where { (low..<high).contains($0.word) }.fetchAll()
            #expect(
                Set(half.compactMap(\.id))
                    == Set(rows.filter { (low..<high).contains($0.word) }.compactMap(\.id)),
                "\(backend.name): \(low.debugDescription)..<\(high.debugDescription) contains word")
        }
    }

    /// Sorting by every kind of text expression, ascending and descending, and the aggregates.
    static func orderings(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let rows = try filled(db)
        func ids(_ sorted: [CollationWord]) -> [Int64] { sorted.compactMap(\.id) }
        let cases: [(String, (Columns<CollationWord>) -> Ordering, [CollationWord])] = [
            ("word ascending", { $0.word.ascending }, rows.sorted { $0.word < $1.word }),
            ("word descending", { $0.word.descending }, rows.sorted { $0.word > $1.word }),
            ("info.nick ascending", { $0.info.nick.ascending }, rows.sorted { $0.info.nick < $1.info.nick }),
            (
                "info.nick descending", { $0.info.nick.descending },
                rows.sorted { $0.info.nick > $1.info.nick }
            ),
            (
                "alias ascending, nil first", { [$0.alias.ascending(nulls: .first), $0.id.ascending] },
                rows.sorted {
                    ($0.alias == nil ? 0 : 1, $0.alias ?? "", $0.id ?? 0) < (
                        $1.alias == nil ? 0 : 1, $1.alias ?? "", $1.id ?? 0
                    )
                }
            ),
            (
                "labels[k] descending, nil last",
                { [$0.labels["k"].descending(nulls: .last), $0.id.ascending] },
                rows.sorted { left, right in
                    switch (left.labels["k"], right.labels["k"]) {
                    case (let l?, let r?) where l != r: l > r
                    case (nil, .some): false
                    case (.some, nil): true
                    default: (left.id ?? 0) < (right.id ?? 0)
                    }
                }
            ),
            (
                "word.lowercased() ascending", { [$0.word.lowercased().ascending, $0.id.ascending] },
                rows.sorted { ($0.word.lowercased(), $0.id ?? 0) < ($1.word.lowercased(), $1.id ?? 0) }
            ),
            (
                "info.nick.uppercased() descending",
                { [$0.info.nick.uppercased().descending, $0.id.ascending] },
                rows.sorted {
                    ($1.info.nick.uppercased(), $0.id ?? 0) < ($0.info.nick.uppercased(), $1.id ?? 0)
                }
            ),
        ]
        for (label, ordering, expected) in cases {
            let found = try db.query(CollationWord.self).order(ordering).fetchAll()
            #expect(ids(found) == ids(expected), "\(backend.name): \(label)")
        }

        let query = db.query(CollationWord.self)
        #expect(try query.min { $0.word } == rows.map(\.word).min(), "\(backend.name): min word")
        #expect(try query.max { $0.word } == rows.map(\.word).max(), "\(backend.name): max word")
        #expect(try query.min { $0.info.nick } == rows.map(\.info.nick).min(), "\(backend.name): min nick")
        #expect(try query.max { $0.info.nick } == rows.map(\.info.nick).max(), "\(backend.name): max nick")
        #expect(
            try query.min { $0.labels["k"] } == rows.compactMap { $0.labels["k"] }.min(),
            "\(backend.name): min labels[k]")
        #expect(
            try query.max { $0.labels["k"] } == rows.compactMap { $0.labels["k"] }.max(),
            "\(backend.name): max labels[k]")

        // A distinct query sorts as any other (PostgreSQL wants a DISTINCT query's sort terms
        // among its selected columns, which a term stating its collation is not).
        let distinctWords = try query.distinct().order { $0.word.descending }.fetchAll()
        #expect(
            ids(distinctWords) == ids(rows.sorted { $0.word > $1.word }), "\(backend.name): distinct, by word"
        )
        let distinctNicks = try query.distinct().order { $0.info.nick.ascending }.limit(4, offset: 1)
            .fetchAll()
        #expect(
            ids(distinctNicks)
                == Array(ids(rows.sorted { $0.info.nick < $1.info.nick }).dropFirst().prefix(4)),
            "\(backend.name): distinct, by info.nick, limited")

        // A projection of a JSON member, sorted by it.
        let nicks = try query.order { $0.info.nick.descending }
            .select(CollationNickRow.self) { [$0.info.nick.as("nick")] }.fetchAll()
        #expect(
            nicks.map(\.nick) == rows.map(\.info.nick).sorted(by: >), "\(backend.name): nicks, descending")

        // Keyset pages by a text column walk the rows in byte order, none skipped or repeated.
        var walked: [CollationWord] = []
        var cursor: CollationWord?
        repeat {
            let page = try db.query(CollationWord.self).order { $0.word.descending }
                .page(after: cursor, limit: 3).fetchAll()
            walked += page
            cursor = page.count == 3 ? page.last : nil
        } while cursor != nil
        #expect(ids(walked) == ids(rows.sorted { $0.word > $1.word }), "\(backend.name): pages by word")
    }

    /// A text column created without a collation (by hand, in SQL) still compares and sorts by
    /// bytes in the queries LiteRecord builds, whatever the database's collation.
    static func handMadeColumn(_ db: some ModelContext, _ backend: ParityBackend) throws {
        if backend.isSQLite {
            try db.execute(
                sql:
                    "CREATE TABLE collation_parity_hand_made (id INTEGER PRIMARY KEY, word TEXT NOT NULL)")
        } else {
            try db.execute(
                sql:
                    """
                    CREATE TABLE collation_parity_hand_made (
                        id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, word text NOT NULL)
                    """)
        }
        var rows: [HandMadeWord] = []
        for word in words {
            var row = HandMadeWord(id: nil, word: word)
            try db.insert(&row)
            rows.append(row)
        }
        let sorted = try db.query(HandMadeWord.self).order { $0.word.ascending }.fetchAll()
        #expect(sorted.map(\.word) == words.sorted(), "\(backend.name): hand-made column, ascending")
        for probe in words {
            let found = try db.query(HandMadeWord.self).where { $0.word > probe }.fetchAll()
            #expect(
                Set(found.map(\.word)) == Set(words.filter { $0 > probe }),
                "\(backend.name): hand-made column > \(probe.debugDescription)")
        }
        #expect(
            try db.query(HandMadeWord.self).max { $0.word } == words.max(),
            "\(backend.name): hand-made column, max")
    }
}
