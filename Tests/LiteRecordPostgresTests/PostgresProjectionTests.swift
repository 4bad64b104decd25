import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// What only PostgreSQL shows about projections and forEach: the SQL in its dialect, the async
// forms, the cursor forEach reads through, and the documented difference in grouping.

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresProjectionTests {
    private func database() throws -> PostgresDatabase {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.transaction { tx in
            for position in 0..<20 {
                var row = StreamRow(
                    id: nil, position: position, label: "row \(position)", bucket: position % 3)
                try tx.insert(&row)
            }
        }
        return pg
    }

    @Test func theSQLIsPostgreSQLs() throws {
        let pg = try database()
        let projection = pg.query(StreamRow.self).where { $0.position > 5 }.group(by: \.bucket)
            .order { $0.bucket.ascending }
            .select(BucketTotal.self) {
                [$0.bucket.as("bucket"), $0.rowCount.as("rows"), $0.position.sum.as("positions")]
            }
        #expect(
            projection.sqlDescription
                == #"SELECT "bucket" AS "bucket", count(*) AS "rows", CAST(coalesce(sum("position"), 0) AS bigint) AS "positions" FROM "stream_rows" WHERE ("position" > ?) GROUP BY "bucket" ORDER BY "bucket" ASC [5]"#
        )
        // Positions 6 to 19, by bucket (position % 3).
        let expected = (0..<3).map { bucket in
            let members = (6..<20).filter { $0 % 3 == bucket }
            return BucketTotal(bucket: bucket, rows: members.count, positions: members.reduce(0, +))
        }
        #expect(try projection.fetchAll() == expected)
        let labels = pg.query(StreamRow.self).order { $0.position.descending }.select(StreamLabel.self)
        #expect(labels.sqlDescription == #"SELECT "label" FROM "stream_rows" ORDER BY "position" DESC"#)
    }

    @Test func asyncFormsReadTheSameRows() async throws {
        let pg = try database()
        let labels = pg.query(StreamRow.self).order { $0.position.ascending }.select(StreamLabel.self)
        let all = try await labels.fetchAll()
        #expect(all == (0..<20).map { StreamLabel(label: "row \($0)") })
        let first = try await labels.fetchOne()
        #expect(first == StreamLabel(label: "row 0"))
        let none = try await pg.query(StreamRow.self).where { $0.position > 100 }.select(StreamLabel.self)
            .fetchOne()
        #expect(none == nil)
        let grouped = try await pg.query(StreamRow.self).group(by: \.bucket).order { $0.bucket.descending }
            .select(BucketTotal.self) {
                [$0.bucket.as("bucket"), $0.rowCount.as("rows"), $0.position.sum.as("positions")]
            }
            .fetchOne()
        #expect(grouped == BucketTotal(bucket: 2, rows: 6, positions: 2 + 5 + 8 + 11 + 14 + 17))
    }

    @Test func forEachReadsThroughACursorItCloses() throws {
        let pg = try database()
        // Named cursors only: a statement run through a prepared statement (the second run of
        // the same text) lists its own unnamed portal in pg_cursors while it runs.
        let openCursorCount: SQL = "SELECT count(*) FROM pg_cursors WHERE name <> ''"
        try pg.transaction { tx in
            // While the body runs, the iteration's cursor is open on the transaction.
            var openCursors: [Int64?] = []
            // swift-format-ignore: ReplaceForEachWithForLoop
            try tx.query(StreamRow.self).where { $0.position < 2 }.forEach { _ in
                openCursors.append(try tx.fetchOne(Int64.self, sql: openCursorCount))
            }
            #expect(openCursors == [1, 1])
            #expect(try tx.fetchOne(Int64.self, sql: openCursorCount) == 0)
            // Stopped by the body: closed as well, and the transaction is not aborted.
            var stop: StopIteration?
            do {
                // swift-format-ignore: ReplaceForEachWithForLoop
                try tx.query(StreamRow.self).select(StreamLabel.self).forEach { _ in
                    throw StopIteration(at: 0)
                }
            } catch let error as StopIteration {
                stop = error
            }
            #expect(stop == StopIteration(at: 0))
            #expect(try tx.fetchOne(Int64.self, sql: openCursorCount) == 0)
            #expect(try tx.execute(sql: "UPDATE stream_rows SET label = 'seen' WHERE position = 0") == 1)
        }
        #expect(try pg.query(StreamRow.self).where { $0.label == "seen" }.count() == 1)
    }

    @Test func aGroupSelectsOnlyItsKeysAndAggregates() throws {
        // The documented difference: SQLite takes any row's value for a column that is neither
        // grouped nor aggregated; PostgreSQL refuses the query (SQLSTATE 42803).
        let pg = try database()
        let error = #expect(throws: DatabaseError.self) {
            try pg.query(StreamRow.self).group(by: \.bucket).select(StreamLabel.self).fetchAll()
        }
        #expect(error?.message.contains("GROUP BY") == true, "\(String(describing: error))")
        #expect(error?.sqlState == "42803", "\(String(describing: error))")
        #expect(try pg.query(StreamRow.self).count() == 20)
    }

    @MainActor @Test func projectionsAreAwaitedFromTheMainActor() async throws {
        // A projection is `Sendable`: built on the main actor, awaited there (Swift 6 mode).
        let pg = try database()
        let minimum = 17
        let labels = try await pg.query(StreamRow.self).where { $0.position > minimum }
            .order { $0.position.ascending }.select(StreamLabel.self).fetchAll()
        #expect(labels == [StreamLabel(label: "row 18"), StreamLabel(label: "row 19")])
    }

    @Test func aTransactionsProjectionRunsOnlyOnItsThread() throws {
        let pg = try database()
        let outcome = try pg.transaction { tx -> Result<Int, any Error> in
            let projection = tx.query(StreamRow.self).select(StreamLabel.self)
            let inside = try projection.fetchAll().count
            #expect(inside == 20)
            let box = ProjectionResultBox()
            let thread = Thread { box.set(Result { try projection.fetchAll().count }) }
            thread.start()
            while box.result == nil { Thread.sleep(forTimeInterval: 0.005) }
            return box.result ?? .success(-1)
        }
        guard case .failure(let error as DatabaseError) = outcome else {
            Issue.record("a transaction's projection ran on another thread: \(outcome)")
            return
        }
        #expect(error.resultCode == .misuse)
    }

    // The limit only guards against a hang: in the full parallel run this async test may wait
    // more than a minute for a cooperative thread before its body starts.
    @Test(.timeLimit(.minutes(10))) func anObservedFetchThatIteratesSeesCommits() async throws {
        // The observation learns the table from the query inside the cursor's DECLARE.
        let pg = try database()
        let positions = pg.observe { tx in
            var sum = 0
            // swift-format-ignore: ReplaceForEachWithForLoop
            try tx.query(StreamRow.self).forEach { sum += $0.position }
            return sum
        }
        var iterator = positions.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first == (0..<20).reduce(0, +))
        var row = StreamRow(id: nil, position: 100, label: "late", bucket: 1)
        try await pg.insert(&row)
        let second = try await iterator.next()
        #expect(second == (0..<20).reduce(0, +) + 100)
    }
}

/// The result of work run on another thread, read back by the test's thread.
private final class ProjectionResultBox: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Result<Int, any Error>?

    var result: Result<Int, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func set(_ result: Result<Int, any Error>) {
        lock.lock()
        stored = result
        lock.unlock()
    }
}
