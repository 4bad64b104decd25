import CSQLite
import Foundation

/// The values of a row's key columns: one value (no array to allocate per row), or several.
package enum RelationKey: Hashable {
    case single(DatabaseValue)
    case composite([DatabaseValue])

    /// The key's values, one per key column.
    package var values: [DatabaseValue] {
        switch self {
        case .single(let value): [value]
        case .composite(let values): values
        }
    }

    /// The key of a statement's current row; `nil` when a value is NULL: such a key relates
    /// to nothing.
    init?(_ statement: Statement, columns: [Int]) throws {
        if columns.count == 1 {
            let value = try statement.value(at: columns[0])
            guard value != .null else { return nil }
            self = .single(value)
        } else {
            let values = try columns.map { try statement.value(at: $0) }
            guard !values.contains(.null) else { return nil }
            self = .composite(values)
        }
    }
}

/// The keys of the rows an eager load read, one per row (`nil` for a key with a NULL).
///
/// While every key is one INTEGER column, as almost every foreign key is, they are kept as
/// plain integers: no boxing into ``DatabaseValue`` and integer hashing when rows are grouped.
/// The first other key turns them all into ``RelationKey``s.
struct RowKeys {
    private(set) var integers: [Int64?] = []
    /// Every key, once one is not a single INTEGER.
    private(set) var general: [RelationKey?]?

    /// Appends the key of the statement's current row.
    @inline(__always)
    mutating func append(from statement: Statement, columns: [Int]) throws {
        if general == nil && columns.count == 1 {
            switch statement.storageClass(at: columns[0]) {
            case SQLITE_INTEGER:
                integers.append(statement.int64(at: columns[0]))
                return
            case SQLITE_NULL:
                integers.append(nil)
                return
            default:
                break
            }
        }
        appendGeneral(try RelationKey(statement, columns: columns))
    }

    /// Appends the key of a row another backend returned: its key columns' values.
    mutating func append(values: ArraySlice<DatabaseValue>) {
        if general == nil && values.count == 1, let value = values.first {
            switch value {
            case .integer(let integer):
                integers.append(integer)
                return
            case .null:
                integers.append(nil)
                return
            default:
                break
            }
        }
        appendGeneral(RelationKey(values))
    }

    /// Appends a key to ``general``, first turning the integers read so far into
    /// ``RelationKey``s when this is the first key that is not a single INTEGER.
    private mutating func appendGeneral(_ key: RelationKey?) {
        if general == nil {
            general = integers.map { integer in integer.map { .single(.integer($0)) } }
            integers = []
        }
        general?.append(key)
    }
}

extension RelationKey {
    /// The key of a row's key column values; `nil` when a value is NULL.
    init?(_ values: ArraySlice<DatabaseValue>) {
        guard !values.contains(.null), let first = values.first else { return nil }
        self = values.count == 1 ? .single(first) : .composite(Array(values))
    }
}

/// The distinct keys of the roots, each with a slot that gathers its related rows, and the
/// slot of a related row found from its key columns.
///
/// Not generic, so that finding a row's slot runs specialized code (integer keys hash as
/// integers) while the loop over the rows is generic over the model.
struct KeySlots {
    /// Per root, the slot of its key; `-1` for a key that relates to nothing.
    let rootSlots: [Int]
    /// The number of distinct keys.
    let count: Int
    /// The distinct keys in root order, as the text bound to the related rows' query: a JSON
    /// array in SQLite, what the dialect's ``SQLDialect/boundKeys(_:)-([RelationKey])`` writes elsewhere.
    let boundKeys: String
    private let integerSlots: [Int64: Int]
    private let generalSlots: [RelationKey: Int]
    private let isIntegral: Bool
    /// How each key column compares; `nil` when keys compare as they are read (a dialect whose
    /// columns hold one form, for keys without a UUID).
    private let forms: [RelationKeyForm]?

