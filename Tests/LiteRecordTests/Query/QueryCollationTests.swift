import Foundation
import LiteRecord
import Testing

private struct CollationMember: Model, Equatable {
    var id: Int64?
    var name: String
    var nick: String?

    static let schema = Schema<CollationMember>(table: "members", indexes: [[\.name], [\.nick]])
        .collation(.nocase, for: \.name).collation(.nocase, for: \.nick)
}

/// The SQL text of a description, before its argument list.
private func sqlText(_ description: String) -> String {
    guard let bracket = description.range(of: " [", options: .backwards) else { return description }
    return String(description[..<bracket.lowerBound])
}

/// What SQLite plans for a query's SELECT.
private func queryPlan(_ db: Database, _ query: Query<CollationMember>) throws -> String {
    let text = sqlText(query.sqlDescription)
    // The plan does not depend on the values: NULL stands for each.
    let parameters = StatementArguments(positional: text.filter { $0 == "?" }.map { _ in .null })
    let rows = try db.fetchAll(Row.self, sql: "EXPLAIN QUERY PLAN " + text, arguments: parameters)
    return try rows.map { try $0.value(String.self, named: "detail") }.joined(separator: "; ")
}

@Suite struct QueryCollationTests {
    private func fixture() throws -> Database {
        let db = try Database(.inMemory)
        for (name, nick) in [("bob", "b"), ("Bob", nil), ("BOB", "B"), ("alice", "al"), ("Alice", "AL")] {
            var member = CollationMember(id: nil, name: name, nick: nick)
            try db.insert(&member)
        }
        for index in 0..<2_000 {
            var member = CollationMember(id: nil, name: "filler \(index)", nick: "f\(index)")
            try db.insert(&member)
        }
        return db
    }

    @Test func equalityOnANocaseColumnStaysCaseSensitiveAndUsesTheIndex() throws {
        let db = try fixture()
        let bob = db.query(CollationMember.self).where { $0.name == "Bob" }
        #expect(try bob.fetchAll().map(\.name) == ["Bob"])
        #expect(try db.query(CollationMember.self).where { $0.nick == "B" }.fetchAll().map(\.name) == ["BOB"])
        #expect(try db.query(CollationMember.self).where { $0.name != "bob" }.count() == 2_004)
        let plan = try queryPlan(db, bob)
        #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "\(plan)")
        let listed = db.query(CollationMember.self).where { ["Bob", "alice"].contains($0.name) }
        #expect(try listed.order { $0.id }.fetchAll().map(\.name) == ["Bob", "alice"])
        let listPlan = try queryPlan(db, listed)
        #expect(listPlan.contains("USING INDEX") || listPlan.contains("USING COVERING INDEX"), "\(listPlan)")
        #expect(
            try db.query(CollationMember.self).where { !["Bob", "alice"].contains($0.name) }.count() == 2_003)
        let nickPlan = try queryPlan(db, db.query(CollationMember.self).where { $0.nick == "B" })
        #expect(nickPlan.contains("USING INDEX") || nickPlan.contains("USING COVERING INDEX"), "\(nickPlan)")
    }

    @Test func caseInsensitiveEqualsFoldsASCIIAndUsesTheIndex() throws {
        let db = try fixture()
        let bobs = db.query(CollationMember.self).where { $0.name.caseInsensitiveEquals("BoB") }
        #expect(try bobs.order { $0.id }.fetchAll().map(\.name) == ["bob", "Bob", "BOB"])
        let plan = try queryPlan(db, bobs)
        #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "\(plan)")
        // On an optional column nil never matches, and `!` of it matches nil.
        let nicks = db.query(CollationMember.self).where { $0.nick.caseInsensitiveEquals("b") }
        #expect(try nicks.order { $0.id }.fetchAll().map(\.name) == ["bob", "BOB"])
        #expect(
            try db.query(CollationMember.self).where { !$0.nick.caseInsensitiveEquals("b") }.count() == 2_003)
        // ASCII only, as SQLite's NOCASE: "É" is not "é".
        var accented = CollationMember(id: nil, name: "\u{C9}mile", nick: nil)
        try db.insert(&accented)
        #expect(
            try db.query(CollationMember.self).where { $0.name.caseInsensitiveEquals("\u{E9}mile") }.count()
                == 0)
    }
}
