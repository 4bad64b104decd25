import Foundation
import LiteRecord

/// The parameters of one statement in the arrays `PQexecParams` takes: text for numbers and
/// strings (their type inferred by the server from where they are used), binary `bytea` for
/// bytes.
///
/// Every value's bytes go into one buffer as they are converted, and each value's place in it
/// into one array: two allocations whatever the number of values (a find runs one statement per
/// call, an update another). The C arrays of types, pointers, lengths and formats are made on the
/// stack, only for the call that takes them (``withCArrays(_:)``); five arrays kept here cost,
/// allocated and freed, more than converting the values.
struct PostgresParameters {
    /// Where one value's bytes are in ``bytes``.
    private struct Slot {
        /// Its first byte; -1 for NULL.
        var offset: Int
        /// Its length, counting a text's NUL.
        var length: Int32
        /// Whether it is raw `bytea` (type 17, binary format) rather than text.
        var isBinary: Bool
    }

    private var slots: [Slot] = []
    /// Every value's bytes, one after the other: NUL-terminated text, or raw bytes.
    private var bytes: [UInt8] = []

    private static let byteaType: UInt32 = 17

    init(_ values: [DatabaseValue], sql: SQL) throws {
        slots.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            switch value {
            case .null:
                slots.append(Slot(offset: -1, length: 0, isBinary: false))
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
                slots.append(Slot(offset: bytes.count, length: Int32(data.count), isBinary: true))
                bytes.append(contentsOf: data)
            }
        }
        // A base address for the pointers, even when every value is empty.
        if bytes.isEmpty { bytes.append(0) }
    }

    /// Appends a value as NUL-terminated text, inferred by the server.
    private mutating func appendText(_ text: String) {
        let offset = bytes.count
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
        slots.append(Slot(offset: offset, length: Int32(bytes.count - offset), isBinary: false))
    }

    /// The number of parameters.
    var count: Int { slots.count }

    /// Each parameter's type: 0 (inferred by the server) or 17 (`bytea`, sent as raw bytes).
    var types: [UInt32] { slots.map { $0.isBinary ? Self.byteaType : 0 } }

    /// Whether ``types`` are `types` (those a statement was prepared with), without making them.
    func hasTypes(_ types: [UInt32]) -> Bool {
        guard types.count == slots.count else { return false }
        for (type, slot) in zip(types, slots) where type != (slot.isBinary ? Self.byteaType : 0) {
            return false
        }
        return true
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
        let count = slots.count
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) {
                pointers in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count) { types in
                    // The lengths, then the formats.
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { numbers in
                        for (index, slot) in slots.enumerated() {
                            pointers.initializeElement(
                                at: index, to: slot.offset < 0 ? nil : base + slot.offset)
                            types.initializeElement(at: index, to: slot.isBinary ? Self.byteaType : 0)
                            numbers.initializeElement(at: index, to: slot.length)
                            numbers.initializeElement(at: count + index, to: slot.isBinary ? 1 : 0)
                        }
                        let numbersBase = numbers.baseAddress.map { UnsafePointer($0) }
                        return body(
                            UnsafePointer(types.baseAddress), UnsafePointer(pointers.baseAddress),
                            numbersBase,
                            numbersBase.map { $0 + count })
                    }
                }
            }
        }
    }
}
