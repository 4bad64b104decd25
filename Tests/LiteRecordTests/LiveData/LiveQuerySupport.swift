import Foundation
import LiteRecord
import LiteRecordTestSupport

/// A player of the live-query tests.
struct LivePlayer: Model {
    var id: Int64?
    var name: String
    var score: Int
    static let schema = Schema<LivePlayer>(table: "players")
}

/// A row of another table, whose commits a live query of players must not notice.
struct LiveTrophy: Model, Equatable {
    var id: Int64?
    var title: String
    static let schema = Schema<LiveTrophy>(table: "trophies")
}

/// The table the helper process and the `sqlite3` shell write (`items(id, value)`).
struct LiveItem: Model, Equatable {
    var id: Int64?
    var value: Int
    static let schema = Schema<LiveItem>(table: "items")
}

/// A fresh temporary directory for a test on the main actor, removed afterwards.
@MainActor
func withLiveDirectory(_ body: (TemporaryDirectory) async throws -> Void) async throws {
    let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
    let url = base.appendingPathComponent("LiteRecordTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    try await body(TemporaryDirectory(path: url.path))
}
