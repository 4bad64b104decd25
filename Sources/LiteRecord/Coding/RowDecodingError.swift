/// A row that cannot become the Swift value asked for.
///
/// The message names everything needed to find the problem: the Swift type and coding path,
/// the column, what it holds (storage class and a short preview), what was expected, and the
/// SQL that produced the row.
///
/// ```
/// cannot decode Player.score: column "score" holds TEXT 'lots', expected Int — in `SELECT * FROM players`
/// ```
public struct RowDecodingError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case missingColumn(available: [String])
        case nullValue
        case mismatch(reason: String?)
        case invalidJSON(reason: String)
        case invalidValue(reason: String)
    }

    private let kind: Kind
    /// The type being decoded (the model, or the property's type for a plain value fetch).
    public let decodedType: String
    /// The column involved.
    public let column: String
    /// The stored value, when there was one.
    public let storedValue: DatabaseValue?
    /// The Swift type expected for the column.
    public let expectedType: String
    /// The coding path, as key names (`["stats", "wins"]`).
    public let codingPath: [String]
    /// The SQL whose row was being decoded, when known.
    public let sql: String?

    /// Whether the column is absent from the row.
    public var isMissingColumn: Bool { if case .missingColumn = kind { true } else { false } }

    /// Whether the column holds NULL where a non-optional value was expected.
    public var isNullValue: Bool { if case .nullValue = kind { true } else { false } }

    /// Whether the column holds a value of the wrong type or out of range.
    public var isTypeMismatch: Bool { if case .mismatch = kind { true } else { false } }

    /// Whether the column holds text that is not valid JSON for the expected type.
    public var isInvalidJSON: Bool { if case .invalidJSON = kind { true } else { false } }

    static func missingColumn(
        _ column: String, available: [String], decodedType: String, expectedType: String,
        codingPath: [String], sql: String?
    ) -> RowDecodingError {
        RowDecodingError(
            kind: .missingColumn(available: available), decodedType: decodedType, column: column,
            storedValue: nil, expectedType: expectedType, codingPath: codingPath, sql: sql)
    }

    static func value(
        _ value: DatabaseValue, column: String, decodedType: String, expectedType: String,
        codingPath: [String], sql: String?, reason: String?, isJSON: Bool = false, isInvalid: Bool = false
    ) -> RowDecodingError {
        let kind: Kind =
            if value.isNull { .nullValue } else if isJSON {
                .invalidJSON(reason: reason ?? "invalid JSON")
            } else if isInvalid {
                .invalidValue(reason: reason ?? "invalid value")
            } else { .mismatch(reason: reason) }
        return RowDecodingError(
            kind: kind, decodedType: decodedType, column: column, storedValue: value,
            expectedType: expectedType, codingPath: codingPath, sql: sql)
    }

    public var description: String {
        let path = ([decodedType] + codingPath).joined(separator: ".")
        var text = "cannot decode \(path): "
        switch kind {
        case .missingColumn(let available):
            text += "no column \"\(column)\" in the row (columns: \(available.joined(separator: ", ")))"
            text += "; make the property optional or select the column"
        case .nullValue:
            text += "column \"\(column)\" is NULL, expected non-optional \(expectedType)"
        case .mismatch(let reason):
            text += "column \"\(column)\" holds \(storedDescription), expected \(expectedType)"
            if let reason { text += " (\(reason))" }
        case .invalidJSON(let reason):
            text +=
                "column \"\(column)\" holds \(storedDescription), not valid JSON for \(expectedType): \(reason)"
        case .invalidValue(let reason):
            text += "column \"\(column)\" holds \(storedDescription), not a valid \(expectedType): \(reason)"
        }
        if let sql { text += " — in `\(sql)`" }
        return text
    }

    private var storedDescription: String {
        guard let storedValue else { return "nothing" }
        return "\(storedValue.storageClassName) \(storedValue)"
    }
}
