import Foundation

/// A condition that lets an index narrow a comparison of a `.text` date column, which compares
/// instants through `literecord_instant` (see ``StoredComparison``) and so serves no index.
///
/// Every text that decodes as a date starts `YYYY-MM-DD` (the date before its UTC offset), and
/// an offset is at most ±23:59, so such text of an instant `t` starts with a day between
/// `day(t) - 1` and `day(t) + 1` (`t` is that day's start plus a time of day, less at most a
/// day in offset): it lies, as text, within the band from the text of `day(t) - 1` up to (not
/// including) the text of `day(t) + 2`. Every other stored value that
/// may decode as a date (an INTEGER or REAL, or text that is a number) is not date-shaped (no
/// `____-__-__` prefix, see ``isNotDateShaped(_:)``) or sorts before all text. The prefilter
///
///     (band OR (column >= -inf AND column < '') OR (column >= '' AND column NOT LIKE '____-__-__%'))
///
/// (where `band` is `column >= low AND column < high`; `<` and `<=` take `0000-01-01` as
/// `low`, `>` and `>=` take `:`, which follows every digit, as `high`, and a number is within
/// `-inf <= column < ''`, values bound) is therefore true on every row the exact comparison matches. Each of its terms is a range
/// on the column, so SQLite's OR optimization serves it with the column's index and the
/// partial index of non-date-shaped values that LiteRecord creates beside it (see
/// ``partialIndexSQL(named:table:column:)``); without that index the query reads every row, as
/// it would without the prefilter.
enum DatePrefilter {
    /// The condition of the partial index; literal SQL text, matched by SQLite's planner.
    static let notDateShaped = "NOT LIKE '____-__-__%'"

    /// `column NOT LIKE '____-__-__%'`.
    static func isNotDateShaped(_ column: SQL) -> SQL {
        "\(column) \(SQL(notDateShaped))"
    }

    /// The prefilter of `column op instant` (`op` one of `=`, `IS`, `<`, `<=`, `>`, `>=`), or
    /// of membership (`IN`) in `instants`; `nil` for an operator it cannot narrow.
    static func condition(_ column: SQL, _ op: String, _ instants: [Double]) -> SQL? {
        bands(op, instants).map { condition(column, bands: $0) }
    }

    /// The text bands of `op` and `instants`, or `nil` for an operator the prefilter does not
    /// narrow (or no instant).
    static func bands(_ op: String, _ instants: [Double]) -> [Band]? {
        guard !instants.isEmpty else { return nil }
        switch op {
        case "=", "IS", "IN": return instants.map(band)
        case "<", "<=": return instants.map { Band(low: "0000-01-01", high: band($0).high) }
        case ">", ">=": return instants.map { Band(low: band($0).low, high: ":") }
        default: return nil
        }
    }

    /// The prefilter of date text within any of `bands`.
    static func condition(_ column: SQL, bands: [Band]) -> SQL {
        // Every term is a range with two ends: SQLite then prefers the indexes to a scan.
        var terms: [SQL] = bands.map { band in
            "(\(column) >= \(DatabaseValue.text(band.low)) AND \(column) < \(DatabaseValue.text(band.high)))"
        }
        // Numbers sort before all text; any other value that is not date-shaped is in the
        // partial index (`>= ''` is the range SQLite searches it with). Only the pattern is SQL
        // text: the partial index's condition must be seen in the query.
        let noText = DatabaseValue.text("")
        terms.append("(\(column) >= \(DatabaseValue.real(-.infinity)) AND \(column) < \(noText))")
        terms.append("(\(column) >= \(noText) AND \(isNotDateShaped(column)))")
        let joined = terms.dropFirst().reduce(terms[0]) { "\($0) OR \($1)" }
        return "(\(joined))"
    }

    /// The one band a prefiltered comparison narrows its column to, kept so that `&&` of two
    /// comparisons of the same column (a range) narrows to the intersection of their bands.
    struct Narrowing: Sendable {
        let column: SQL
        let band: Band

        /// The narrowing both hold, when they are of the same column.
        func intersected(with other: Narrowing) -> Narrowing? {
            guard column.text == other.column.text else { return nil }
            let low = max(band.low, other.band.low)
            return Narrowing(
                column: column, band: Band(low: low, high: max(low, min(band.high, other.band.high))))
        }
    }

    /// Date text from `low` up to, not including, `high` (`YYYY-MM-DD` texts).
    struct Band: Sendable {
        var low: String
        var high: String
    }

    /// The `YYYY-MM-DD` texts of the day before the instant's UTC day and of two days after it
    /// (the band is exclusive at its end), clamped to the texts that bound every date of years
    /// 0000...9999.
    static func band(_ instant: Double) -> Band {
        guard instant.isFinite else { return Band(low: "0000-01-01", high: ":") }
        // Days since the reference date, bounded before conversion (any finite instant works)
        // and made exact: the division may round up to the next day near midnight.
        let firstDay = Double(DateText.firstSecond / 86_400)
        let endDay = Double(DateText.endSecond / 86_400)
        var day = min(max((instant / 86_400).rounded(.down), firstDay - 10), endDay + 10)
        if day * 86_400 > instant { day -= 1 }
        if (day + 1) * 86_400 <= instant { day += 1 }
        return Band(low: dayText(Int64(day) - 1), high: dayText(Int64(day) + 2))
    }

    /// `YYYY-MM-DD` of a day counted from the reference date; `0000-01-01` (before every date
    /// text) for a day before year 0000, `:` (after every text starting with a digit) for a day
    /// after year 9999.
    private static func dayText(_ day: Int64) -> String {
        if day < DateText.firstSecond / 86_400 { return "0000-01-01" }
        if day >= DateText.endSecond / 86_400 { return ":" }
        let (year, month, dayOfMonth) = DateText.civilFromDays(day + DateText.unixEpochToReference / 86_400)
        return digits(year, 4) + "-" + digits(month, 2) + "-" + digits(dayOfMonth, 2)
    }

    private static func digits(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// `CREATE INDEX` of the partial index of a `.text` date column's non-date-shaped values:
    /// empty while the column holds LiteRecord's own text, it lets SQLite serve the prefilter's
    /// last term.
    static func partialIndexSQL(named name: String, table: String, column: String) -> String {
        let quoted = SQL.quoteIdentifier(column)
        return "CREATE INDEX \(SQL.quoteIdentifier(name)) ON \(SQL.quoteIdentifier(table)) (\(quoted)) "
            + "WHERE \(quoted) \(notDateShaped)"
    }

    /// The name of a column's partial index.
    static func partialIndexName(table: String, column: String) -> String {
        "\(table)_on_\(column)_not_date_text"
    }
}