    /// The slots of the roots' keys.
    ///
    /// Keys are grouped by their canonical value (``RelationKeyForm/canonical(_:)``), so that
    /// rows whose keys are equal as values, in whatever spelling, share a slot.
    ///
    /// - Parameters:
    ///   - keys: The roots' keys.
    ///   - forms: How each key column compares (see ``EagerLoad/keyForms``).
    ///   - dialect: The SQL dialect the keys are bound in.
    /// - Throws: ``SchemaError`` for a key that cannot be bound exactly.
    init(_ keys: RowKeys, forms: [RelationKeyForm], dialect: any SQLDialect = SQLiteDialect()) throws {
        let textOnly = dialect.comparesStoredFormsPlainly
        let forms = textOnly ? Self.uuidForms(forms) : forms
        self.forms = forms
        // An INTEGER date or decimal key is not its canonical form: group it as the others.
        let general =
            keys.general
            ?? (forms?.contains(where: \.convertsIntegers) == true
                ? keys.integers.map { $0.map { RelationKey.single(.integer($0)) } } : nil)
        if let general {
            let slots = Self.slots(general.map { key in key.map { Self.canonical($0, forms: forms) } })
            rootSlots = slots.rootSlots
            count = slots.distinct.count
            boundKeys = try dialect.boundKeys(
                textOnly && forms != nil ? Self.inEitherCase(slots.distinct) : slots.distinct)
            integerSlots = [:]
            generalSlots = slots.slotOfKey
            isIntegral = false
        } else {
            let slots = Self.slots(keys.integers)
            rootSlots = slots.rootSlots
            count = slots.distinct.count
            boundKeys = try dialect.boundKeys(slots.distinct)
            integerSlots = slots.slotOfKey
            generalSlots = [:]
            isIntegral = true
        }
    }

    /// The slot of the key of a statement's current row, `nil` when no root has that key.
    @inline(__always)
    func slot(ofRowIn statement: Statement, columns: [Int]) throws -> Int? {
        if isIntegral {
            let column = columns[0]
            switch statement.storageClass(at: column) {
            case SQLITE_INTEGER: return integerSlots[statement.int64(at: column)]
            case SQLITE_FLOAT:
                // 5.0 is the key 5, as `=` finds it.
                guard let integer = Int64(exactly: statement.double(at: column)) else { return nil }
                return integerSlots[integer]
            default:
                // A key of another storage class equals no integer key.
                return nil
            }
        }
        guard let key = try RelationKey(statement, columns: columns) else { return nil }
        return generalSlots[Self.canonical(key, forms: forms)]
    }

    /// The forms of a dialect whose columns hold one form: a UUID column's, which may hold the
    /// lower case another tool writes, and plain for the others; `nil` without a UUID column.
    private static func uuidForms(_ forms: [RelationKeyForm]) -> [RelationKeyForm]? {
        guard forms.contains(.uuid) else { return nil }
        return forms.map { $0 == .uuid ? .uuid : .plain }
    }

    /// The keys, each also with its UUIDs (canonical, upper case) in lower case, so that a
    /// text column matches the key in either case.
    private static func inEitherCase(_ keys: [RelationKey]) -> [RelationKey] {
        func lowered(_ value: DatabaseValue) -> DatabaseValue? {
            guard case .text(let text) = value, UUID(uuidString: text) != nil else { return nil }
            let lower = text.lowercased()
            return lower == text ? nil : .text(lower)
        }
        var spelled: [RelationKey] = []
        spelled.reserveCapacity(keys.count * 2)
        for key in keys {
            var variants = [key.values]
            for (index, value) in key.values.enumerated() {
                guard let lower = lowered(value) else { continue }
                variants += variants.map { variant in
                    var other = variant
                    other[index] = lower
                    return other
                }
            }
            spelled += variants.map { $0.count == 1 ? .single($0[0]) : .composite($0) }
        }
        return spelled
    }

    /// A key with each value in its canonical form, as the forms say; as it is without forms.
    private static func canonical(_ key: RelationKey, forms: [RelationKeyForm]?) -> RelationKey {
        guard let forms else { return key }
        switch key {
        case .single(let value):
            return .single((forms.first ?? .plain).canonical(value))
        case .composite(let values):
            return .composite(
                values.indices.map { index in
                    (index < forms.count ? forms[index] : .plain).canonical(values[index])
                })
        }
    }

    /// The slot of a row's key column values (from another backend), `nil` when no root has
    /// that key.
    func slot(of values: ArraySlice<DatabaseValue>) -> Int? {
        if isIntegral {
            guard values.count == 1, case .integer(let integer)? = values.first else { return nil }
            return integerSlots[integer]
        }
        guard let key = RelationKey(values) else { return nil }
        return generalSlots[Self.canonical(key, forms: forms)]
    }

    private static func slots<Key: Hashable>(_ keys: [Key?]) -> (
        rootSlots: [Int], distinct: [Key], slotOfKey: [Key: Int]
    ) {
        var rootSlots: [Int] = []
        var distinct: [Key] = []
        var slotOfKey: [Key: Int] = [:]
        rootSlots.reserveCapacity(keys.count)
        slotOfKey.reserveCapacity(keys.count)
        for key in keys {
            guard let key else {
                rootSlots.append(-1)
                continue
            }
            if let slot = slotOfKey[key] {
                rootSlots.append(slot)
            } else {
                slotOfKey[key] = distinct.count
                rootSlots.append(distinct.count)
                distinct.append(key)
            }
        }
        return (rootSlots, distinct, slotOfKey)
    }
}
