import Foundation
import LiteRecord
import Testing

// Keyset pagination (`page(after:limit:)`): walking every page must give exactly the rows of one
// `fetchAll` in the same order, with ties, NULLs and dates stored in other spellings, and must
// neither repeat nor skip a row while rows are inserted or the cursor row is deleted.

private struct PageRow: Model, Equatable {
    var id: Int64?
    var rank: Int?
    var label: String?
    var when: Date?
    var score: Int

    static let schema = Schema<PageRow>(table: "page_rows")
}

/// One sort order: the query's, and the same order in Swift on the decoded models.
private struct PageOrder {
    let name: String
    let sql: (Columns<PageRow>) -> Ordering
    let swift: [(PageRow, PageRow) -> Int]

    /// The Swift order, with the primary key as final tie-breaker (as pages use).
    func precedes(_ lhs: PageRow, _ rhs: PageRow) -> Bool {
        for key in swift {
            let result = key(lhs, rhs)
            if result != 0 { return result < 0 }
        }
        return (lhs.id ?? 0) < (rhs.id ?? 0)
    }
}

/// A Swift sort key: NULLs first or last (SQLite's default: first ascending, last descending).
private func key<T: Comparable>(
    _ value: @escaping (PageRow) -> T?, descending: Bool = false, nullsFirst: Bool? = nil
) -> (PageRow, PageRow) -> Int {
    let nullsFirst = nullsFirst ?? !descending
    return { lhs, rhs in
        switch (value(lhs), value(rhs)) {
        case (nil, nil): return 0
        case (nil, _): return nullsFirst ? -1 : 1
        case (_, nil): return nullsFirst ? 1 : -1
        case (let left?, let right?):
            let result = left < right ? -1 : (left == right ? 0 : 1)
            return descending ? -result : result
        }
    }
}

private var pageOrders: [PageOrder] {
    [
        PageOrder(name: "rank asc", sql: { $0.rank.ascending }, swift: [key(\.rank)]),
        PageOrder(name: "rank desc", sql: { $0.rank.descending }, swift: [key(\.rank, descending: true)]),
        PageOrder(
            name: "when asc nulls last, label desc",
            sql: { [$0.when.ascending(nulls: .last), $0.label.descending] },
            swift: [key(\.when, nullsFirst: false), key(\.label, descending: true)]),
        PageOrder(
            name: "when desc nulls first, rank asc nulls last, score desc",
            sql: {
                [$0.when.descending(nulls: .first), $0.rank.ascending(nulls: .last), $0.score.descending]
            },
            swift: [
                key(\.when, descending: true, nullsFirst: true), key(\.rank, nullsFirst: false),
                key(\.score, descending: true),
            ]),
        PageOrder(
            name: "score asc, label asc, when desc",
            sql: { [$0.score.ascending, $0.label.ascending, $0.when.descending] },
            swift: [key(\.score), key(\.label), key(\.when, descending: true)]),
        PageOrder(
            name: "label desc nulls last, rank desc nulls first",
            sql: { [$0.label.descending(nulls: .last), $0.rank.descending(nulls: .first)] },
            swift: [
                key(\.label, descending: true, nullsFirst: false),
                key(\.rank, descending: true, nullsFirst: true),
            ]
        ),
    ]
}

/// The instants of the generated dates, and other spellings of them another tool could store.
private let dateSpellings: [(date: Date, spellings: [String])] = [
    (
        Date(timeIntervalSince1970: 836_438_400),
        ["1996-07-04 00:00:00.000", "1996-07-04T02:00:00+02:00", "1996-07-04", "1996-07-03T22:00:00-0200"]
    ),
    (Date(timeIntervalSince1970: 836_438_401), ["1996-07-04T00:00:01Z", "1996-07-04 00:00:01"]),
    (Date(timeIntervalSince1970: 1_700_000_000.5), ["2023-11-14 22:13:20.500", "2023-11-14T22:13:20.5Z"]),
]

