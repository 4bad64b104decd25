import Foundation

// Values inside JSON columns: arrays and dictionaries (count, membership, any-match, values by
// key) and members of an optional nested struct.

extension Column where Value: Collection {
    /// The number of elements of an array or dictionary stored as JSON: `$0.tags.count > 2`.
    public var count: Column<Int> {
        guard (isJSON || jsonPath != nil) && !(Value.self is any StringProtocol.Type) else {
            return failed(
                error
                    ?? SchemaError(
                        "count of \(sql.text) (\(Value.self)) cannot be computed in SQL: only arrays and "
                            + "dictionaries stored as JSON have a count"))
        }
        let isObject = Value.self is any JSONObjectCollection.Type
        return derived(dialect.jsonCount(of: self, isObject: isObject), isNullable: false)
    }

    /// Whether the array is empty.
    public var isEmpty: Condition { count == 0 }
}

extension Column where Value: Collection, Value.Element: Encodable {
    /// Whether an array stored as JSON holds `element`: `$0.tags.contains("pro")`.
    ///
    /// - Parameter element: The element to look for.
    public func contains(_ element: Value.Element) -> Condition {
        let (condition, conversionError) = dialect.jsonArray(self, containing: element)
        return Condition(condition, error: error ?? conversionError)
    }
}

/// Dictionaries, which JSON stores as objects.
protocol JSONObjectCollection {}
extension Dictionary: JSONObjectCollection {}

extension Column {
    /// The value stored under a key of a dictionary stored as JSON: `$0.scores["math"] > 3`.
    public subscript<Element>(key: String) -> Column<Element?> where Value == [String: Element] {
        do {
            let member: Column<Element?> = try jsonMember([key], keyPathText: "[\(key.debugDescription)]")
            if dialect.jsonPathsNameAnyKey { return member }
            // A JSON path cannot name a key holding `"` (nor, before SQLite 3.45, a control character).
            guard key.unicodeScalars.contains(where: { $0 == "\"" || $0.value < 0x20 }),
                let (column, path) = jsonPath ?? columnName.map({ ($0, "$") })
            else { return member }
            return derived(
                "(SELECT value FROM json_each(\(SQL(SQL.quoteIdentifier(column))), \(path)) WHERE key = \(key))",
                isNullable: true)
        } catch {
            return failed(error)
        }
    }
}

// MARK: - Any element

extension Column where Value: Collection {
    /// Whether an element of an array stored as JSON satisfies a condition:
    /// `$0.items.contains { $0.sku == "A1" && $0.quantity > 2 }`.
    ///
    /// The element is a column of its own inside the condition: its members, comparisons,
    /// string predicates and nested `contains` work as on a model's columns.
    ///
    /// - Parameter predicate: The condition on one element.
    /// - Returns: The condition: at least one element satisfies `predicate` (an empty array never
    ///   does).
    public func contains(where predicate: (Column<Value.Element>) -> Condition) -> Condition {
        guard (isJSON || jsonPath != nil) && !(Value.self is any StringProtocol.Type) else {
            return Condition(
                SQL(dialect.falseCondition),
                error: error
                    ?? SchemaError(
                        "contains(where:) on \(sql.text) (\(Value.self)) cannot be computed in SQL: only "
                            + "arrays stored as JSON have elements there"))
        }
        let dialect = self.dialect
        let source = dialect.jsonElements(of: self)
        // The element gets a name of its own, one per nesting level: a bare `value` inside a
        // nested json_each() would name that json_each's own column, not the outer element.
        let prefix = "literecord_element_"
        let outer = (jsonPath?.column ?? columnName).flatMap { name in
            name.hasPrefix(prefix) ? Int(name.dropFirst(prefix.count)) : nil
        }
        let name = prefix + String((outer ?? 0) + 1)
        let elementSQL = dialect.jsonElement(named: name, type: Value.Element.self)
        let element = Column<Value.Element>(
            sql: elementSQL, columnName: name, isNullable: true, isJSON: true,
            collation: nil, dateStorage: .text, jsonPath: nil, error: nil, dialectType: dialectType)
        let condition = predicate(element)
        var elements: SQL = "(SELECT value AS \(SQL(SQL.quoteIdentifier(name))) FROM \(source))"
        if dialect.namesDerivedTables { elements.append(" AS \(SQL(SQL.quoteIdentifier(name + "_rows")))") }
        return Condition(
            "EXISTS (SELECT 1 FROM \(elements) WHERE \(condition.sql))", error: error ?? condition.error)
    }
}

// MARK: - Optional nested values

extension Column where Value: OptionalProtocol {
    /// A member of an optional nested struct stored as JSON, or `nil` when the struct is:
    /// `$0.address.city` on an `Address?` (Swift's `address?.city`).
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value.Wrapped, Member>) -> Column<Member?> {
        optionalMember(keyPath)
    }

    /// An optional member of an optional nested struct, flattened: `$0.address.zip` on an
    /// `Address?` whose `zip` is a `String?` is a `String?` column (Swift's `address?.zip`).
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value.Wrapped, Member?>) -> Column<Member?> {
        optionalMember(keyPath)
    }

    private func optionalMember<Member, Result>(_ keyPath: KeyPath<Value.Wrapped, Member>) -> Column<Result> {
        if let error { return failed(error) }
        let keyPathText = String(describing: keyPath)
        guard let path = PropertyPath.resolve(keyPath as PartialKeyPath<Value.Wrapped>) else {
            return failed(
                SchemaError("\(keyPathText) is not a stored property, so it cannot be read from JSON"))
        }
        do {
            return try jsonMember(path.names, keyPathText: keyPathText)
        } catch {
            return failed(error)
        }
    }
}
