import Foundation
import LiteRecord

// Filters across relations on PostgreSQL: the same `EXISTS (...)` condition LiteRecord's
// `Query` builds for SQLite, built by the same code in PostgreSQL's dialect.

extension PostgresQuery {
    /// Keeps the rows whose related row of another model (the one its foreign key references,
    /// or the one that references it) satisfies a condition: books by Tolkien.
    ///
    /// ```swift
    /// let byTolkien = try pg.query(Book.self).where(Author.self) { $0.name == "Tolkien" }.fetchAll()
    /// ```
    ///
    /// A row whose key is NULL, or matches no row, is not kept, as on SQLite.
    ///
    /// - Parameters:
    ///   - related: The related model, holding the foreign key or referenced by it.
    ///   - condition: The condition on the related row's columns.
    /// - Returns: The narrowed query; a relation that cannot be found throws when it runs.
    public func `where`<Related: Model>(
        _ related: Related.Type, _ condition: (Columns<Related>) -> Condition
    ) -> PostgresQuery {
        reading(Related.self).with { $0.where(Related.self, condition) }
    }

    /// Keeps the rows whose row of another model, referenced by this model's foreign key `key`,
    /// satisfies a condition: employees whose manager is in Calgary.
    ///
    /// - Parameters:
    ///   - related: The referenced model.
    ///   - key: This model's foreign key property: `\.reportsTo`.
    ///   - condition: The condition on the related row's columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(
        _ related: Related.Type, via key: PartialKeyPath<M>, _ condition: (Columns<Related>) -> Condition
    ) -> PostgresQuery {
        reading(Related.self).with { $0.where(Related.self, via: key, condition) }
    }

    /// Keeps the rows with at least one related row of another model that satisfies a
    /// condition: authors with a book written before 1950.
    ///
    /// ```swift
    /// let early = try pg.query(Author.self).where(any: Book.self) { $0.year < 1950 }.count()
    /// ```
    ///
    /// - Parameters:
    ///   - related: The related model, usually the one holding the foreign key.
    ///   - condition: The condition on the related rows' columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(
        any related: Related.Type, _ condition: (Columns<Related>) -> Condition
    ) -> PostgresQuery {
        reading(Related.self).with { $0.where(any: Related.self, condition) }
    }

    /// Keeps the rows with at least one row of another model, whose foreign key `key`
    /// references them, that satisfies a condition: managers of someone in Calgary.
    ///
    /// - Parameters:
    ///   - related: The model holding the foreign key.
    ///   - key: Its foreign key property: `\.reportsTo`.
    ///   - condition: The condition on the related rows' columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(
        any related: Related.Type, via key: PartialKeyPath<Related>,
        _ condition: (Columns<Related>) -> Condition
    ) -> PostgresQuery {
        reading(Related.self).with { $0.where(any: Related.self, via: key, condition) }
    }

    /// The query, noting that it reads `Related`'s table too.
    private func reading<Related: Model>(_ related: Related.Type) -> PostgresQuery {
        var copy = self
        if !copy.relatedTypes.contains(where: { $0 == Related.self }) {
            copy.relatedTypes.append(Related.self)
        }
        return copy
    }
}

extension PostgresSession {
    /// Creates (or completes) the tables of models a query reads besides its own.
    func prepareTables(of types: [any Model.Type]) throws {
        for type in types { try prepareTable(type) }
    }

    private func prepareTable<T: Model>(_ type: T.Type) throws {
        _ = try preparedTable(for: T.self)
    }

    /// As ``prepareTables(of:)``, for a read: `false` when this session never creates tables (a
    /// `read`) and one of the tables does not exist, so that the read returns nothing, as
    /// SQLite's does (no row can relate to a table that does not exist). Creates nothing.
    func readableTables(of types: [any Model.Type]) throws -> Bool {
        for type in types where try !readableTable(type) { return false }
        return true
    }

    private func readableTable<T: Model>(_ type: T.Type) throws -> Bool {
        try readableTable(for: T.self) != nil
    }
}