private struct PageGenerator {
    var random: SeededGenerator

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func row() -> PageRow {
        PageRow(
            id: nil,
            rank: chance(0.25) ? nil : Int.random(in: -2...3, using: &random),
            label: chance(0.25) ? nil : ["a", "b", "B", "", "ab"].randomElement(using: &random),
            when: chance(0.25) ? nil : dateSpellings.randomElement(using: &random)?.date,
            score: Int.random(in: 0...2, using: &random))
    }

    /// Rewrites some dates in another spelling of the same instant, with raw SQL.
    mutating func respellDates(in db: Database) throws {
        for (date, spellings) in dateSpellings {
            let ids = try db.query(PageRow.self).where { $0.when == date }.fetchAll().compactMap(\.id)
            for id in ids where chance(0.5) {
                let spelling = spellings.randomElement(using: &random) ?? spellings[0]
                try db.execute(sql: "UPDATE page_rows SET \"when\" = \(spelling) WHERE id = \(id)")
            }
        }
    }
}

/// Walks every page of `order`, calling `between` with the last page before asking for the next.
private func walk(
    _ db: Database, _ order: PageOrder, random: inout SeededGenerator,
    between: (PageRow) throws -> Void = { _ in }
) throws -> [PageRow] {
    var walked: [PageRow] = []
    var cursor: PageRow?
    while true {
        let size = Int.random(in: 1...13, using: &random)
        let page = try db.query(PageRow.self).order(order.sql).page(after: cursor, limit: size).fetchAll()
        #expect(page.count <= size)
        walked += page
        guard page.count == size, let last = page.last else { return walked }
        cursor = last
        try between(last)
        #expect(walked.count < 10_000, "the walk does not end")
        if walked.count >= 10_000 { return walked }
    }
}

@Suite("Keyset pagination")
struct QueryPaginationTests {
    @Test(arguments: 0..<pageOrders.count)
    func pagesGiveExactlyTheOrderedRows(orderIndex: Int) throws {
        let order = pageOrders[orderIndex]
        for seed in UInt64(1)...4 {
            let db = try Database(.inMemory)
            var generator = PageGenerator(random: SeededGenerator(seed: seed * 7919 + UInt64(orderIndex)))
            _ = try db.insert(contentsOf: (0..<150).map { _ in generator.row() })
            try generator.respellDates(in: db)
            let all = try db.query(PageRow.self).order { [order.sql($0), $0.id.ascending] }.fetchAll()
            // The oracle: the same order in Swift on the decoded models.
            #expect(all.map(\.id) == all.sorted(by: order.precedes).map(\.id), "\(order.name)")
            let walked = try walk(db, order, random: &generator.random)
            #expect(walked.map(\.id) == all.map(\.id), "\(order.name), seed \(seed)")
        }
    }

    @Test(arguments: 0..<pageOrders.count)
    func insertsBetweenPagesNeitherRepeatNorSkipRows(orderIndex: Int) throws {
        let order = pageOrders[orderIndex]
        for seed in UInt64(1)...3 {
            let db = try Database(.inMemory)
            var generator = PageGenerator(random: SeededGenerator(seed: seed * 104_729 + UInt64(orderIndex)))
            let original = try db.insert(contentsOf: (0..<120).map { _ in generator.row() })
            try generator.respellDates(in: db)
            var inserter = PageGenerator(random: SeededGenerator(seed: seed))
            let walked = try walk(db, order, random: &generator.random) { _ in
                // New rows sort anywhere: before the cursor (never seen) or after it (seen once).
                _ = try db.insert(contentsOf: (0..<3).map { _ in inserter.row() })
            }
            let ids = walked.compactMap(\.id)
            #expect(Set(ids).count == ids.count, "no row twice: \(order.name), seed \(seed)")
            #expect(Set(original.compactMap(\.id)).isSubset(of: Set(ids)), "no row skipped: \(order.name)")
            #expect(zip(walked, walked.dropFirst()).allSatisfy { order.precedes($0, $1) }, "\(order.name)")
        }
    }

