import Foundation
import LiteRecord
import Testing

/// A row of the differential table, as the model path writes it.
private struct Item: Model, Equatable {
    var id: Int64?
    var v: Int
    var k: Int64?
    var w: Int64?

    static let schema = Schema<Item>(table: "items")
}

/// What one row of an INSERT makes SQLite do, according to the table's constraints and trigger.
private enum RowKind: CaseIterable {
    case good
    /// `RAISE(IGNORE)`: the row is skipped, the statement goes on.
    case ignored
    /// `RAISE(ROLLBACK)`: the whole transaction is rolled back.
    case raiseRollback
    /// A duplicate in `k UNIQUE ON CONFLICT ROLLBACK`: the whole transaction is rolled back.
    case duplicateRollbackKey
    /// `RAISE(ABORT)`: the statement is undone, the transaction goes on.
    case raiseAbort
    /// A duplicate in `w UNIQUE`: the statement is undone, the transaction goes on.
    case duplicateAbortKey
    /// `RAISE(FAIL)`: the statement stops; its earlier rows stay.
    case raiseFail
}

/// A committed or pending row, compared without its rowid (a rolled-back rowid is reused).
private struct Values: Hashable, Comparable {
    var v: Int
    var k: Int64
    var w: Int64

    static func < (a: Values, b: Values) -> Bool { (a.k, a.w, a.v) < (b.k, b.w, b.v) }
}

/// How a statement reaches SQLite.
private enum Path: CaseIterable {
    case execute, preparedStatement, modelInsert
}

/// Random sequences of good and failing inserts, every error caught inside the closure, run
/// against SQLite and against a Swift model of SQLite's documented semantics: `ROLLBACK` undoes
/// the whole transaction (and LiteRecord refuses everything after it), `ABORT` undoes the
/// statement, `FAIL` keeps the statement's earlier rows, `IGNORE` skips the row.
@Suite("Transactions SQLite aborted, differential")
struct TransactionAbortDifferentialTests {
    private static let schema = """
        CREATE TABLE items(
            id INTEGER PRIMARY KEY,
            v INTEGER NOT NULL,
            k INTEGER UNIQUE ON CONFLICT ROLLBACK,
            w INTEGER UNIQUE);
        CREATE TRIGGER items_guard BEFORE INSERT ON items WHEN NEW.v < 0 BEGIN
            SELECT CASE NEW.v
                WHEN -1 THEN RAISE(ROLLBACK, 'trigger rollback')
                WHEN -2 THEN RAISE(ABORT, 'trigger abort')
                WHEN -3 THEN RAISE(FAIL, 'trigger fail')
                ELSE RAISE(IGNORE) END;
        END;
        """

    /// The Swift model of one transaction in progress.
    private struct Expectation {
        var committed: [Values] = []
        var visible: [Values] = []
        var isAborted = false
        var nextKey: Int64 = 1

        mutating func freshKey() -> Int64 {
            defer { nextKey += 1 }
            return nextKey
        }
    }

    /// Builds one row of `kind` against what is visible (rows earlier in the statement count).
    private static func makeRow(
        _ kind: RowKind, model: inout Expectation, earlier: [Values], random: inout SeededGenerator
    ) -> (Values, RowKind) {
        let existing = model.visible + earlier
        var row = Values(
            v: Int.random(in: 0...1000, using: &random), k: model.freshKey(), w: model.freshKey())
        switch kind {
        case .good: return (row, .good)
        case .ignored: row.v = -4
        case .raiseRollback: row.v = -1
        case .raiseAbort: row.v = -2
        case .raiseFail: row.v = -3
        case .duplicateRollbackKey:
            guard let taken = existing.randomElement(using: &random) else { return (row, .good) }
            row.k = taken.k
        case .duplicateAbortKey:
            guard let taken = existing.randomElement(using: &random) else { return (row, .good) }
            row.w = taken.w
        }
        return (row, kind)
    }

    /// Applies one statement's rows to the model; returns whether SQLite must report an error.
    private static func apply(_ rows: [(Values, RowKind)], to model: inout Expectation) -> Bool {
        var added: [Values] = []
        for (row, kind) in rows {
            switch kind {
            case .good: added.append(row)
            case .ignored: continue
            case .raiseRollback, .duplicateRollbackKey:
                model.isAborted = true
                return true
            case .raiseAbort, .duplicateAbortKey:
                return true
            case .raiseFail:
                model.visible += added
                return true
            }
        }
        model.visible += added
        return false
    }

    private static func run(_ rows: [Values], path: Path, on tx: Connection) throws {
        switch path {
        case .execute:
            let placeholders = Array(repeating: "(?, ?, ?)", count: rows.count).joined(separator: ", ")
            let arguments = StatementArguments(
                positional: rows.flatMap { [.integer(Int64($0.v)), .integer($0.k), .integer($0.w)] })
            try tx.execute(sql: "INSERT INTO items(v, k, w) VALUES " + placeholders, arguments: arguments)
        case .preparedStatement:
            let statement = try tx.makeStatement(sql: "INSERT INTO items(v, k, w) VALUES (?, ?, ?)")
            try statement.bind([.integer(Int64(rows[0].v)), .integer(rows[0].k), .integer(rows[0].w)])
            try statement.step()
        case .modelInsert:
            var item = Item(id: nil, v: rows[0].v, k: rows[0].k, w: rows[0].w)
            try tx.insert(&item)
        }
    }

