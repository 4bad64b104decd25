/// A condition on a model's rows, built from ``Column`` comparisons with Swift's operators.
///
/// A condition means what the same closure means in Swift on the decoded models: `!=` on an
/// optional column matches NULL rows, `== nil` is `IS NULL`, string comparisons are
/// case-sensitive (by exact UTF-8 bytes, even on a `COLLATE NOCASE` column). On an optional
/// column `nil` never satisfies an ordering comparison or a string predicate, and a condition
/// is always true or false, never SQL's unknown: `!($0.bonus > 3)` matches the `nil` rows.
public struct Condition: Sendable {
    let sql: SQL
    let error: (any Error)?
    /// The condition without the index prefilters `sql` may hold, or `nil` when `sql` has none.
    ///
    /// A prefilter (see ``DatePrefilter``) is true wherever the exact condition is, so `sql`
    /// selects the same rows; it may be false where the exact condition is NULL (a value that
    /// does not decode), so `!` negates this form, keeping NULL where it was.
    let exactSQL: SQL?
    /// The band of date text the prefilter narrows one column to, if any.
    let narrowing: DatePrefilter.Narrowing?

    init(_ sql: SQL, error: (any Error)? = nil, exact: SQL? = nil, narrowing: DatePrefilter.Narrowing? = nil)
    {
        self.sql = sql
        self.error = error
        self.exactSQL = exact
        self.narrowing = narrowing
    }

    /// ``exactSQL``, or ``sql`` when there is no prefilter.
    var negatableSQL: SQL { exactSQL ?? sql }

    /// A condition written in SQL, with bound interpolation: `Condition(sql: "score > \(x)")`.
    ///
    /// - Parameter sql: A boolean SQL expression.
    public init(sql: SQL) {
        self.init(SQL("(") + sql + SQL(")"))
    }

    /// Both conditions hold.
    public static func && (lhs: Condition, rhs: Condition) -> Condition {
        if let left = lhs.narrowing, let right = rhs.narrowing, let both = left.intersected(with: right) {
            // A range of one date column: one prefilter of both bands lets the index read only
            // the range, where SQLite would use one of the two prefilters.
            let exact: SQL = "(\(lhs.negatableSQL) AND \(rhs.negatableSQL))"
            let prefilter = DatePrefilter.condition(both.column, bands: [both.band])
            return Condition(
                "(\(prefilter) AND \(exact))", error: lhs.error ?? rhs.error, exact: exact, narrowing: both)
        }
        let exact: SQL? =
            lhs.exactSQL == nil && rhs.exactSQL == nil
            ? nil : "(\(lhs.negatableSQL) AND \(rhs.negatableSQL))"
        return Condition("(\(lhs.sql) AND \(rhs.sql))", error: lhs.error ?? rhs.error, exact: exact)
    }

    /// Either condition holds.
    public static func || (lhs: Condition, rhs: Condition) -> Condition {
        let exact: SQL? =
            lhs.exactSQL == nil && rhs.exactSQL == nil
            ? nil : "(\(lhs.negatableSQL) OR \(rhs.negatableSQL))"
        return Condition("(\(lhs.sql) OR \(rhs.sql))", error: lhs.error ?? rhs.error, exact: exact)
    }

    /// The condition does not hold.
    public static prefix func ! (condition: Condition) -> Condition {
        Condition("(NOT \(condition.negatableSQL))", error: condition.error)
    }
}

extension SQL {
    package static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result.append(rhs)
        return result
    }
}