    @Test(arguments: 0..<pageOrders.count)
    func deletingTheCursorRowBetweenPagesSkipsNothing(orderIndex: Int) throws {
        let order = pageOrders[orderIndex]
        let db = try Database(.inMemory)
        var generator = PageGenerator(random: SeededGenerator(seed: 31 + UInt64(orderIndex)))
        _ = try db.insert(contentsOf: (0..<120).map { _ in generator.row() })
        try generator.respellDates(in: db)
        let all = try db.query(PageRow.self).order { [order.sql($0), $0.id.ascending] }.fetchAll()
        var deleted: Set<Int64> = []
        let walked = try walk(db, order, random: &generator.random) { cursor in
            let id = try #require(cursor.id)
            try db.execute(sql: "DELETE FROM page_rows WHERE id = \(id)")
            deleted.insert(id)
        }
        // Only the cursor rows were deleted, each after it was read: every row is read once.
        #expect(!deleted.isEmpty)
        #expect(walked.map(\.id) == all.map(\.id), "\(order.name)")
        #expect(try db.query(PageRow.self).count() == all.count - deleted.count)
    }

    @Test func pagesOrderUUIDKeysByValueWhateverTheirSpelling() throws {
        struct Token: Model, Equatable {
            var id: UUID
            var group: Int
            static let schema = Schema<Token>(table: "page_tokens")
        }
        let db = try Database(.inMemory)
        var random = SeededGenerator(seed: 5)
        let tokens = (0..<60).map { _ in Token(id: UUID(), group: Int.random(in: 0...2, using: &random)) }
        _ = try db.insert(contentsOf: tokens)
        // Another tool stored some keys in lower case: text comparison would misplace them.
        for token in tokens.prefix(30) {
            try db.execute(
                sql:
                    "UPDATE page_tokens SET id = \(token.id.uuidString.lowercased()) WHERE id = \(token.id.uuidString)"
            )
        }
        let all = try db.query(Token.self).order { [$0.group.descending, $0.id.ascending] }.fetchAll()
        let expected = tokens.sorted {
            $0.group != $1.group ? $0.group > $1.group : $0.id.uuidString < $1.id.uuidString
        }
        #expect(all == expected)
        var walked: [Token] = []
        var cursor: Token?
        repeat {
            let page = try db.query(Token.self).order { $0.group.descending }.page(after: cursor, limit: 7)
                .fetchAll()
            walked += page
            cursor = page.count == 7 ? page.last : nil
        } while cursor != nil
        #expect(walked == all)
    }

    @Test func pagesFollowACollatedColumnAndDecimalValues() throws {
        struct Item: Model, Equatable {
            var id: Int64?
            var name: String
            var price: Decimal
            static let schema = Schema<Item>(table: "page_items").collation(.nocase, for: \.name)
        }
        let db = try Database(.inMemory)
        var random = SeededGenerator(seed: 11)
        let names = ["a", "A", "b", "B", "ab", "aB"]
        let prices = [Decimal(string: "1.5"), Decimal(string: "0.25"), Decimal(10)].compactMap { $0 }
        _ = try db.insert(
            contentsOf: (0..<60).map { _ in
                Item(
                    id: nil, name: names.randomElement(using: &random) ?? "a",
                    price: prices.randomElement(using: &random) ?? 1)
            })
        // Another tool wrote some prices as other text for the same value.
        try db.execute(sql: "UPDATE page_items SET price = '1.50' WHERE price = '1.5' AND id % 2 = 0")
        try db.execute(sql: "UPDATE page_items SET price = '10.0' WHERE price = '10' AND id % 3 = 0")
        let orders: [(Columns<Item>) -> Ordering] = [
            { $0.name.ascending }, { [$0.price.descending, $0.name.descending] },
        ]
        for order in orders {
            let all = try db.query(Item.self).order { [order($0), $0.id.ascending] }.fetchAll()
            var walked: [Item] = []
            var cursor: Item?
            repeat {
                let page = try db.query(Item.self).order(order).page(after: cursor, limit: 4).fetchAll()
                walked += page
                cursor = page.count == 4 ? page.last : nil
            } while cursor != nil && walked.count < 1_000
            #expect(walked.map(\.id) == all.map(\.id))
        }
    }

