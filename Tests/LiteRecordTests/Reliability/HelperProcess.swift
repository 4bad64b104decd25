import Foundation
import LiteRecord
import LiteRecordTestSupport
import Synchronization

/// A running `LiteRecordTestHelper` process, whose standard output and error are collected
/// line by line on threads of their own while the test goes on.
///
/// Every wait has a time limit, so a helper that hangs fails the test instead of the run.
final class HelperProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only started, signaled and read (`isRunning`,
    // termination status) after launch, which Foundation allows from any thread; the collected
    // output lives in a Locked.

    /// How a helper process ended.
    enum Exit: Equatable, CustomStringConvertible {
        case exited(Int32)
        case killed(signal: Int32)

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .killed(let signal): "killed by signal \(signal)"
            }
        }
    }

    private let process: Process
    private let input = Pipe()
    private let standardOutput: OutputCollector
    private let standardError: OutputCollector
    /// A helper that dies before reading what the test writes to its standard input must fail
    /// the test with an error, not end the whole test process with SIGPIPE.
    private static let brokenPipesIgnored: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// Starts the helper with `arguments` (a subcommand and its operands).
    ///
    /// - Throws: ``HelperLocationError`` when the helper was not built; a launch error.
    init(_ arguments: [String]) throws {
        HelperProcess.brokenPipesIgnored
        process = Process.child(running: try HelperProcess.executableURL(), arguments: arguments)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        standardOutput = OutputCollector(output.fileHandleForReading)
        standardError = OutputCollector(errors.fileHandleForReading)
    }

    deinit {
        if process.isRunning { kill() }
    }

    /// The complete lines written to standard output so far.
    var outputLines: [String] { standardOutput.lines }

    /// Everything written to standard error so far.
    var errorText: String { standardError.lines.joined(separator: "\n") }

    /// Waits until a line of standard output starts with `prefix` and returns it.
    ///
    /// - Returns: The line, or `nil` when none came within `seconds` or the output ended first.
    func waitForLine(startingWith prefix: String, seconds: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if standardOutput.isFinished { return outputLines.first { $0.hasPrefix(prefix) } }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return nil
    }

    /// Writes a line to the helper's standard input.
    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Sends SIGKILL: the process ends at once, wherever it is.
    func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to end and for its output to be read to the end.
    ///
    /// - Returns: How it ended, or `nil` when it still runs after `seconds` (it is then killed).
    func waitForExit(seconds: Double) -> Exit? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning {
            guard Date() < deadline else {
                kill()
                return nil
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        // The pipes reach their end once the process is gone (it has no children).
        standardOutput.waitUntilFinished(seconds: 10)
        standardError.waitUntilFinished(seconds: 10)
        switch process.terminationReason {
        case .exit: return .exited(process.terminationStatus)
        case .uncaughtSignal: return .killed(signal: process.terminationStatus)
        @unknown default: return .exited(process.terminationStatus)
        }
    }
}

/// Collects the lines a pipe delivers, on a thread of its own, until the pipe ends.
private final class OutputCollector: Sendable {
    private struct State {
        var lines: [String] = []
        var partial = Data()
        var isFinished = false
    }

    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                guard !data.isEmpty else { break }
                append(data)
            }
            state.withLock { state in
                if !state.partial.isEmpty {
                    state.lines.append(String(decoding: state.partial, as: UTF8.self))
                }
                state.partial = Data()
                state.isFinished = true
            }
            finished.signal()
        }
    }

    private func append(_ data: Data) {
        state.withLock { state in
            state.partial.append(data)
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                let line = state.partial[state.partial.startIndex..<newline]
                state.lines.append(String(decoding: line, as: UTF8.self))
                state.partial = Data(state.partial[(newline + 1)...])
            }
        }
    }

    var lines: [String] { state.withLock { $0.lines } }
    var isFinished: Bool { state.withLock { $0.isFinished } }

    func waitUntilFinished(seconds: Double) {
        guard finished.wait(timeout: .now() + seconds) == .success else { return }
        finished.signal()  // later calls return at once
    }
}

// MARK: - Finding the helper

/// The helper executable was not found where the build puts it.
struct HelperLocationError: Error, CustomStringConvertible {
    let description: String
}

extension HelperProcess {
    /// The file name of the helper executable.
    static let executableName = "LiteRecordTestHelper"

    /// Where the built `LiteRecordTestHelper` is.
    ///
    /// SwiftPM puts every product of a build in one directory: `.build/<triple>/debug/` for
    /// `swift test` (with or without `--sanitize=thread|address` or `--enable-code-coverage`),
    /// `.build/<triple>/release/` for `swift build -c release --build-tests` / `swift test -c
    /// release`. The tests run inside the test product of that directory: on Linux the process
    /// is the executable `LiteRecordPackageTests.xctest`, so `/proc/self/exe` is in it; on Apple
    /// platforms the `.xctest` bundle is loaded into `xctest`, so the bundle's parent is. The
    /// helper sits next to it because the test target depends on it (see Package.swift). This
    /// needs neither `Bundle.module` (the test target has no resources) nor the working
    /// directory. `LITERECORD_TEST_HELPER` overrides the search with an explicit path.
    static func executableURL() throws -> URL {
        try located.get()
    }

    /// The search, done once: `Bundle.allBundles` leaks on Linux (LeakSanitizer reports it).
    private static let located = Result { () throws(HelperLocationError) -> URL in
        let fileManager = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["LITERECORD_TEST_HELPER"] {
            guard fileManager.isExecutableFile(atPath: explicit) else {
                throw HelperLocationError(
                    description: "LITERECORD_TEST_HELPER=\(explicit) is not an executable")
            }
            return URL(fileURLWithPath: explicit)
        }
        var directories: [URL] = []
        #if os(Linux)
            if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
            }
        #else
            for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
                directories.append(bundle.bundleURL.deletingLastPathComponent())
            }
        #endif
        if let main = Bundle.main.executableURL {
            directories.append(main.deletingLastPathComponent())
        }
        let candidates = directories.map { $0.appendingPathComponent(executableName) }
        if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw HelperLocationError(
            description: "\(executableName) not found; looked in: "
                + candidates.map(\.path).joined(separator: ", ")
                + " (build it with `swift build --build-tests`, or set LITERECORD_TEST_HELPER)")
    }
}
