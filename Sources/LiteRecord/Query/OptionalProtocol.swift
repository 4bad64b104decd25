/// `Optional`, as a constraint: lets ``Column`` offer `$0.id > lastID` on an `Int64?` column,
/// where Swift itself has no `<` on optionals.
///
/// Only `Optional` conforms; there is no reason to conform another type.
public protocol OptionalProtocol {
    /// The type of the value an optional holds.
    associatedtype Wrapped

    /// An optional holding `wrapped`: the `.some` case of `Optional`.
    static func some(_ wrapped: Wrapped) -> Self
}

extension Optional: OptionalProtocol {}
