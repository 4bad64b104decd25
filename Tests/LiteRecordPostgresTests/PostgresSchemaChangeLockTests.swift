import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// The advisory lock that serializes LiteRecord's schema changes on PostgreSQL (automatic tables,
// migrations): one per schema, so first uses in opposite orders wait instead of deadlocking,
// and other schemas never wait.

private struct LockParent: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<LockParent>(table: "lock_parents")
}

private struct LockChild: Model, Equatable {
    var id: Int64?
    var parentID: Int64
    static let schema = Schema<LockChild>(table: "lock_children")
        .foreignKey(\.parentID, references: LockParent.self)
}

/// Whether the server session `pid` comes to wait for a lock within 30 s.
private func sessionWaitsForALock(_ pid: Int, on database: PostgresDatabase) async throws -> Bool {
    for _ in 0..<600 {
        let waiting = try await database.fetchOne(
            Int.self, sql: "SELECT count(*) FROM pg_locks WHERE pid = \(pid) AND NOT granted")
        if waiting ?? 0 > 0 { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return false
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresSchemaChangeLockTests {
    /// One transaction first uses the parent, then the child; the other first uses the child,
    /// whose table creates the parent's. With a lock per table they took the two locks in
    /// opposite orders and PostgreSQL killed one (SQLSTATE 40P01).
    @Test func firstUsesOfAParentAndItsChildInOppositeOrdersDoNotDeadlock() async throws {
        let databases = try PostgresTestServer.freshDatabases(count: 2)
        let (parentFirst, childFirst) = (databases[0], databases[1])
        let parentUsed = DispatchSemaphore(value: 0)
        let otherWaits = DispatchSemaphore(value: 0)
        let childFirstPID = Locked<Int?>(nil)
        let parentThenChild = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            try await parentFirst.transaction { tx in
                var parent = LockParent(id: nil, name: "parent first")
                try tx.insert(&parent)
                parentUsed.signal()
                _ = otherWaits.wait(timeout: .now() + 30)
                var child = LockChild(id: nil, parentID: parent.id ?? 0)
                try tx.insert(&child)
            }
        }
        #expect(parentUsed.wait(timeout: .now() + 30) == .success)
        let childThenParent = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            try await childFirst.transaction { tx in
                childFirstPID.withLock { $0 = try? tx.fetchOne(Int.self, sql: "SELECT pg_backend_pid()") }
                try tx.migrate(LockChild.self)
                var parent = LockParent(id: nil, name: "child first")
                try tx.insert(&parent)
                var child = LockChild(id: nil, parentID: parent.id ?? 0)
                try tx.insert(&child)
            }
        }
        var pid: Int?
        for _ in 0..<600 where pid == nil {
            pid = childFirstPID.withLock { $0 }
            if pid == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let waited = try await sessionWaitsForALock(try #require(pid), on: parentFirst)
        otherWaits.signal()
        try await parentThenChild.value
        try await childThenParent.value
        #expect(waited, "the child-first transaction waited for the parent-first one")
        let parents = try await parentFirst.fetchAll(
            String.self, sql: "SELECT name FROM lock_parents ORDER BY name")
        #expect(parents == ["child first", "parent first"])
        let children = try await parentFirst.fetchOne(Int.self, sql: "SELECT count(*) FROM lock_children")
        #expect(children == 2)
    }

    /// A transaction holding the lock in one schema (a first use inside it) does not make a
    /// first use of the same model in another schema wait: the lock is keyed by the schema.
    @Test func schemaChangesInAnotherSchemaDoNotWait() async throws {
        let inOne = try PostgresTestServer.freshDatabase()
        let inAnother = try PostgresTestServer.freshDatabase()
        let used = DispatchSemaphore(value: 0)
        let otherDone = DispatchSemaphore(value: 0)
        let holder = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            try await inOne.transaction { tx in
                try tx.insert(LockParent(id: nil, name: "one"))
                used.signal()
                return otherDone.wait(timeout: .now() + 30) == .success
            }
        }
        #expect(used.wait(timeout: .now() + 30) == .success)
        var parent = LockParent(id: nil, name: "another")
        try await inAnother.insert(&parent)
        otherDone.signal()
        let otherFinishedWhileHeld = try await holder.value
        #expect(otherFinishedWhileHeld)
        let stored = try await inAnother.fetchAll(LockParent.self)
        #expect(stored == [parent])
    }
}
