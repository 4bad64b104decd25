import Foundation
import LiteRecordTestSupport
import Testing

/// Child processes of the tests (the `sqlite3` shell, `literecord`, the reliability helper) start
/// whatever directory another test made current and deleted meanwhile.
@Suite(.offCooperativePool) struct ChildProcessTests {
    @Test func aChildMadeWhileADeletedDirectoryWasCurrentStillStarts() throws {
        let child = try inTemporaryCurrentDirectory {
            Process.child(running: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exit 7"])
        }
        try child.run()
        child.waitUntilExit()
        #expect(child.terminationStatus == 7)
    }

    @Test func everyTestProcessIsMadeAsAChild() throws {
        let ownName = URL(fileURLWithPath: #filePath).lastPathComponent
        let sites = try TestSourceScan.sites(
            under: TestSourceScan.testsFolder(),
            where: { TestSourceScan.isNot(ownName, $0) && TestSourceScan.isNot("ChildProcess.swift", $0) },
            lines: PlainProcessScanner.lines(in:))
        #expect(
            sites.isEmpty,
            """
            Processes that start in the directory current when they were made; make them with \
            Process.child(running:arguments:):
            \(sites.joined(separator: "\n"))
            """)
    }

    @Test func theProcessScannerFindsOnlyPlainProcesses() throws {
        let source = """
            let a = Process()
            let b = Foundation.Process ()
            let c = Process.child(running: url)
            // let d = Process()
            let e = "Process()"
            let f = ProcessInfo.processInfo
            """
        #expect(try PlainProcessScanner.lines(in: source) == [1, 2])
    }
}

/// Finds `Process()` outside comments and string literals.
enum PlainProcessScanner {
    static let pattern = #"(?<![\w])Process\s*\(\s*\)"#

    /// The 1-based line numbers of the sites in one source text.
    static func lines(in source: String) throws -> [Int] {
        try TestSourceScan.lines(matching: pattern, in: source)
    }
}
