import Foundation

/// Descriptions of values for error messages that never trap and stay short, whatever the value.
///
/// Describing an arbitrary value can trap: Foundation's `Date.description` does for a date whose
/// time interval is infinite or NaN, and reflection describes a struct through its properties'
/// descriptions. An error must be printable whatever value made it, so errors describe values
/// through this type only.
enum SafeDescription {
    /// At most this many Unicode scalars of a text are shown.
    static let textLimit = 60
    /// At most this many Unicode scalars of SQL are shown.
    static let sqlLimit = 1_000

    /// A short description of `value`: numbers, dates, text and bytes as such, anything else by
    /// its type only.
    static func of(_ value: Any) -> String {
        switch value {
        case let date as Date:
            // Never `Date.description`, which traps on a non-finite interval.
            return "Date(timeIntervalSinceReferenceDate: \(date.timeIntervalSinceReferenceDate))"
        case let number as Double: return "\(number)"
        case let number as Float: return "\(number)"
        case let number as any BinaryInteger: return "\(number)"
        case let flag as Bool: return "\(flag)"
        case let text as String: return "\"" + cut(text, toScalars: textLimit) + "\""
        case let data as Data: return "\(data.count) bytes"
        case let databaseValue as DatabaseValue: return databaseValue.description
        default: return "a value of type \(type(of: value))"
        }
    }

    /// `text` cut to at most `limit` Unicode scalars, saying how much was left out.
    ///
    /// Counted in scalars, not characters: one character can hold any number of combining
    /// scalars.
    static func cut(_ text: String, toScalars limit: Int) -> String {
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex),
            end != scalars.endIndex
        else { return text }
        let kept = String(scalars[..<end])
        return kept + "... (\(text.utf8.count - kept.utf8.count) more bytes)"
    }
}

extension EncodingError {
    /// The same error, with the invalid value it carries replaced by its safe description.
    func describingValueSafely() -> EncodingError {
        guard case .invalidValue(let value, let context) = self, !(value is String) else { return self }
        return .invalidValue(SafeDescription.of(value), context)
    }
}
