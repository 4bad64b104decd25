// LiteRecordTestHelper: child processes for the reliability tests (Tests/LiteRecordTests/Reliability).
//
//   kill-writer <db path>
//       Writes numbered transactions forever and prints `committed <n>` after each commit;
//       the kill test SIGKILLs it at random moments.
//   concurrent-writer <db path> <writer id> <count> [--wait-for-go] [--meet-halfway]
//       Inserts <count> rows tagged with <writer id>, then exits 0; any error goes to stderr
//       with a non-zero exit status. With --wait-for-go it prints `ready` once the database is
//       open and starts writing when a line arrives on stdin, so two writers start together.
//       With --meet-halfway it stops after half its rows until another writer has written a
//       row, so that on a loaded machine one writer cannot finish before the other starts.
//   external-writer <db path> <count>
//       Inserts <count> rows into items(value), one commit each, then prints `done <count>`;
//       the observation tests watch another process's commits with it.
//   access-probe <db path>
//       Opens the file (as `nobody` when run as root) and prints whether opening, reading and
//       writing work; see AccessProbe.
//
// Exit status: 0 on success, 1 when the work fails, 2 for a bad command line.

import Foundation

let usage = """
    usage: LiteRecordTestHelper kill-writer <db path>
           LiteRecordTestHelper concurrent-writer <db path> <writer id> <count> [--wait-for-go] [--meet-halfway]
           LiteRecordTestHelper external-writer <db path> <count>
           LiteRecordTestHelper access-probe <db path>
    """

/// Writes `text` and a newline to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Writes a line to standard output at once (one unbuffered `write`), so a parent reading the
/// pipe sees it before anything that happens next, including a SIGKILL.
func printFlushed(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("kill-writer", 2):
    do {
        try KillWriter(path: arguments[1]).run()
    } catch {
        printError("kill-writer: \(error)")
        exit(1)
    }
case ("concurrent-writer", 4...6):
    let flags = Set(arguments.dropFirst(4))
    guard let count = Int(arguments[3]), count >= 0,
        flags.isSubset(of: ["--wait-for-go", "--meet-halfway"]), flags.count == arguments.count - 4
    else {
        printError(usage)
        exit(2)
    }
    let writer = ConcurrentWriter(
        path: arguments[1], writerID: arguments[2], count: count,
        waitForGo: flags.contains("--wait-for-go"), meetsHalfway: flags.contains("--meet-halfway"))
    do {
        try writer.run()
    } catch {
        printError("concurrent-writer \(arguments[2]): \(error)")
        exit(1)
    }
case ("external-writer", 3):
    guard let count = Int(arguments[2]), count >= 0 else {
        printError(usage)
        exit(2)
    }
    do {
        try ExternalWriter(path: arguments[1], count: count).run()
    } catch {
        printError("external-writer: \(error)")
        exit(1)
    }
case ("access-probe", 2):
    do {
        try AccessProbe(path: arguments[1]).run()
    } catch {
        printError("access-probe: \(error)")
        exit(1)
    }
default:
    printError(usage)
    exit(2)
}
