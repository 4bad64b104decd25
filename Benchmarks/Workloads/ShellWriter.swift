import Foundation
import Synchronization

/// A long-lived `sqlite3` shell process that runs the SQL it is sent, one line at a time: the
/// other process of ``LiveQueryDelay``.
///
/// The SQL it is sent ends with `SELECT 'ack ' || N;`; a reader thread stamps each `ack N` line
/// the moment it reads it, so the caller can wait on the main actor for something else and learn
/// afterwards when the shell had committed.
final class ShellWriter {
    private let process: Process
    private let input: FileHandle
    private let errors: Pipe
    private let acknowledged = Acknowledgements()

    /// The `sqlite3` shell on the `PATH`, or `nil`.
    static func findShell() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/sqlite3" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the shell on `database`, with a busy timeout; it stops at the first error.
    init(shell: String, database: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-batch", "-bail", "-cmd", ".timeout 10000", database]
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        errors = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        process.standardError = errors
        try process.run()
        input = inputPipe.fileHandleForWriting
        let output = outputPipe.fileHandleForReading
        let acknowledged = acknowledged
        let reader = Thread {
            var pending = Data()
            while true {
                let chunk = output.availableData
                let now = ContinuousClock.now
                if chunk.isEmpty {
                    acknowledged.close()
                    return
                }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if line.hasPrefix("ack "), let value = Int(line.dropFirst(4)) {
                        acknowledged.record(value, at: now)
                    }
                }
            }
        }
        reader.start()
    }

    /// Sends one line of SQL.
    func send(_ sql: String) throws {
        try input.write(contentsOf: Data((sql + "\n").utf8))
    }

    /// When the reader read `ack value`, waiting up to a minute for it; `nil` if it never came.
    func acknowledgement(of value: Int) -> ContinuousClock.Instant? {
        acknowledged.wait(for: value, seconds: 60)
    }

    /// What the shell wrote on its standard error so far (read after it ended, or a short look).
    func errorOutput() -> String {
        if process.isRunning { return "(still running)" }
        let text = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        return text.isEmpty ? "(nothing)" : text
    }

    /// Closes the shell's input, which ends it, and waits for it.
    func finish() {
        try? input.close()
        process.waitUntilExit()
    }
}

/// The acknowledged values and when each was read.
private final class Acknowledgements: Sendable {
    private struct State {
        var instants: [Int: ContinuousClock.Instant] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let condition = NSCondition()

    func record(_ value: Int, at instant: ContinuousClock.Instant) {
        condition.withLock {
            state.withLock { $0.instants[value] = instant }
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            state.withLock { $0.closed = true }
            condition.broadcast()
        }
    }

    func wait(for value: Int, seconds: Double) -> ContinuousClock.Instant? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let (instant, closed) = state.withLock { ($0.instants[value], $0.closed) }
            if let instant { return instant }
            if closed || !condition.wait(until: deadline) { return nil }
        }
    }
}

/// The `sqlite3` shell failed or fell silent.
struct ShellWriterError: Error, CustomStringConvertible {
    let description: String
}
