// Property wrappers for the common case: a view or a model that shows a query's rows names the
// query once, where it declares the property, and reads the rows like any other property.
// They are a `LiveQuery` underneath (their projected value), so everything it does they do.

/// The database that ``FetchAll`` and ``FetchOne`` read when they are given no query of their own.
///
/// Set it once when the app starts:
///
/// ```swift
/// LiveData.database = try Database(path: "app.sqlite")
/// ```
public enum LiveData {
    /// The database of the property wrappers; `nil` until the app sets it.
    @MainActor public static var database: (any ModelDatabase)?

    /// The query of every `M` on ``database``, or why there is none.
    @MainActor static func query<M: Model>(_ type: M.Type, for wrapper: String) -> Result<
        Query<M>, DatabaseError
    > {
        guard let database else {
            return .failure(
                DatabaseError(
                    resultCode: .misuse,
                    message:
                        "@\(wrapper) was given no query, and LiveData.database is not set: set it when the "
                        + "app starts (LiveData.database = db), or pass a query built on a database"))
        }
        return .success(database.query(M.self))
    }
}

/// The models a query returns, kept fresh on the main actor: `@FetchAll var players: [Player]`.
///
/// ```swift
/// @MainActor struct Roster {
///     @FetchAll var players: [Player]                                 // every row, on LiveData.database
///     @FetchAll({ $0.where { $0.score > 10 }.order { $0.name } }) var stars: [Player]
/// }
/// ```
///
/// Reading the property reads ``LiveQuery/value``; `$players` is the ``LiveQuery`` itself, for
/// its ``LiveQuery/error``, ``LiveQuery/isActive`` and `load(_:)`. In an
/// `@Observable` class, mark the property `@ObservationIgnored`: the live query is observable
/// itself, so reading the property is still tracked. In a SwiftUI view, which SwiftUI creates
/// again and again, keep a ``LiveQuery`` in `@State` instead, so that one observation lives as
/// long as the view.
@MainActor
@propertyWrapper
public struct FetchAll<M: Model> {
    /// The live query behind the property.
    public let projectedValue: LiveQuery<[M]>

    /// The models, as the last fetch returned them.
    public var wrappedValue: [M] { projectedValue.value }

    /// Every model of its table, in the table's order, on ``LiveData/database``.
    public init() {
        self.init { $0 }
    }

    /// The models of the query `build` makes from every model of its table on
    /// ``LiveData/database``.
    ///
    /// - Parameter build: Narrows and sorts the query: `{ $0.where { $0.score > 10 } }`.
    public init(_ build: (Query<M>) -> Query<M>) {
        switch LiveData.query(M.self, for: "FetchAll") {
        case .success(let query):
            projectedValue = LiveQuery(build(query))
        case .failure(let failure):
            projectedValue = LiveQuery(
                source: LiveSource(observation: .failure(failure), isSame: { _, _ in false }), initial: [])
        }
    }

    /// The models of a query built on a database.
    ///
    /// - Parameter query: The query (`db.query(Player.self).order { $0.name }`).
    public init(_ query: Query<M>) {
        projectedValue = LiveQuery(query)
    }
}

/// The first model a query returns, or `nil`, kept fresh on the main actor:
/// `@FetchOne({ $0.where { $0.name == "Alice" } }) var alice: Player?`.
///
/// The query is limited to one row. Everything said of ``FetchAll`` holds: `$alice` is the
/// ``LiveQuery`` (of an array of at most one model) behind it.
@MainActor
@propertyWrapper
public struct FetchOne<M: Model> {
    /// The live query behind the property: the query, limited to one row.
    public let projectedValue: LiveQuery<[M]>

    /// The model, or `nil` when the query returns none.
    public var wrappedValue: M? { projectedValue.value.first }

    /// The first model of the query `build` makes from every model of its table on
    /// ``LiveData/database``.
    ///
    /// - Parameter build: Narrows and sorts the query.
    public init(_ build: (Query<M>) -> Query<M>) {
        let wrapped = FetchAll<M> { build($0).limit(1) }
        projectedValue = wrapped.projectedValue
    }

    /// The first model of a query built on a database.
    ///
    /// - Parameter query: The query.
    public init(_ query: Query<M>) {
        projectedValue = LiveQuery(query.limit(1))
    }
}
