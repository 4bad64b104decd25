import Foundation
import LiteRecord

/// What the numbers were measured on, printed above the table.
struct MachineInfo: Sendable {
    /// `uname -m`, such as `x86_64` or `arm64`.
    let architecture: String
    /// The CPU model from `/proc/cpuinfo`, when there is one.
    let cpuModel: String?
    /// Active processor cores.
    let cores: Int
    /// The operating system, such as `Linux 6.8.0`.
    let system: String
    /// The SQLite library both sides link, such as `3.40.1`.
    let sqliteVersion: String
    /// When the run started, ISO 8601 in UTC.
    let date: String

    /// Reads the current machine.
    static func current() -> MachineInfo {
        var names = utsname()
        let architecture: String
        let system: String
        if uname(&names) == 0 {
            architecture = string(fromCField: names.machine)
            system = string(fromCField: names.sysname) + " " + string(fromCField: names.release)
        } else {
            architecture = "unknown"
            system = "unknown"
        }
        return MachineInfo(
            architecture: architecture,
            cpuModel: readCPUModel(),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            system: system,
            sqliteVersion: Database.sqliteVersion,
            date: Date().ISO8601Format())
    }

    /// A NUL-terminated C character array (a `utsname` field imported as a tuple).
    private static func string<Field>(fromCField field: Field) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The first `model name` line of `/proc/cpuinfo` (Linux only).
    private static func readCPUModel() -> String? {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in cpuinfo.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
