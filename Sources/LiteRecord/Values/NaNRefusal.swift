import Foundation

extension ValueConversionError {
    /// The error for a `Double`, `Float` or `Decimal` NaN stored in a model or compared in a query.
    ///
    /// NaN is refused on every backend, in one message: SQLite would silently store NULL and
    /// PostgreSQL NaN, and a model must store the same values on any backend.
    ///
    /// - Parameter type: The Swift type of the NaN.
    package static func nan<T>(storing type: T.Type) -> ValueConversionError {
        ValueConversionError(storing: type, reason: nanReason(subject: "the value"))
    }

    /// The error for a NaN bound as a parameter (`DatabaseValue.real(.nan)` in raw SQL's
    /// arguments or interpolation): refused before anything runs, as a model's NaN is
    /// (``nan(storing:)``), in the same words.
    ///
    /// - Parameter parameter: The parameter's position (1-based) or name.
    package static func nanParameter(_ parameter: String) -> ValueConversionError {
        ValueConversionError(storing: Double.self, reason: nanReason(subject: "parameter \(parameter)"))
    }

    /// Why NaN is refused, and what to use instead: said here only.
    private static func nanReason(subject: String) -> String {
        "\(subject) is NaN, which LiteRecord refuses on every backend, as not every database keeps it; "
            + "use an optional and nil for a missing value"
    }
}

/// A number type that has a NaN: `Double`, `Float`, `Decimal`. Their conformances store a value
/// through ``refusingNaN()``, so NaN is refused by one check, in one message.
package protocol NaNCarrying {
    var isNaN: Bool { get }
}

extension NaNCarrying {
    /// The value itself, for storing.
    ///
    /// - Throws: ``ValueConversionError/nan(storing:)`` naming `Self` when the value is NaN.
    package func refusingNaN() throws -> Self {
        guard !isNaN else { throw ValueConversionError.nan(storing: Self.self) }
        return self
    }
}

extension Double: NaNCarrying {}
extension Float: NaNCarrying {}
extension Decimal: NaNCarrying {}

extension StatementArguments {
    /// Throws ``ValueConversionError/nanParameter(_:)`` when a value is a NaN.
    package func refuseNaN() throws {
        for (index, value) in positional.enumerated() where value.isNaN {
            throw ValueConversionError.nanParameter("\(index + 1)")
        }
        for (name, value) in named where value.isNaN {
            throw ValueConversionError.nanParameter(":" + name)
        }
    }
}

extension DatabaseValue {
    /// Whether the value is a REAL NaN.
    fileprivate var isNaN: Bool {
        if case .real(let real) = self { return real.isNaN }
        return false
    }
}