    @Test func thePrimaryKeyIsTheFinalSortKey() throws {
        let db = try Database(.inMemory)
        _ = try db.insert(
            contentsOf: (0..<5).map { _ in PageRow(id: nil, rank: 1, label: nil, when: nil, score: 0) })
        let query = db.query(PageRow.self).order { $0.rank.descending }.page(after: nil, limit: 2)
        #expect(query.sqlDescription.contains(#"ORDER BY "rank" DESC, "id" ASC LIMIT ?"#))
        #expect(try query.fetchAll().map(\.id) == [1, 2])
        let second = try db.query(PageRow.self).order { $0.rank.descending }
            .page(after: query.fetchAll().last, limit: 2).fetchAll()
        #expect(second.map(\.id) == [3, 4])
    }
}

/// Runs `body`, expecting a ``SchemaError`` whose message contains every fragment.
private func expectSchemaError(
    _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: SchemaError.self, sourceLocation: sourceLocation) { try body() }
    for fragment in fragments {
        #expect(
            error?.message.contains(fragment) == true, "\(error?.message ?? "") lacks \(fragment)",
            sourceLocation: sourceLocation)
    }
}

@Suite("Pagination errors and limits")
struct QueryPaginationErrorTests {
    @Test func anExpressionSortKeyCannotPage() throws {
        let db = try Database(.inMemory)
        try db.insert(PageRow(id: nil, rank: 1, label: "a", when: nil, score: 2))
        let byExpression = db.query(PageRow.self).order { ($0.score + 1).descending }
        expectSchemaError(["page(after:limit:) cannot page by", "must be columns of PageRow"]) {
            _ = try byExpression.page(after: nil, limit: 5).fetchAll()
        }
        let cursor = try #require(try db.query(PageRow.self).fetchOne())
        expectSchemaError(["cannot page by"]) {
            _ = try byExpression.page(after: cursor, limit: 5).fetchAll()
        }
    }

    @Test func aModelWithoutPrimaryKeyCannotPage() throws {
        struct Note: Model, Equatable {
            var text: String
            static let schema = Schema<Note>(table: "page_notes")
        }
        let db = try Database(.inMemory)
        try db.insert(Note(text: "x"))
        expectSchemaError(["needs a primary key", "Note has none"]) {
            _ = try db.query(Note.self).order { $0.text.ascending }.page(after: nil, limit: 5).fetchAll()
        }
    }

    @Test func negativeLimitsAndOffsetsAreErrors() throws {
        let db = try Database(.inMemory)
        _ = try db.insert(
            contentsOf: (0..<4).map { PageRow(id: nil, rank: $0, label: nil, when: nil, score: 0) })
        let all = db.query(PageRow.self)
        expectSchemaError(["limit(-1) is negative"]) { _ = try all.limit(-1).fetchAll() }
        expectSchemaError(["limit(-1) is negative"]) { _ = try all.limit(-1).fetchOne() }
        expectSchemaError(["offset(-5) is negative"]) { _ = try all.offset(-5).fetchAll() }
        expectSchemaError(["offset(-2) is negative"]) { _ = try all.limit(3, offset: -2).fetchAll() }
        expectSchemaError(["limit(-3) is negative"]) { _ = try all.page(after: nil, limit: -3).fetchAll() }
        #expect(try all.limit(0).fetchAll().isEmpty)
        #expect(try all.limit(0).fetchOne() == nil)
        #expect(try all.limit(2, offset: 3).fetchAll().count == 1)
        #expect(try all.offset(0).fetchAll().count == 4)
    }
}
