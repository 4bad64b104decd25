import Foundation

/// A uniquely named directory for database files, created for one test.
///
/// Use it through ``withTemporaryDirectory(_:)``, which deletes it with its contents when the
/// body returns, so its lifetime never depends on when the optimizer releases a value.
struct TemporaryDirectory: Sendable {
    /// The directory's absolute path, without a trailing slash.
    let path: String

    /// The path of a file (which need not exist) inside the directory.
    ///
    /// - Parameter name: A file name such as `test.sqlite`.
    func file(_ name: String) -> String {
        path + "/" + name
    }
}

/// Creates a fresh temporary directory, runs `body` with it, then deletes it.
///
/// - Parameter body: The test work; database files go under the directory it receives.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or a file system error when the directory cannot be created.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
    let url = base.appendingPathComponent("LiteRecordTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(TemporaryDirectory(path: url.path))
}
