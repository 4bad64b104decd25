import Foundation

extension Process {
    /// A process that runs `executable` with `arguments`, started in a directory that exists for
    /// the whole test run.
    ///
    /// `Process()` takes the current directory of the moment it is made and changes into it when
    /// it starts. The documentation tests make a temporary directory current for a while (README
    /// code opens files by relative path) and then delete it: a process made by another test in
    /// that window fails to start with "The file doesn't exist", naming the executable. Every
    /// test that starts a process makes it here.
    package static func child(running executable: URL, arguments: [String] = []) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/", isDirectory: true)
        return process
    }
}
