import Foundation
import LiteRecord

/// The parameters of one statement in the arrays `PQexecParams` takes: text for numbers and
/// strings (their type inferred by the server from where they are used), binary `bytea` for
/// bytes.
///
/// Every value's bytes go into one buffer as they are converted, so that a statement's
/// parameters cost a few allocations whatever their number (a find runs one per call).
struct PostgresParameters {
    /// Each parameter's type: 0 (inferred by the server) or 17 (`bytea`, sent as raw bytes).
    private(set) var types: [UInt32] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []
    /// Every value's bytes, one after the other: NUL-terminated text, or raw bytes.
    private var bytes: [UInt8] = []
    /// Where each value starts in ``bytes``; -1 for NULL.
    private var offsets: [Int] = []

    private static let byteaType: UInt32 = 17

    init(_ values: [DatabaseValue], sql: SQL) throws {
        types.reserveCapacity(values.count)
        lengths.reserveCapacity(values.count)
        formats.reserveCapacity(values.count)
        offsets.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            switch value {
            case .null:
                offsets.append(-1)
                types.append(0)
                formats.append(0)
                lengths.append(0)
            case .integer(let integer):
                appendText(String(integer))
            case .real(let real):
                // Refused as on SQLite (which would store NULL): the same values on every backend.
                guard !real.isNaN else { throw ValueConversionError.nanParameter("\(index + 1)") }
                appendText(PostgresParameters.text(of: real))
            case .text(let text):
                // A C string ends at NUL: PostgreSQL text cannot hold one, so say so rather
                // than store a cut value.
                if text.utf8.contains(0) {
                    throw DatabaseError(
                        backendName: "PostgreSQL",
                        resultCode: .mismatch,
                        message: "parameter \(index + 1): PostgreSQL text cannot hold NUL characters "
                            + "(store the value as Data, which is bytea)",
                        sql: sql.text, arguments: sql.arguments)
                }
                appendText(text)
            case .blob(let data):
                offsets.append(bytes.count)
                bytes.append(contentsOf: data)
                types.append(PostgresParameters.byteaType)
                formats.append(1)
                lengths.append(Int32(data.count))
            }
        }
        // A base address for the pointers, even when every value is empty.
        if bytes.isEmpty { bytes.append(0) }
    }

    /// Appends a value as NUL-terminated text, inferred by the server.
    private mutating func appendText(_ text: String) {
        offsets.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
        types.append(0)
        formats.append(0)
        lengths.append(Int32(bytes.count - offsets[offsets.count - 1]))
    }

    /// PostgreSQL's spelling of a double: shortest round-trip digits, `Infinity`, `NaN`.
    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }

    /// Calls `body` with C arrays that stay valid for its duration.
    func withCArrays<R>(
        _ body: (
            UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> R
    ) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: offsets.count) {
                pointers in
                for (index, offset) in offsets.enumerated() {
                    pointers.initializeElement(at: index, to: offset < 0 ? nil : base + offset)
                }
                return types.withUnsafeBufferPointer { types in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(
                                types.baseAddress, UnsafePointer(pointers.baseAddress), lengths.baseAddress,
                                formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
