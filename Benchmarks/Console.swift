import Foundation

/// Writes to standard error: progress while running, and errors.
///
/// Standard output carries only the report, so `LiteRecordBenchmarks > report.txt` stays clean.
enum Console {
    /// Whether standard error is a terminal, where progress lines overwrite each other.
    private static let isTerminal = isatty(FileHandle.standardError.fileDescriptor) != 0

    /// Writes text to standard error as is.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Reports an error on its own line.
    static func error(_ message: String) {
        endProgress()
        writeError("error: \(message)\n")
    }

    /// Shows a progress line such as `[classic-transaction] round 3/7`: rewritten in place on
    /// a terminal, one line each otherwise (CI logs).
    static func progress(_ line: String) {
        if isTerminal {
            writeError("\r\u{1B}[K" + line)
        } else {
            writeError(line + "\n")
        }
    }

    /// Clears the progress line on a terminal.
    static func endProgress() {
        if isTerminal { writeError("\r\u{1B}[K") }
    }
}
