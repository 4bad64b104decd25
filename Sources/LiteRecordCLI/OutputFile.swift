import Foundation

/// Where `generate --output PATH` and `backup DB DEST` write, and how they say why they cannot.
///
/// A directory receives a file named after what is generated; any other path is the file
/// itself. Failures name the path and the reason in plain words: Foundation's errors on Linux
/// read "NSCocoaErrorDomain error 512", which a tool user cannot act on.
enum OutputFile {
    /// The file to write for `path`: `path` itself, or `path/defaultName` when `path` is an
    /// existing directory.
    ///
    /// - Parameters:
    ///   - path: The path given on the command line.
    ///   - defaultName: The file name used inside a directory (`Models.swift`).
    /// - Throws: ``ToolError`` when the path names a directory that does not exist (it ends in
    ///   `/`), or its parent directory is missing or is a file.
    static func resolve(_ path: String, defaultName: String) throws -> String {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? (path as NSString).appendingPathComponent(defaultName) : path
        }
        if path.hasSuffix("/") {
            throw ToolError("cannot write \(path): the directory \(trimmingSlashes(path)) does not exist")
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty else { return path }
        if !fileManager.fileExists(atPath: parent, isDirectory: &isDirectory) {
            throw ToolError("cannot write \(path): the directory \(parent) does not exist")
        }
        if !isDirectory.boolValue {
            throw ToolError("cannot write \(path): \(parent) is a file, not a directory")
        }
        return path
    }

    /// Writes `text` to `file` atomically (a reader never sees half a file).
    ///
    /// - Throws: ``ToolError`` naming the file and the system's reason (permission denied, no
    ///   space left on device, ...).
    static func write(_ text: String, to file: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw ToolError("cannot write \(file): \(reason(error))")
        }
    }

    /// The system's words for a failed write: the POSIX error under Foundation's, when there is one.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code))).lowercased()
        }
        if nsError.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(nsError.code))).lowercased()
        }
        switch CocoaError.Code(rawValue: nsError.code) {
        case .fileWriteNoPermission: return "permission denied"
        case .fileWriteOutOfSpace: return "no space left on device"
        case .fileWriteVolumeReadOnly: return "read-only file system"
        default: return nsError.localizedDescription
        }
    }

    /// Whether both paths name one existing file (same device and inode, whatever the
    /// spelling: `./a.db`, a symbolic link, a hard link).
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        let fileManager = FileManager.default
        guard let one = try? fileManager.attributesOfItem(atPath: first),
            let other = try? fileManager.attributesOfItem(atPath: second),
            let inode = one[.systemFileNumber] as? NSNumber, let device = one[.systemNumber] as? NSNumber
        else { return false }
        return inode == other[.systemFileNumber] as? NSNumber && device == other[.systemNumber] as? NSNumber
    }

    private static func trimmingSlashes(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
