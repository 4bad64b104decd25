import LiteRecord

// What a model declaring a feature the PostgreSQL backend lacks gets instead: an error at its
// first use (before anything is written), saying what to do meanwhile.

extension PostgresSession {
    /// The advice that ends the error for an unsupported feature, or nothing.
    static func alternative(to feature: String) -> String {
        switch feature {
        case "full-text search":
            // `matching(_:)` and snippets are not on PostgresQuery at all: only the schema
            // declaration can reach the backend, so this one error covers every search call.
            return ": keep this model on a SQLite Database, or drop fullTextSearch(on:) from its schema and "
                + "search with where(sql:) and PostgreSQL's to_tsvector(...) @@ websearch_to_tsquery(...)"
        default:
            return ""
        }
    }
}
