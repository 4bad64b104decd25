import Foundation
import LiteRecord

/// Where a workload keeps its databases: in memory (DESIGN.md's targets), or in files in the
/// scratch directory, opened with both sides' default file settings (WAL journal,
/// `synchronous = NORMAL`; tracker issue 7, workload 9).
///
/// The same workload code runs on both: only the place its databases are opened changes.
enum Storage: String, Sendable, CaseIterable {
    case memory
    case file

    /// The workload's slug on this storage: `insert` in memory, `file-insert` on a file.
    func slug(_ base: String) -> String {
        switch self {
        case .memory: base
        case .file: "file-" + base
        }
    }

    /// The workload's description on this storage: as is in memory, with the file settings
    /// added on a file.
    func describe(_ description: String) -> String {
        switch self {
        case .memory: description
        case .file: description + "; file database (WAL, synchronous NORMAL)"
        }
    }

    /// One database on this storage: in memory, or the file `name` in `directory`.
    ///
    /// - Parameters:
    ///   - name: The file name, unique within `directory` (ignored in memory).
    ///   - directory: A setup's or a round's directory.
    func site(_ name: String, in directory: URL) -> DatabaseSite {
        switch self {
        case .memory: .memory
        case .file: .file(directory.appendingPathComponent(name).path)
        }
    }
}

/// One database of a workload: in memory, or a file at a path. Both sides open it with their
/// default settings, which ``PragmaParity`` checks are the same.
enum DatabaseSite: Sendable {
    case memory
    case file(String)

    /// Opens it on the C side (``CDatabase``).
    func openC() throws -> CDatabase {
        switch self {
        case .memory: try CDatabase(path: ":memory:")
        case .file(let path): try CDatabase(path: path)
        }
    }

    /// Opens it with LiteRecord (a file database gets its writer and its pool of readers).
    func openLiteRecord() throws -> Database {
        switch self {
        case .memory: try Database(.inMemory)
        case .file(let path): try Database(path: path)
        }
    }
}

extension Workload {
    /// A workload whose databases live on `storage`: its slug and description say so, and its
    /// setup learns where to open them (a round finds the storage in its fixture).
    ///
    /// - Parameters:
    ///   - storage: Where the databases live.
    ///   - slug: The slug in memory; ``Storage/slug(_:)`` makes the file one.
    ///   - description: One line, completed by ``Storage/describe(_:)``.
    ///   - unit, defaultSize, operations, c, literecord: As in the main initializer.
    ///   - setup: Builds the shared fixture on `storage`, once per run, untimed.
    init<Fixture>(
        on storage: Storage,
        slug: String,
        description: String,
        unit: String = "row",
        defaultSize: Int = Options.defaultSize,
        operations: @escaping @Sendable (_ size: Int) -> Int = { $0 },
        setup: @escaping @Sendable (SetupContext, Storage) throws -> Fixture,
        c: @escaping @Sendable (Fixture, RoundContext) throws -> Duration,
        literecord: @escaping @Sendable (Fixture, RoundContext) throws -> Duration
    ) {
        self.init(
            slug: storage.slug(slug), description: storage.describe(description), unit: unit,
            defaultSize: defaultSize, operations: operations, setup: { try setup($0, storage) }, c: c,
            literecord: literecord)
    }
}
