import Foundation
import LiteRecord
import Testing

// Issue #14: a date comparison is exact for every stored form (through `literecord_instant`)
// and still uses the column's index when the column holds LiteRecord's own text.

private struct Event: Model, Equatable {
    var id: Int64?
    var at: Date
    var due: Date?
    static let schema = Schema<Event>(table: "events", indexes: [[\.at], [\.due]])
}

/// What SQLite plans for a query's SELECT (NULL stands for each value: the plan does not
/// depend on them).
private func queryPlan(_ db: Database, _ query: Query<Event>) throws -> String {
    var text = query.sqlDescription
    if let bracket = text.range(of: " [", options: .backwards) { text = String(text[..<bracket.lowerBound]) }
    let parameters = StatementArguments(positional: text.filter { $0 == "?" }.map { _ in .null })
    let rows = try db.fetchAll(Row.self, sql: "EXPLAIN QUERY PLAN " + text, arguments: parameters)
    return try rows.map { try $0.value(String.self, named: "detail") }.joined(separator: "; ")
}

private let day = Date(timeIntervalSince1970: 1_715_904_000)  // 2024-05-17 00:00:00 UTC

@Suite struct DateIndexTests {
    private func fixture() throws -> Database {
        let db = try Database(.inMemory)
        for index in 0..<600 {
            let at = day.addingTimeInterval(Double(index - 300) * 3_600)
            var event = Event(id: nil, at: at, due: index % 3 == 0 ? nil : at)
            try db.insert(&event)
        }
        return db
    }

    @Test func theMigrationCreatesThePartialIndexOfOtherForms() throws {
        let db = try fixture()
        let partial = try db.fetchAll(
            Row.self,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '%NOT LIKE%'")
        let names = try partial.map { try $0.value(String.self, named: "name") }
        #expect(Set(names) == ["events_on_at_not_date_text", "events_on_due_not_date_text"])
        // Empty while the column holds LiteRecord's text.
        let count = try db.fetchOne(
            Int.self,
            sql:
                #"SELECT count(*) FROM events INDEXED BY "events_on_at_not_date_text" WHERE at >= '' AND at NOT LIKE '____-__-__%'"#
        )
        #expect(count == 0)
    }

    @Test func everyDateComparisonUsesTheIndex() throws {
        let db = try fixture()
        let t = day.addingTimeInterval(1_234.5)
        let queries: [(String, Query<Event>)] = [
            ("==", db.query(Event.self).where { $0.at == t }),
            ("<", db.query(Event.self).where { $0.at < t }),
            ("<=", db.query(Event.self).where { $0.at <= t }),
            (">", db.query(Event.self).where { $0.at > t }),
            (">=", db.query(Event.self).where { $0.at >= t }),
            ("in", db.query(Event.self).where { $0.at.in([t, day]) }),
            ("range", db.query(Event.self).where { $0.at >= day && $0.at < t }),
            ("optional ==", db.query(Event.self).where { $0.due == t }),
            ("optional <", db.query(Event.self).where { $0.due < t }),
            ("optional >=", db.query(Event.self).where { $0.due >= t }),
            ("optional in", db.query(Event.self).where { $0.due.in([t, day]) }),
        ]
        for (name, query) in queries {
            let plan = try queryPlan(db, query)
            #expect(plan.contains("MULTI-INDEX OR"), "\(name): \(plan) \(query.sqlDescription)")
            #expect(!plan.contains("SCAN events"), "\(name): \(plan)")
        }
    }

    @Test func aRangeReadsOneBandOfTheIndex() throws {
        let db = try fixture()
        let low = day.addingTimeInterval(-86_400)
        let high = day.addingTimeInterval(3 * 86_400)
        for query in [
            db.query(Event.self).where { (low..<high).contains($0.at) },
            db.query(Event.self).where { (low...high).contains($0.due) },
        ] {
            // One prefilter, bounded by the days of both ends (not two one-sided ones).
            let text = query.sqlDescription
            #expect(text.components(separatedBy: "NOT LIKE").count == 2, "\(text)")
            #expect(text.contains("'2024-05-15', '2024-05-22'"), "\(text)")
        }
        let all = try db.query(Event.self).fetchAll()
        #expect(
            try db.query(Event.self).where { (low..<high).contains($0.at) }.fetchAll()
                == all.filter { (low..<high).contains($0.at) })
        #expect(
            try db.query(Event.self).where { !(low...high).contains($0.due) }.fetchAll()
                == all.filter { !($0.due.map { (low...high).contains($0) } ?? false) })
    }

    @Test func resultsAreThoseOfSwiftsFilter() throws {
        let db = try fixture()
        let all = try db.query(Event.self).fetchAll()
        let t = day.addingTimeInterval(7_200)
        #expect(try db.query(Event.self).where { $0.at == t }.fetchAll() == all.filter { $0.at == t })
        #expect(try db.query(Event.self).where { $0.at < t }.fetchAll() == all.filter { $0.at < t })
        #expect(try db.query(Event.self).where { $0.at >= t }.fetchAll() == all.filter { $0.at >= t })
        #expect(try db.query(Event.self).where { !($0.at < t) }.fetchAll() == all.filter { !($0.at < t) })
        #expect(try db.query(Event.self).where { $0.due == t }.fetchAll() == all.filter { $0.due == t })
        #expect(
            try db.query(Event.self).where { !($0.due > t) }.fetchAll()
                == all.filter { !($0.due.map { $0 > t } ?? false) })
    }

    @Test func aValueThatIsNoDateStaysUnknownUnderNot() throws {
        // Date-shaped text that does not decode (month 13), far from the compared day: the
        // prefilter excludes it, but `!` must not then include it (SQL's unknown, as before).
        let db = try fixture()
        try db.execute(sql: "INSERT INTO events (at, due) VALUES ('1990-13-01', NULL)")
        let t = day.addingTimeInterval(7_200)
        let before = try db.query(Event.self).count()
        #expect(before == 601)
        #expect(
            try db.query(Event.self).where { $0.at < t }.count()
                + db.query(Event.self).where { !($0.at < t) }.count() == 600)
        #expect(try db.query(Event.self).where { !($0.at == t) }.count() == 599)
        #expect(try db.query(Event.self).where { !($0.at == t || $0.at > t) }.count() == 302)
    }

    @Test func aTableWithoutThePartialIndexStaysExact() throws {
        let db = try fixture()
        try db.execute(sql: #"DROP INDEX "events_on_at_not_date_text""#)
        try db.execute(
            sql: "INSERT INTO events (at, due) VALUES (1715911200, NULL), ('2024-05-17T04:00:00+02:00', NULL)"
        )
        let t = day.addingTimeInterval(7_200)
        let count = try db.query(Event.self).where { $0.at == t }.count()
        #expect(count == 3)
    }
}
