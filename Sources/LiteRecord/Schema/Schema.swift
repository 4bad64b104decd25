/// The annotations of a ``Model``: table name, primary key, unique constraints, indexes, and
/// how columns are named, collated and filled when added later.
///
/// Key paths name columns; they must designate stored properties (a computed property is an
/// error at first use, naming the key path).
///
/// ```swift
/// static let schema = Schema<Player>(
///     table: "players",
///     primaryKey: \.id,
///     unique: [\.name],
///     indexes: [[\.score], [\.team, \.score]]
/// )
/// .collation(.nocase, for: \.name)
/// .defaultValue(0, for: \.level)          // fills old rows when `level` is added later
/// ```
///
/// ## Topics
/// - ``init(table:primaryKey:unique:indexes:)-(_,PartialKeyPath<M>?,_,_)``
/// - ``init(table:primaryKey:unique:indexes:)-(_,[PartialKeyPath<M>],_,_)``
/// - ``uniqueTogether(_:)``
/// - ``defaultValue(_:for:)``
/// - ``collation(_:for:)``
/// - ``dateStorage(_:for:)``
/// - ``columnNaming(_:)``
/// - ``column(_:named:)``
/// - ``foreignKey(_:references:key:onDelete:)``
/// - ``foreignKey(_:references:keys:onDelete:)``
/// - ``decoding(_:)``
public struct Schema<M>: Sendable {
    /// The table name; `nil` for the type's name with a lowercased first letter.
    let table: String?
    /// The primary key properties; empty for the default (`id` when the type has one).
    let primaryKey: [PropertyReference]
    /// Unique constraints, each over one or more columns.
    private(set) var uniques: [[PropertyReference]]
    /// Indexes, each over one or more columns.
    let indexes: [[PropertyReference]]
    private(set) var naming: ColumnNaming = .codingKeys
    private(set) var defaults: [PropertyReference: DatabaseValue] = [:]
    private(set) var collations: [PropertyReference: Collation] = [:]
    private(set) var dateStorages: [PropertyReference: DateStorage] = [:]
    private(set) var explicitColumns: [PropertyReference: String] = [:]
    private(set) var invalidDefaults: [String] = []
    /// The full-text index declared with `fullTextSearch(on:tokenizer:)` (Search/), if any.
    var fullTextSearchDeclaration: FullTextSearchDeclaration?
    /// Foreign keys to other models' tables (see `Schema+ForeignKey.swift`).
    var foreignKeys: [ForeignKeyDeclaration] = []
    /// How rows become models (see `Schema+Decoding.swift`).
    var rowDecoding: ModelDecoding = .automatic

    /// Annotates a model with a single-column primary key.
    ///
    /// - Parameters:
    ///   - table: The table name; by default the type name with a lowercased first letter.
    ///   - primaryKey: The primary key property; by default `id` when the type has one. An
    ///     `Int64?` or `Int?` key is an `INTEGER PRIMARY KEY` that SQLite assigns on insert.
    ///   - unique: Properties whose values must be unique, each on its own; see
    ///     ``uniqueTogether(_:)`` for multi-column constraints.
    ///   - indexes: Indexes, each a list of one or more properties.
    public init(
        table: String? = nil, primaryKey: PartialKeyPath<M>? = nil, unique: [PartialKeyPath<M>] = [],
        indexes: [[PartialKeyPath<M>]] = []
    ) {
        self.table = table
        self.primaryKey = primaryKey.map { [PropertyReference($0)] } ?? []
        self.uniques = unique.map { [PropertyReference($0)] }
        self.indexes = indexes.map { $0.map(PropertyReference.init) }
    }

    /// Annotates a model with a composite primary key.
    ///
    /// - Parameters:
    ///   - table: The table name; by default the type name with a lowercased first letter.
    ///   - primaryKey: The properties that together identify a row, in key order.
    ///   - unique: Properties whose values must be unique, each on its own.
    ///   - indexes: Indexes, each a list of one or more properties.
    public init(
        table: String? = nil, primaryKey: [PartialKeyPath<M>], unique: [PartialKeyPath<M>] = [],
        indexes: [[PartialKeyPath<M>]] = []
    ) {
        self.table = table
        self.primaryKey = primaryKey.map(PropertyReference.init)
        self.uniques = unique.map { [PropertyReference($0)] }
        self.indexes = indexes.map { $0.map(PropertyReference.init) }
    }

