import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// Differential test of issue #14's class, "a value compares as what it is, not as how it is
// stored": rows whose UUIDs and dates are stored in random foreign forms (written with raw SQL
// and with the `sqlite3` shell, as another tool would) are queried through every comparison
// operator, `in`, ranges, `order`, `min`/`max` and every key operation, and each result is
// checked against Swift's own filter, sort or lookup on the decoded models.

private struct Stamp: Model, Equatable {
    var id: UUID
    var at: Date
    var seen: Date?
    var real: Date
    var amount: Decimal
    static let schema = Schema<Stamp>(table: "stamps", indexes: [[\.at]]).dateStorage(
        .unixSeconds, for: \.real)
}

/// UTC calendar fields of a whole-second instant, formatted by hand.
private func fields(_ seconds: Int64) -> String {
    let days = Int64((Double(seconds) / 86_400).rounded(.down))
    let secondOfDay = seconds - days * 86_400
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let time = "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
    let yearText = String(String(year + 10_000).dropFirst())  // four digits, years 0...9999
    return "\(yearText)-\(two(month))-\(two(day)) " + time
}

/// One instant stored in one of the forms other tools write.
private func foreignDate(
    _ seconds: Int64, millis: Int64, using generator: inout SeededGenerator
) throws -> DatabaseValue {
    let text = fields(seconds)
    let date = String(text.prefix(10))
    let time = String(text.dropFirst(11))
    let fraction = millis == 0 ? "" : "." + String(String(millis + 1000).dropFirst())
    switch Int.random(in: 0..<9, using: &generator) {
    case 0:
        let instant = Date(timeIntervalSince1970: Double(seconds) + Double(millis) / 1000)
        return try DateStorage.text.databaseValue(for: instant)
    case 1: return .text("\(date) \(time)\(millis == 0 ? ".000" : fraction)")  // Northwind's form
    case 2: return .text("\(date)T\(time)\(fraction)Z")
    case 3:
        // The same instant as local time two hours ahead, with its offset.
        let shifted = fields(seconds + 7_200)
        return .text("\(shifted.prefix(10))T\(shifted.dropFirst(11))\(fraction)+02:00")
    case 4:
        let shifted = fields(seconds - 19_800)
        return .text("\(shifted.prefix(10))T\(shifted.dropFirst(11))\(fraction)-0530")
    case 5 where millis == 0 && seconds % 86_400 == 0: return .text(date)
    case 6 where millis == 0: return .integer(seconds)
    case 7: return .real(Double(seconds) + Double(millis) / 1000)
    default: return .text("\(date)t\(time)\(fraction)")
    }
}

/// One instant as text with one of the widest UTC offsets, whose local day is not the UTC day
/// (what the index prefilter of a date comparison must still find, see `DatePrefilter`).
private func wideOffsetDate(_ seconds: Int64, using generator: inout SeededGenerator) -> DatabaseValue {
    let (offset, suffix) = [(50_400, "+14:00"), (-43_200, "-12:00"), (86_340, "+23:59"), (-86_340, "-2359")]
        .randomElement(using: &generator)!
    let shifted = fields(seconds + Int64(offset))
    return .text("\(shifted.prefix(10))T\(shifted.dropFirst(11))\(suffix)")
}

/// Rows added after the random ones, from their own generator (so that those stay as they
/// were): dates with the widest offsets, and near the ends of the years text holds.
private let extraRows = 16

