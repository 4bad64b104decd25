import CLibPQ
import Foundation
import LiteRecord
import LiteRecordPostgres
import Synchronization

/// The counter of issue 29's read-modify-write: one row that every transaction reads and writes.
struct PostgresBenchCounter: Model, Equatable {
    var id: Int64?
    var n: Int
    static let schema = Schema<PostgresBenchCounter>(table: "literecord_bench_counters")
}

/// Issue 29, item 1: N read-modify-write transactions on one counter row from 8 or 32 threads,
/// LiteRecordPostgres's `transaction` (SERIALIZABLE, the closure run again on 40001/40P01)
/// against the same loop on raw libpq.
///
/// Both sides share a pool of 8 connections among the threads, and send, per attempt, the same
/// statements: `BEGIN ISOLATION LEVEL SERIALIZABLE`, the `find` (`SELECT * ... LIMIT 1`), the
/// `update` (`UPDATE ... SET "n" = $1 WHERE "id" = $2`), `COMMIT`. On a serialization failure or
/// deadlock both roll back, wait a random time up to 1 ms doubling per attempt (at most 100 ms),
/// and run the transaction again; the C side without a limit, LiteRecord with its default
/// configuration (16 attempts, and its gate that makes new transactions wait while one runs
/// again). Both must end with the counter at exactly N: the figure is committed increments per
/// second, none lost.
enum PostgresCounter {
    static let workloads = [counter(threads: 8), counter(threads: 32)]

    /// The connections both sides share among their threads.
    static let connections = 8
    static let table = "literecord_bench_counters"
    static let begin = "BEGIN ISOLATION LEVEL SERIALIZABLE"
    /// LiteRecordPostgres's `find(_:id:)` of the counter.
    static let find = #"SELECT * FROM "literecord_bench_counters" WHERE "id" = $1 LIMIT 1"#
    /// LiteRecordPostgres's `update(_:)` of the counter.
    static let update = #"UPDATE "literecord_bench_counters" SET "n" = $1 WHERE "id" = $2"#

    private static func counter(threads: Int) -> Workload {
        Workload(
            slug: "postgres-counter-\(threads)",
            description:
                "N read-modify-write transactions on one row from \(threads) threads, 8 connections, SERIALIZABLE",
            unit: "commit",
            defaultSize: 3_200,
            quickSize: 800,
            setup: { _ in try Fixture() },
            c: { fixture, context in
                try fixture.reset()
                let elapsed = try Stopwatch.measure {
                    try runThreads(threads, total: context.size) { _ in
                        { try fixture.cPool.increment(fixture.id) }
                    }
                }
                try fixture.verify(context.size, side: .c)
                return elapsed
            },
            literecord: { fixture, context in
                try fixture.reset()
                let database = fixture.database
                let id = fixture.id
                let elapsed = try Stopwatch.measure {
                    try runThreads(threads, total: context.size) { _ in
                        {
                            try database.transaction { tx in
                                guard var counter = try tx.find(PostgresBenchCounter.self, id: id) else {
                                    throw FixtureError(description: "the counter row is missing")
                                }
                                counter.n += 1
                                try tx.update(counter)
                            }
                        }
                    }
                }
                try fixture.verify(context.size, side: .literecord)
                return elapsed
            })
    }

    /// The counter row, LiteRecord's database and the C side's pool, on a fresh table.
    final class Fixture: Sendable {
        let database: PostgresDatabase
        let cPool: CCounterPool
        let id: Int64

        init() throws {
            guard let url = PostgresItemModel.url else {
                throw FixtureError(
                    description:
                        "\(PostgresItemModel.urlVariable) is not set (\(PostgresItemModel.howToStart))")
            }
            var configuration = PostgresConfiguration()
            configuration.maximumConnections = PostgresCounter.connections
            database = try PostgresDatabase(url: url, configuration: configuration)
            try database.execute(sql: SQL(verbatim: "DROP TABLE IF EXISTS \(SQL.quoteIdentifier(table))"))
            var counter = PostgresBenchCounter(n: 0)
            try database.insert(&counter)  // creates the table
            guard let id = counter.id else { throw FixtureError(description: "the counter has no key") }
            self.id = id
            cPool = try CCounterPool(url: url, count: PostgresCounter.connections)
        }

        func reset() throws {
            try database.execute(sql: "UPDATE literecord_bench_counters SET n = 0 WHERE id = \(id)")
        }

        func verify(_ expected: Int, side: Side) throws {
            let value = try database.fetchOne(
                Int.self, sql: "SELECT n FROM literecord_bench_counters WHERE id = \(id)")
            guard value == expected else {
                throw FixtureError(
                    description: "\(side.rawValue) side's counter ended at \(value ?? -1), not \(expected)")
            }
        }
    }

