import Foundation

/// The current directory belongs to the whole process: README code that opens files by a
/// relative path ("game.sqlite") runs one block at a time.
private let currentDirectoryLock = NSLock()

/// Runs README code that opens "game.sqlite" and friends in a fresh temporary directory made
/// the current one, then restores the current directory and removes the temporary one.
func inTemporaryCurrentDirectory<T>(_ body: () throws -> T) throws -> T {
    currentDirectoryLock.lock()
    defer { currentDirectoryLock.unlock() }
    let manager = FileManager.default
    let previous = manager.currentDirectoryPath
    let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("LiteRecordDocs-\(UUID().uuidString)", isDirectory: true)
    try manager.createDirectory(at: directory, withIntermediateDirectories: true)
    defer {
        _ = manager.changeCurrentDirectoryPath(previous)
        try? manager.removeItem(at: directory)
    }
    guard manager.changeCurrentDirectoryPath(directory.path) else {
        throw CocoaError(.fileNoSuchFile)
    }
    return try body()
}
