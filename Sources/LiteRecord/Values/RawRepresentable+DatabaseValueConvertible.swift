// MARK: - Default implementations

/// A raw-value type, such as an enum with a `String` or `Int` raw type, is stored as its raw
/// value: declaring the conformance is enough.
///
/// ```swift
/// enum Team: String, DatabaseValueConvertible { case red, blue }
/// try db.execute(sql: "INSERT INTO players(team) VALUES (\(Team.red))")   // binds 'red'
/// let team = try row.value(Team.self, at: 0)
/// ```
///
/// A stored value that is no case's raw value is a ``ValueConversionError`` naming the value
/// and the type, never a default case.
extension DatabaseValueConvertible where Self: RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value's column type.
    public static var databaseColumnType: DatabaseColumnType { RawValue.databaseColumnType }

    /// The raw value, stored as its own type stores it.
    ///
    /// - Throws: What the raw value's conversion throws.
    public func databaseValue() throws -> DatabaseValue {
        try rawValue.databaseValue()
    }

    /// Reads the raw value, then the value that has it.
    ///
    /// - Parameter value: What the column holds.
    /// - Throws: ``ValueConversionError`` naming `Self` when the stored value is not a valid raw
    ///   value type (TEXT for an `Int` raw type, say) or matches no value of `Self`.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Self {
        let rawValue: RawValue
        do {
            rawValue = try RawValue.fromDatabaseValue(value)
        } catch let error as ValueConversionError {
            throw ValueConversionError(
                value: value, to: Self.self,
                reason: "expected a raw value of type \(RawValue.self)"
                    + (error.reason.map { " (\($0))" } ?? ""))
        }
        guard let result = Self(rawValue: rawValue) else {
            throw ValueConversionError(
                value: value, to: Self.self, reason: "no \(Self.self) has this raw value")
        }
        return result
    }
}