    /// Runs `total` operations split across `threads` threads of their own (not Dispatch's
    /// pool, which runs no more threads than cores) and waits for all of them.
    ///
    /// - Throws: The first error a thread met.
    static func runThreads(
        _ threads: Int, total: Int, _ makeOperation: @Sendable (Int) -> @Sendable () throws -> Void
    ) throws {
        let group = DispatchGroup()
        let firstError = Mutex<(any Error)?>(nil)
        for thread in 0..<threads {
            let share = total / threads + (thread < total % threads ? 1 : 0)
            let operation = makeOperation(thread)
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    for _ in 0..<share { try operation() }
                } catch {
                    firstError.withLock { if $0 == nil { $0 = error } }
                }
            }
        }
        group.wait()
        if let error = firstError.withLock({ $0 }) { throw error }
    }
}

/// The C side: libpq connections shared by threads, each increment a SERIALIZABLE transaction
/// run again after a random wait when the server reports 40001 or 40P01.
final class CCounterPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` is guarded by `condition`; a connection is used by one thread
    // at a time (taken out of `idle` under the lock, put back under it).
    private let condition = NSCondition()
    private var idle: [CPostgresConnection]
    /// Attempts that failed and ran again, over the pool's life.
    private let retries = Atomic<Int>(0)

    init(url: String, count: Int) throws {
        idle = try (0..<count).map { _ in try CPostgresConnection(url: url) }
    }

    /// One committed increment of the counter `id`.
    func increment(_ id: Int64) throws {
        var attempt = 1
        while true {
            let connection = take()
            let outcome = Result { try Self.attempt(id, on: connection.handle) }
            giveBack(connection)
            switch outcome {
            case .success(true): return
            case .success(false):
                retries.add(1, ordering: .relaxed)
                let limit = Double(min(1 << min(attempt - 1, 16), 100)) / 1000
                Thread.sleep(forTimeInterval: Double.random(in: 0...limit))
                attempt += 1
            case .failure(let error): throw error
            }
        }
    }

    /// One attempt: `true` when it committed, `false` after a serialization failure or
    /// deadlock (rolled back).
    private static func attempt(_ id: Int64, on handle: OpaquePointer) throws -> Bool {
        let key = String(id)
        guard try run(PostgresCounter.begin, [], on: handle) != nil,
            let text = try run(
                PostgresCounter.find, [key], on: handle,
                read: { result in
                    let column = PQfnumber(result, "n")
                    guard PQntuples(result) == 1, column >= 0 else {
                        throw FixtureError(description: "C side: the counter row is missing")
                    }
                    return String(cString: PQgetvalue(result, 0, column))
                }),
            let n = Int(text),
            try run(PostgresCounter.update, [String(n + 1), key], on: handle) != nil,
            try run("COMMIT", [], on: handle) != nil
        else {
            // A COMMIT that failed has ended the transaction already.
            if PQtransactionStatus(handle) != PQTRANS_IDLE { try run("ROLLBACK", [], on: handle) }
            return false
        }
        return true
    }

    /// Runs a statement (`PQexec` without parameters, `PQexecParams` with text ones, as
    /// LiteRecordPostgres does): what `read` reads of its result, `nil` on a serialization
    /// failure or deadlock.
    ///
    /// - Throws: ``CPostgresError`` on any other failure.
    @discardableResult
    private static func run(
        _ sql: String, _ parameters: [String], on handle: OpaquePointer,
        read: (OpaquePointer) throws -> String = { _ in "" }
    ) throws -> String? {
        let result: OpaquePointer?
        if parameters.isEmpty {
            result = PQexec(handle, sql)
        } else {
            let storage = parameters.map { strdup($0) }
            defer { for pointer in storage { free(pointer) } }
            let values = storage.map { UnsafePointer($0) }
            result = values.withUnsafeBufferPointer { values in
                PQexecParams(handle, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
            }
        }
        guard let result else {
            throw CPostgresError(
                function: "PQexec", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(Character("C").asciiValue!)).map {
                String(cString: $0)
            }
            if state == "40001" || state == "40P01" { return nil }
            throw CPostgresError(
                function: "PQexecParams", message: String(cString: PQresultErrorMessage(result)), sql: sql)
        }
        return try read(result)
    }

    private func take() -> CPostgresConnection {
        condition.lock()
        defer { condition.unlock() }
        while idle.isEmpty { condition.wait() }
        return idle.removeLast()
    }

    private func giveBack(_ connection: CPostgresConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
