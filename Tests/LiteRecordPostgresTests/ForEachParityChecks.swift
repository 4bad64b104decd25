import Foundation
import LiteRecord
import Testing

// `forEach` on both backends: every row once, in the query's order, across several of
// PostgreSQL's cursor batches (500 rows); a throwing body stops the iteration, its error comes
// out, and the connection (or the transaction the iteration ran in) goes on working.

struct StreamRow: Model, Equatable {
    var id: Int64?
    var position: Int
    var label: String
    var bucket: Int

    static let schema = Schema<StreamRow>(table: "stream_rows")
}

/// A row written by a `forEach` body, into another table than the one iterated.
struct StreamLog: Model, Equatable {
    var id: Int64?
    var position: Int
}

struct BucketTotal: Decodable, Equatable {
    var bucket: Int
    var rows: Int
    var positions: Int
}

/// What a body throws to stop an iteration.
struct StopIteration: Error, Equatable {
    var at: Int
}

enum ForEachParityChecks {
    static let rowCount = 1_234

    private static func insertRows(_ db: some ModelContext) throws -> [StreamRow] {
        var rows: [StreamRow] = []
        try db.transaction { tx in
            for position in 0..<rowCount {
                var row = StreamRow(
                    id: nil, position: position, label: "row \(position) 'q' \"d\" --", bucket: position % 7)
                try tx.insert(&row)
                rows.append(row)
            }
        }
        return rows
    }

    /// Models and projections, whole and stopped early, on the database.
    static func iteration(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let rows = try insertRows(db)
        let query = db.query(StreamRow.self).order { $0.position.descending }
        var seen: [StreamRow] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        try query.forEach { seen.append($0) }
        #expect(seen == rows.reversed(), "\(backend.name): every row once, in order")
        #expect(seen == (try query.fetchAll()), "\(backend.name)")

        // A limited, filtered query streams what fetchAll returns.
        let narrowed = query.where { $0.bucket == 3 }.limit(100, offset: 5)
        var narrowSeen: [StreamRow] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        try narrowed.forEach { narrowSeen.append($0) }
        #expect(narrowSeen == (try narrowed.fetchAll()), "\(backend.name)")
        #expect(narrowSeen.count == 100, "\(backend.name)")

        // A throwing body stops the iteration (in the second batch of 500), and its error comes out.
        var visited = 0
        let stop = #expect(throws: StopIteration.self) {
            // swift-format-ignore: ReplaceForEachWithForLoop
            try query.forEach { row in
                visited += 1
                if visited == 700 { throw StopIteration(at: row.position) }
            }
        }
        #expect(stop == StopIteration(at: rowCount - 700), "\(backend.name)")
        #expect(visited == 700, "\(backend.name): no row after the throw")
        // The database goes on working: reads and writes.
        #expect(try query.count() == rowCount, "\(backend.name)")
        var extra = StreamRow(id: nil, position: rowCount, label: "extra", bucket: 0)
        try db.insert(&extra)
        #expect(try query.count() == rowCount + 1, "\(backend.name)")

        // Projections stream the rows fetchAll returns.
        let grouped = db.query(StreamRow.self).group(by: \.bucket).order { $0.bucket.ascending }
        let selection: (Columns<StreamRow>) -> [SelectedColumn] = {
            [$0.bucket.as("bucket"), $0.rowCount.as("rows"), $0.position.sum.as("positions")]
        }
        var totals: [BucketTotal] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        try grouped.select(BucketTotal.self, selection).forEach { totals.append($0) }
        let all = rows + [extra]
        let expected = (0..<7).map { bucket in
            let members = all.filter { $0.bucket == bucket }
            return BucketTotal(
                bucket: bucket, rows: members.count, positions: members.map(\.position).reduce(0, +))
        }
        #expect(totals == expected, "\(backend.name)")
        #expect(try grouped.select(BucketTotal.self, selection).fetchAll() == expected, "\(backend.name)")
        var labels: [String] = []
        let projectionStop = #expect(throws: StopIteration.self) {
            // swift-format-ignore: ReplaceForEachWithForLoop
            try query.select(StreamLabel.self).forEach { row in
                labels.append(row.label)
                if labels.count == 3 { throw StopIteration(at: 3) }
            }
        }
        #expect(projectionStop == StopIteration(at: 3), "\(backend.name)")
        #expect(labels == all.sorted { $0.position > $1.position }.prefix(3).map(\.label), "\(backend.name)")
    }

    /// Inside a transaction: the body uses the transaction, iterations nest, and a throwing body
    /// leaves the transaction usable and committing.
    static func insideTransaction(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let rows = try insertRows(db)
        try db.transaction { tx in
            let query = tx.query(StreamRow.self).order { $0.position.ascending }
            // The body writes through the same transaction while rows are pending.
            var logged = 0
            // swift-format-ignore: ReplaceForEachWithForLoop
            try query.where { $0.position < 600 }.forEach { row in
                var log = StreamLog(id: nil, position: row.position)
                try tx.insert(&log)
                logged += 1
            }
            #expect(logged == 600, "\(backend.name)")
            // Nested iterations on the same transaction.
            var pairs: [String] = []
            // swift-format-ignore: ReplaceForEachWithForLoop
            try query.where { $0.position < 3 }.forEach { outer in
                // swift-format-ignore: ReplaceForEachWithForLoop
                try query.where { $0.position >= 1230 }.forEach { inner in
                    pairs.append("\(outer.position)-\(inner.position)")
                }
            }
            #expect(pairs.count == 12, "\(backend.name): \(pairs)")
            #expect(pairs.first == "0-1230" && pairs.last == "2-1233", "\(backend.name): \(pairs)")
            // A throwing body stops; the transaction goes on. (do/catch, not #expect(throws:):
            // a closure inside #expect inside this closure miscompiles with Swift 6.3.1.)
            var stop: StopIteration?
            do {
                // swift-format-ignore: ReplaceForEachWithForLoop
                try query.forEach { row in if row.position == 2 { throw StopIteration(at: 2) } }
            } catch let error as StopIteration {
                stop = error
            }
            #expect(stop == StopIteration(at: 2), "\(backend.name)")
            var late = StreamLog(id: nil, position: -1)
            try tx.insert(&late)
            #expect(try tx.query(StreamLog.self).count() == 601, "\(backend.name)")
        }
        // Everything the transaction wrote was committed.
        let logs = try db.query(StreamLog.self).order { $0.id.ascending }.fetchAll()
        #expect(logs.map(\.position) == Array(0..<600) + [-1], "\(backend.name)")
        #expect(try db.query(StreamRow.self).count() == rows.count, "\(backend.name)")
    }
}

struct StreamLabel: Decodable, Equatable {
    var label: String
}