@Suite struct StoredFormDifferentialTests {
    /// Builds a file database of random rows; returns it with the models as Swift decodes them.
    private func makeDatabase(
        seed: UInt64, in directory: TemporaryDirectory
    ) throws -> (Database, [Stamp], String) {
        var generator = SeededGenerator(seed: seed)
        let path = directory.file("stamps-\(seed).sqlite")
        let db = try Database(.file(path))
        try db.migrate(Stamp.self)
        // A small pool of instants, so that equal values repeat: midnights, whole seconds,
        // milliseconds, before and after 1970 and 2001.
        let pool: [(Int64, Int64)] = (0..<8).map { _ in
            let day = Int64.random(in: -3_000...20_000, using: &generator) * 86_400
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: return (day, 0)
            case 1: return (day + Int64.random(in: 0..<86_400, using: &generator), 0)
            default:
                return (
                    day + Int64.random(in: 0..<86_400, using: &generator),
                    Int64.random(in: 1..<1000, using: &generator)
                )
            }
        }
        let amounts = ["9.5", "10", "10.00", "-3", "100.25", "1e2", "0.30", "-0.5", "12345678901234567890.5"]
        var shellInserts: [String] = []
        for row in 0..<48 {
            let uuid = UUID()
            let id: DatabaseValue =
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: .text(uuid.uuidString)
                case 1: .text(uuid.uuidString.lowercased())
                default: .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
                }
            let (seconds, millis) = pool.randomElement(using: &generator)!
            let at = try foreignDate(seconds, millis: millis, using: &generator)
            let (seenSeconds, seenMillis) = pool.randomElement(using: &generator)!
            let seen: DatabaseValue =
                try Bool.random(using: &generator)
                ? .null : foreignDate(seenSeconds, millis: seenMillis, using: &generator)
            let (realSeconds, realMillis) = pool.randomElement(using: &generator)!
            let real = try foreignDate(realSeconds, millis: realMillis, using: &generator)
            let amount = amounts.randomElement(using: &generator)!
            if row % 6 == 5, case .text(let idText) = id, case .text(let atText) = at {
                // Written by the sqlite3 shell, as another tool would.
                shellInserts.append(
                    "INSERT INTO stamps (id, at, seen, real, amount) VALUES ('\(idText)', '\(atText)', NULL, "
                        + "\(realSeconds), '\(amount)');")
                continue
            }
            try db.execute(
                sql:
                    "INSERT INTO stamps (id, at, seen, real, amount) VALUES (\(id), \(at), \(seen), \(real), \(amount))"
            )
        }
        var extra = SeededGenerator(seed: seed &+ 0x5EED)
        for row in 0..<extraRows {
            // 0001-01-02 and 9999-12-30 (plus some seconds), or an instant of the pool.
            let seconds: Int64 =
                switch row % 4 {
                case 0: -62_135_510_400 + Int64.random(in: 0..<86_400, using: &extra)
                case 1: 253_402_128_000 + Int64.random(in: 0..<86_400, using: &extra)
                default: pool.randomElement(using: &extra)!.0
                }
            let at: DatabaseValue =
                row % 4 == 3
                ? try foreignDate(seconds, millis: 0, using: &extra) : wideOffsetDate(seconds, using: &extra)
            try db.execute(
                sql:
                    "INSERT INTO stamps (id, at, seen, real, amount) VALUES (\(UUID()), \(at), \(at), \(seconds), 1)"
            )
        }
        if !shellInserts.isEmpty {
            let shell = Process.child(
                running: URL(fileURLWithPath: "/usr/bin/env"),
                arguments: ["sqlite3", path, shellInserts.joined(separator: "\n")])
            try shell.run()
            shell.waitUntilExit()
            try #require(shell.terminationStatus == 0)
        }
        return (db, try db.fetchAll(Stamp.self), path)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func predicatesOrderingAndAggregatesAgreeWithSwift(seed: UInt64) throws {
        try withTemporaryDirectory { directory in
            let (db, rows, _) = try makeDatabase(seed: seed, in: directory)
            try #require(rows.count == 48 + extraRows)
            let all = db.query(Stamp.self)
            func same(
                _ sql: (Columns<Stamp>) -> Condition, _ swift: (Stamp) -> Bool,
                _ note: String, sourceLocation: SourceLocation = #_sourceLocation
            ) throws {
                let found = try all.where(sql).fetchAll().map(\.id).sorted { $0.uuidString < $1.uuidString }
                let expected = rows.filter(swift).map(\.id).sorted { $0.uuidString < $1.uuidString }
                #expect(found == expected, "\(note), seed \(seed)", sourceLocation: sourceLocation)
            }
            var generator = SeededGenerator(seed: seed &* 31)
            for _ in 0..<6 {
                let a = rows.randomElement(using: &generator)!
                let b = rows.randomElement(using: &generator)!
                let (low, high) = (min(a.at, b.at), max(a.at, b.at))
                try same({ $0.at == a.at }, { $0.at == a.at }, "== \(a.at)")
                try same({ $0.at != a.at }, { $0.at != a.at }, "!=")
                try same({ $0.at < a.at }, { $0.at < a.at }, "<")
                try same({ $0.at <= a.at }, { $0.at <= a.at }, "<=")
                try same({ $0.at > a.at }, { $0.at > a.at }, ">")
                try same({ $0.at >= a.at }, { $0.at >= a.at }, ">=")
                try same({ !($0.at < a.at) }, { !($0.at < a.at) }, "!<")
                try same({ !($0.at == a.at) }, { !($0.at == a.at) }, "!==")
                try same({ !($0.seen > a.at) }, { !($0.seen.map { $0 > a.at } ?? false) }, "optional !>")
                try same({ $0.seen >= a.at }, { $0.seen.map { $0 >= a.at } ?? false }, "optional >=")
                try same({ $0.at.in([a.at, b.at]) }, { [a.at, b.at].contains($0.at) }, "in")
                try same({ (low...high).contains($0.at) }, { (low...high).contains($0.at) }, "closed range")
                try same({ (low..<high).contains($0.at) }, { (low..<high).contains($0.at) }, "range")
                try same({ $0.seen == a.at }, { $0.seen == a.at }, "optional ==")
                try same({ $0.seen != a.at }, { $0.seen != a.at }, "optional !=")
                try same({ $0.seen == nil }, { $0.seen == nil }, "== nil")
                try same({ $0.seen.in([a.at, nil]) }, { [a.at, nil].contains($0.seen) }, "optional in")
                try same({ $0.real == b.real }, { $0.real == b.real }, "REAL column ==")
                try same({ $0.real < b.real }, { $0.real < b.real }, "REAL column <")
                try same({ $0.id == a.id }, { $0.id == a.id }, "uuid ==")
                try same({ $0.id != a.id }, { $0.id != a.id }, "uuid !=")
                try same({ $0.id.in([a.id, b.id]) }, { [a.id, b.id].contains($0.id) }, "uuid in")
                try same({ $0.id < a.id }, { $0.id < a.id }, "uuid <")
                try same({ $0.amount < a.amount }, { $0.amount < a.amount }, "decimal <")
                try same({ $0.amount == a.amount }, { $0.amount == a.amount }, "decimal ==")
                try same(
                    { $0.amount.in([a.amount, b.amount]) }, { [a.amount, b.amount].contains($0.amount) },
                    "decimal in")
            }
            try same({ $0.at == $0.real }, { $0.at == $0.real }, "column == column")
            try same({ $0.at < $0.real }, { $0.at < $0.real }, "column < column")
            try same({ $0.at >= $0.real }, { $0.at >= $0.real }, "column >= column")
            let byDate = try all.order { $0.at.ascending }.fetchAll().map(\.at)
            #expect(byDate == rows.map(\.at).sorted())
            let byDateDescending = try all.order { $0.at.descending }.fetchAll().map(\.at)
            #expect(byDateDescending == rows.map(\.at).sorted(by: >))
            let byReal = try all.order { $0.real.ascending }.fetchAll().map(\.real)
            #expect(byReal == rows.map(\.real).sorted())
            let byAmount = try all.order { $0.amount.ascending }.fetchAll().map(\.amount)
            #expect(byAmount == rows.map(\.amount).sorted())
            let byID = try all.order { $0.id.ascending }.fetchAll().map(\.id)
            #expect(byID == rows.map(\.id).sorted())
            let earliest = try all.min { $0.at }
            #expect(earliest == rows.map(\.at).min())
            let latest = try all.max { $0.at }
            #expect(latest == rows.map(\.at).max())
            let smallestReal = try all.min { $0.real }
            #expect(smallestReal == rows.map(\.real).min())
            let smallestAmount = try all.min { $0.amount }
            #expect(smallestAmount == rows.map(\.amount).min())
            let smallestID = try all.min { $0.id }
            #expect(smallestID == rows.map(\.id).min())
            let largestID = try all.max { $0.id }
            #expect(largestID == rows.map(\.id).max())
            let largestAmount = try all.max { $0.amount }
            #expect(largestAmount == rows.map(\.amount).max())
        }
    }

    @Test(arguments: [5, 6] as [UInt64])
    func keyOperationsFindEverySpelling(seed: UInt64) throws {
        try withTemporaryDirectory { directory in
            let (db, rows, _) = try makeDatabase(seed: seed, in: directory)
            var remaining = rows
            for (index, row) in rows.enumerated() {
                #expect(try db.find(Stamp.self, id: row.id) == row)
                #expect(try db.exists(Stamp.self, id: row.id))
                switch index % 4 {
                case 0:
                    var changed = row
                    changed.amount += 1
                    try db.update(changed)
                    #expect(try db.find(Stamp.self, id: row.id) == changed)
                case 1:
                    var changed = row
                    changed.seen = nil
                    try db.save(&changed)
                    #expect(try db.find(Stamp.self, id: row.id) == changed)
                case 2:
                    #expect(try db.delete(row))
                    remaining.removeAll { $0.id == row.id }
                    #expect(try db.find(Stamp.self, id: row.id) == nil)
                default:
                    #expect(try db.delete(Stamp.self, id: row.id))
                    remaining.removeAll { $0.id == row.id }
                    #expect(try !db.exists(Stamp.self, id: row.id))
                }
            }
            // Nothing was duplicated, nothing else was deleted.
            #expect(try db.count(Stamp.self) == remaining.count)
            #expect(Set(try db.fetchAll(Stamp.self).map(\.id)) == Set(remaining.map(\.id)))
        }
    }
}