    /// Adds a unique constraint over several columns together.
    ///
    /// - Parameter properties: The properties whose combination must be unique.
    /// - Returns: The schema with the constraint.
    public func uniqueTogether(_ properties: [PartialKeyPath<M>]) -> Schema {
        var copy = self
        copy.uniques.append(properties.map(PropertyReference.init))
        return copy
    }

    /// Sets the value that fills existing rows when this non-optional property's column is
    /// added to an existing table (and the column's `DEFAULT`).
    ///
    /// - Parameters:
    ///   - value: The default value.
    ///   - property: The property.
    /// - Returns: The schema with the default.
    public func defaultValue(_ value: some DatabaseValueConvertible, for property: PartialKeyPath<M>)
        -> Schema
    {
        var copy = self
        do {
            copy.defaults[PropertyReference(property)] = try value.databaseValue()
        } catch {
            // Thrown when the schema is first used: a schema literal cannot throw.
            copy.invalidDefaults.append("the default for \(property) cannot be stored: \(error)")
        }
        return copy
    }

    /// Sets how a text column compares and sorts (`COLLATE NOCASE`, ...).
    ///
    /// - Parameters:
    ///   - collation: The collation.
    ///   - property: The property.
    /// - Returns: The schema with the collation.
    public func collation(_ collation: Collation, for property: PartialKeyPath<M>) -> Schema {
        var copy = self
        copy.collations[PropertyReference(property)] = collation
        return copy
    }

    /// Stores one `Date` property with another strategy than the database's.
    ///
    /// - Parameters:
    ///   - storage: How the dates are stored.
    ///   - property: The `Date` (or `Date?`) property.
    /// - Returns: The schema with the strategy.
    public func dateStorage(_ storage: DateStorage, for property: PartialKeyPath<M>) -> Schema {
        var copy = self
        copy.dateStorages[PropertyReference(property)] = storage
        return copy
    }

    /// Derives column names from coding keys, for tables named another way (`snake_case`, ...).
    ///
    /// - Parameter naming: The naming strategy.
    /// - Returns: The schema with the strategy.
    public func columnNaming(_ naming: ColumnNaming) -> Schema {
        var copy = self
        copy.naming = naming
        return copy
    }

    /// Names one property's column explicitly, overriding its coding key and the naming strategy.
    ///
    /// - Parameters:
    ///   - property: The property.
    ///   - column: The column name in the table.
    /// - Returns: The schema with the name.
    public func column(_ property: PartialKeyPath<M>, named column: String) -> Schema {
        var copy = self
        copy.explicitColumns[PropertyReference(property)] = column
        return copy
    }
}

/// How column names derive from coding keys.
public enum ColumnNaming: Sendable {
    /// The coding key's string, unchanged (the default).
    case codingKeys
    /// `joinedAt` → `joined_at`, `userID` → `user_id`.
    case snakeCase
    /// `orderID` → `OrderID`: the first letter uppercased, as in many older schemas.
    case pascalCase
    /// Your own function.
    case custom(@Sendable (String) -> String)

    /// The column name for a coding key (`package` so that `literecord generate` applies the
    /// very rule its generated models will).
    package func columnName(for key: String) -> String {
        switch self {
        case .codingKeys: return key
        case .snakeCase: return ColumnNaming.snakeCased(key)
        case .pascalCase: return key.prefix(1).uppercased() + key.dropFirst()
        case .custom(let transform): return transform(key)
        }
    }

    private static func snakeCased(_ key: String) -> String {
        var result = ""
        let characters = Array(key)
        for (index, character) in characters.enumerated() {
            if character.isUppercase {
                let previous = index > 0 ? characters[index - 1] : nil
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord = previous.map { $0.isLowercase || $0.isNumber } ?? false
                let endsAcronym = (previous?.isUppercase ?? false) && (next?.isLowercase ?? false)
                if index > 0 && (startsWord || endsAcronym) { result += "_" }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// A text collation for a column.
public struct Collation: RawRepresentable, Hashable, Sendable {
    /// The collation's SQL name.
    public let rawValue: String
    /// Wraps a collation name (`NOCASE`, `RTRIM`, or one you registered).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Exact bytes (SQLite's default).
    public static let binary = Collation(rawValue: "BINARY")
    /// ASCII letters compare without case.
    public static let nocase = Collation(rawValue: "NOCASE")
    /// Trailing spaces are ignored.
    public static let rtrim = Collation(rawValue: "RTRIM")
}
