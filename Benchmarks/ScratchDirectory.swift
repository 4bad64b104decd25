import Foundation

/// A fresh temporary directory for the run's databases, with one empty subdirectory per side
/// and round, so no round ever reuses another's database or WAL file.
final class ScratchDirectory {
    /// The run's directory, such as `/tmp/literecord-benchmarks-<uuid>`.
    let url: URL
    private var counter = 0

    /// Creates the run's directory under the system's temporary directory.
    ///
    /// - Throws: When the directory cannot be created.
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("literecord-benchmarks-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Creates a new, empty subdirectory.
    ///
    /// - Parameter label: A readable prefix for its name, such as `classic-transaction-C-3`.
    /// - Returns: Its URL.
    /// - Throws: When it cannot be created.
    func makeSubdirectory(_ label: String) throws -> URL {
        counter += 1
        let subdirectory = url.appendingPathComponent("\(counter)-\(label)", isDirectory: true)
        try FileManager.default.createDirectory(at: subdirectory, withIntermediateDirectories: false)
        return subdirectory
    }

    /// Deletes a subdirectory and the databases in it.
    ///
    /// - Throws: When it cannot be removed (a full disk would otherwise follow).
    func remove(_ subdirectory: URL) throws {
        try FileManager.default.removeItem(at: subdirectory)
    }

    /// Deletes the whole run's directory; failures are reported, not thrown, since the results
    /// are already in.
    func removeAll() {
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            Console.error("cannot remove \(url.path): \(error)")
        }
    }
}
