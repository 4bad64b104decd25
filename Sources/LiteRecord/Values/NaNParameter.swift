extension ValueConversionError {
    /// The error for a NaN bound as a parameter (`DatabaseValue.real(.nan)` in raw SQL's
    /// arguments or interpolation): SQLite would silently store NULL and PostgreSQL NaN, so it
    /// is refused on every backend before anything runs, as a `Double` NaN already is.
    ///
    /// - Parameter parameter: The parameter's position (1-based) or name.
    package static func nanParameter(_ parameter: String) -> ValueConversionError {
        ValueConversionError(
            storing: Double.self,
            reason: "parameter \(parameter) is NaN, which cannot be stored (LiteRecord refuses it on every "
                + "backend, as not every database keeps it; bind NULL for a missing value)")
    }
}

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