    /// Runs random statements on `tx`, every error caught, and checks each against the model.
    private static func runStatements(
        count: Int, on tx: Connection, model: inout Expectation, random: inout SeededGenerator, depth: Int
    ) throws {
        for _ in 0..<count {
            if depth < 2, Int.random(in: 0..<8, using: &random) == 0 {
                try runSavepoint(on: tx, model: &model, random: &random, depth: depth + 1)
                continue
            }
            if Int.random(in: 0..<6, using: &random) == 0 {
                // A read sees the transaction's rows, or is refused once SQLite rolled back.
                do {
                    let rows = try tx.fetchAll(Row.self, sql: "SELECT count(*) FROM items")
                    #expect(!model.isAborted, "a read ran after SQLite rolled back")
                    #expect(try rows.first?.value(Int.self, at: 0) == model.visible.count)
                } catch let error as DatabaseError {
                    #expect(model.isAborted && error.resultCode == .abortRollback, "\(error)")
                }
                continue
            }
            let path = Path.allCases.randomElement(using: &random) ?? .execute
            let rowCount = path == .execute ? Int.random(in: 1...3, using: &random) : 1
            var rows: [(Values, RowKind)] = []
            for _ in 0..<rowCount {
                // Mostly good rows, so that transactions grow before something fails.
                let kind: RowKind =
                    Int.random(in: 0..<3, using: &random) == 0
                    ? RowKind.allCases.randomElement(using: &random) ?? .good : .good
                rows.append(
                    makeRow(
                        kind, model: &model, earlier: rows.filter { $0.1 == .good }.map(\.0), random: &random)
                )
            }
            let wasAborted = model.isAborted
            let expectsError = wasAborted || apply(rows, to: &model)
            do {
                try run(rows.map(\.0), path: path, on: tx)
                #expect(!expectsError, "\(rows.map(\.1)) via \(path) succeeded")
            } catch let error as DatabaseError {
                #expect(expectsError, "\(rows.map(\.1)) via \(path) failed: \(error)")
                if wasAborted { #expect(error.resultCode == .abortRollback, "\(error)") }
            }
        }
    }

    private struct Marker: Error {}

    /// A savepoint whose body runs random statements, then returns or throws.
    private static func runSavepoint(
        on tx: Connection, model: inout Expectation, random: inout SeededGenerator, depth: Int
    ) throws {
        let before = model.visible
        let throwsAtEnd = Bool.random(using: &random)
        let count = Int.random(in: 1...5, using: &random)
        let wasAborted = model.isAborted
        var inner = model
        var innerRandom = random
        do {
            try tx.savepoint { sp in
                try runStatements(count: count, on: sp, model: &inner, random: &innerRandom, depth: depth)
                if throwsAtEnd { throw Marker() }
            }
            #expect(!inner.isAborted && !throwsAtEnd, "the savepoint released")
        } catch is Marker {
            // The body's own error is rethrown, aborted or not.
            #expect(throwsAtEnd && !wasAborted)
        } catch let error as DatabaseError {
            // `SAVEPOINT` itself is refused after an abort; a body that returned after one fails.
            #expect(inner.isAborted && (wasAborted || !throwsAtEnd), "\(error)")
            #expect(error.resultCode == .abortRollback, "\(error)")
        }
        random = innerRandom
        model = inner
        if throwsAtEnd && !model.isAborted { model.visible = before }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func committedRowsMatchTheModel(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let db = try Database(.inMemory)
        try db.execute(sql: SQL(Self.schema))
        var model = Expectation()
        var abortedTransactions = 0
        for _ in 0..<60 {
            model.visible = model.committed
            model.isAborted = false
            let throwsAtEnd = Int.random(in: 0..<10, using: &random) == 0
            let count = Int.random(in: 1...12, using: &random)
            var inner = model
            var innerRandom = random
            do {
                try db.transaction { tx in
                    try Self.runStatements(
                        count: count, on: tx, model: &inner, random: &innerRandom, depth: 0)
                    if throwsAtEnd { throw Marker() }
                }
                #expect(!inner.isAborted && !throwsAtEnd, "the transaction committed")
                inner.committed = inner.visible
            } catch is Marker {
                #expect(throwsAtEnd)
            } catch let error as DatabaseError {
                #expect(inner.isAborted && !throwsAtEnd, "\(error)")
                #expect(error.resultCode == .abortRollback, "\(error)")
                abortedTransactions += 1
            }
            random = innerRandom
            model = inner
            #expect(!db.isInsideTransaction)
            let stored = try db.fetchAll(Row.self, sql: "SELECT v, k, w FROM items").map { row in
                Values(
                    v: try row.value(Int.self, at: 0), k: try row.value(Int64.self, at: 1),
                    w: try row.value(Int64.self, at: 2))
            }
            #expect(stored.sorted() == model.committed.sorted())
            if stored.sorted() != model.committed.sorted() { return }
        }
        #expect(abortedTransactions > 0, "the seed never made SQLite roll back")
    }
}
