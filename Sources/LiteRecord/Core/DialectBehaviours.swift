/// How a database behaves where LiteRecord's SQL cannot assume SQLite's behaviour: the
/// questions a ``SQLDialect`` answers with a yes, where SQLite answers no to every one.
package struct DialectBehaviours: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// NULL sorts after every value in ascending order (SQLite: it is the smallest).
    package static let sortsNullsLast = DialectBehaviours(rawValue: 1 << 0)
    /// Columns hold each value in the one form LiteRecord wrote, so that values compare as
    /// stored: no date or decimal spellings to reconcile, keys compared with `=`. A UUID is the
    /// exception: its text column may hold the lower case another tool writes, so it is
    /// matched in either case and ordered by its upper case text.
    package static let comparesStoredFormsPlainly = DialectBehaviours(rawValue: 1 << 1)
    /// A `DISTINCT` query orders only by selected values, so its rows are sorted and limited
    /// outside, by the same terms over the same column names.
    package static let ordersDistinctRowsOutside = DialectBehaviours(rawValue: 1 << 2)
    /// A subquery in `FROM` needs a name.
    package static let namesDerivedTables = DialectBehaviours(rawValue: 1 << 3)
    /// A JSON member's address names any key (SQLite's path text cannot name a key holding
    /// `"`, which is then read another way).
    package static let jsonPathsNameAnyKey = DialectBehaviours(rawValue: 1 << 4)
}

extension SQLDialect {
    /// Whether NULL sorts before every value in ascending order.
    package var sortsNullsFirst: Bool { !behaviours.contains(.sortsNullsLast) }
    /// See ``DialectBehaviours/comparesStoredFormsPlainly``.
    package var comparesStoredFormsPlainly: Bool { behaviours.contains(.comparesStoredFormsPlainly) }
    /// See ``DialectBehaviours/ordersDistinctRowsOutside``.
    package var ordersDistinctRowsOutside: Bool { behaviours.contains(.ordersDistinctRowsOutside) }
    /// See ``DialectBehaviours/namesDerivedTables``.
    package var namesDerivedTables: Bool { behaviours.contains(.namesDerivedTables) }
    /// See ``DialectBehaviours/jsonPathsNameAnyKey``.
    package var jsonPathsNameAnyKey: Bool { behaviours.contains(.jsonPathsNameAnyKey) }
}
