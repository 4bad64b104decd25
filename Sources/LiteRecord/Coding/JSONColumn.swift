import Foundation

/// The JSON storage of values that have no column type of their own: arrays, sets,
/// dictionaries, nested structs, enums with associated values.
///
/// Keys are sorted so that equal values store equal text (and compare equal in SQL); dates
/// inside JSON use the same UTC text as date columns. The coders are built once and shared:
/// building one per row would cost more than the JSON work itself.
package enum JSONColumn {
    // JSONEncoder and JSONDecoder are thread-safe for encode/decode calls; their settings are
    // fixed here and never changed afterwards.
    nonisolated(unsafe) package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            guard case .text(let text) = try DateStorage.text.databaseValue(for: date) else {
                throw EncodingError.invalidValue(
                    date,
                    .init(codingPath: encoder.codingPath, debugDescription: "date is not storable as text"))
            }
            try container.encode(text)
        }
        encoder.nonConformingFloatEncodingStrategy = .throw
        return encoder
    }()

    nonisolated(unsafe) static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) {
                return try DateStorage.text.date(from: .real(seconds))
            }
            let text = try container.decode(String.self)
            do {
                return try DateStorage.text.date(from: .text(text))
            } catch {
                let shown = SafeDescription.cut(text, toScalars: SafeDescription.textLimit)
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "invalid date text \(shown.debugDescription)")
            }
        }
        return decoder
    }()

    /// Encodes a value as JSON text.
    static func encode<T: Encodable>(_ value: T) throws -> DatabaseValue {
        let data = try encoder.encode(value)
        return .text(String(decoding: data, as: UTF8.self))
    }
}
